#include "harness/loader/yaml_nesting.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <sstream>

#include "harness/loader/limits.h"

namespace racelab::internal {
namespace {

// Thrown out of the parser at the first collection nested too deep.
struct TooDeep {
  YAML::Mark mark;
};

// Counts open lists and mappings; ignores everything else.
class DepthCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override { depth_ = 0; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Open(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Open(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  void Open(const YAML::Mark& mark) {
    if (++depth_ > limits::kMaxYamlDepth) throw TooDeep{mark};
  }
  int depth_ = 0;
};

}  // namespace

std::optional<NestingProblem> CheckYamlNesting(const std::string& text) {
  std::istringstream in(text);
  try {
    YAML::Parser parser(in);
    DepthCounter counter;
    while (parser.HandleNextDocument(counter)) {
    }
  } catch (const TooDeep& e) {
    return NestingProblem{e.mark.line + 1, e.mark.column + 1,
                          fmt::format("lists and mappings are nested more than {} levels deep",
                                      limits::kMaxYamlDepth)};
  } catch (const YAML::Exception&) {
    // A syntax error: the loader reports it with its own message when it loads the text.
  }
  return std::nullopt;
}

}  // namespace racelab::internal
