// Validation of racelab's outputs and inputs against the checked-in schemas (schemas/), for tests.
//
// JSON and YAML against a JSON Schema (draft 7) with valijson (strict types); a YAML document is
// read with yaml-cpp and given to valijson as JSON, every scalar as text (the scenario schema
// accepts a number written as text); XML against an XML Schema with libxml2. Each returns the list
// of violations, empty when the document is valid: "<where>: <what>" per violation, to print in a
// failed expectation. Thread-safety: each call parses its own schema; libxml2 is initialised on
// first use.
#pragma once

#include <string>
#include <vector>

namespace racelab::testing {

// Path of a checked-in schema: "<source>/schemas/<name>".
std::string SchemaPath(const std::string& name);

std::vector<std::string> ValidateJsonText(const std::string& schema_file,
                                          const std::string& json_text);
std::vector<std::string> ValidateYamlFile(const std::string& schema_file,
                                          const std::string& yaml_file);
std::vector<std::string> ValidateXmlText(const std::string& xsd_file, const std::string& xml_text);

}  // namespace racelab::testing
