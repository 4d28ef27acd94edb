#include "tests/schema/schema_check.h"

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace racelab::testing {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void LoadSchema(const std::string& schema_file, valijson::Schema* schema) {
  const nlohmann::json doc = nlohmann::json::parse(Slurp(schema_file));
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  parser.populateSchema(adapter, *schema);
}

std::vector<std::string> Errors(valijson::ValidationResults& results) {
  std::vector<std::string> out;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    std::string where;
    for (const std::string& part : error.context) where += part;
    out.push_back(where + ": " + error.description);
  }
  return out;
}

void CollectXmlError(void* ctx, const xmlError* error) {
  auto* out = static_cast<std::vector<std::string>*>(ctx);
  std::string message = error->message != nullptr ? error->message : "?";
  while (!message.empty() && message.back() == '\n') message.pop_back();
  out->push_back("line " + std::to_string(error->line) + ": " + message);
}

// A YAML document as JSON for valijson: maps, sequences and nulls as such, every other scalar as
// text (YAML does not say whether `2` is a number or text; the scenario schema accepts both).
// valijson's own yaml-cpp adapter (Debian 1.0) does not compile: its array iterator lacks the
// operator-- that the uniqueItems check needs.
nlohmann::json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = YamlToJson(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(YamlToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      return node.as<std::string>();
    default:
      return nullptr;
  }
}

}  // namespace

std::string SchemaPath(const std::string& name) {
  return std::string(RACELAB_SOURCE_DIR) + "/schemas/" + name;
}

std::vector<std::string> ValidateJsonText(const std::string& schema_file,
                                          const std::string& json_text) {
  valijson::Schema schema;
  LoadSchema(schema_file, &schema);
  const nlohmann::json doc = nlohmann::json::parse(json_text);
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator.validate(schema, target, &results)) return {};
  std::vector<std::string> errors = Errors(results);
  if (errors.empty()) errors.push_back("invalid (no detail)");
  return errors;
}

std::vector<std::string> ValidateYamlFile(const std::string& schema_file,
                                          const std::string& yaml_file) {
  valijson::Schema schema;
  LoadSchema(schema_file, &schema);
  const nlohmann::json doc = YamlToJson(YAML::LoadFile(yaml_file));
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator.validate(schema, target, &results)) return {};
  std::vector<std::string> errors = Errors(results);
  if (errors.empty()) errors.push_back("invalid (no detail)");
  return errors;
}

std::vector<std::string> ValidateXmlText(const std::string& xsd_file, const std::string& xml_text) {
  std::vector<std::string> errors;
  xmlSchemaParserCtxtPtr parser = xmlSchemaNewParserCtxt(xsd_file.c_str());
  xmlSchemaPtr schema = parser != nullptr ? xmlSchemaParse(parser) : nullptr;
  if (schema == nullptr) {
    if (parser != nullptr) xmlSchemaFreeParserCtxt(parser);
    return {"cannot parse the XML Schema " + xsd_file};
  }
  xmlSchemaValidCtxtPtr valid = xmlSchemaNewValidCtxt(schema);
  xmlSchemaSetValidStructuredErrors(
      valid, reinterpret_cast<xmlStructuredErrorFunc>(&CollectXmlError), &errors);
  xmlDocPtr doc = xmlReadMemory(xml_text.data(), static_cast<int>(xml_text.size()), "report.xml",
                                nullptr, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) {
    errors.push_back("not well-formed XML");
  } else {
    const int rc = xmlSchemaValidateDoc(valid, doc);
    if (rc != 0 && errors.empty()) errors.push_back("invalid (code " + std::to_string(rc) + ")");
    xmlFreeDoc(doc);
  }
  xmlSchemaFreeValidCtxt(valid);
  xmlSchemaFree(schema);
  xmlSchemaFreeParserCtxt(parser);
  return errors;
}

}  // namespace racelab::testing
