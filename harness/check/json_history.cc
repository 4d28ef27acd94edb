// racelab's own history format: JSON lines (docs/history-format.md). One header line, then one
// transaction per line, so every error names its line and a recorder can append as it goes.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "harness/check/history_file.h"

namespace racelab::check {
namespace {

using nlohmann::json;

constexpr int kVersion = 1;

class JsonParser {
 public:
  JsonParser(const std::string& file, const StopFlag* stop)
      : file_(file), builder_(Model::kListAppend), stop_(stop) {}
  Result<History> Run(std::string_view text);

 private:
  Status Header(const json& j);
  Status Line(const json& j);
  Status Mop(const json& op, size_t i, Outcome outcome);
  Status Bad(std::string_view field, std::string_view message) const {
    return Status::Usage(fmt::format("{}:{}: {}: {}", file_, line_, field, message));
  }

  const std::string& file_;
  HistoryBuilder builder_;
  Model model_ = Model::kListAppend;
  uint32_t line_ = 0;
  int64_t position_ = 0;
  const StopFlag* stop_;
};

Result<History> JsonParser::Run(std::string_view text) {
  bool header = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_;
    if (line_ % 4096 == 0 && stop_ != nullptr && stop_->stop_requested())
      return Status::Usage("interrupted");
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      return Status::Usage(fmt::format("{}:{}:{}: not valid JSON: {}", file_, line_, e.byte,
                                       std::string(e.what()).substr(e.what()[0] == '[' ? 0 : 0)));
    }
    Status s = header ? Line(j) : Header(j);
    if (!s.ok()) return s;
    header = true;
  }
  if (!header)
    return Status::Usage(
        fmt::format("{}: empty: a history starts with its header line "
                    "{{\"racelab_history\": 1, \"model\": …}}",
                    file_));
  return builder_.Take();
}

Status JsonParser::Header(const json& j) {
  if (!j.is_object() || !j.contains("racelab_history"))
    return Bad("racelab_history",
               "the first line must be the header {\"racelab_history\": 1, \"model\": "
               "\"list-append\" or \"rw-register\"}");
  if (j["racelab_history"] != kVersion)
    return Bad("racelab_history", fmt::format("version {} is not known (this racelab reads {})",
                                              j["racelab_history"].dump(), kVersion));
  const json* m = j.contains("model") ? &j["model"] : nullptr;
  if (m == nullptr || !m->is_string() || (*m != "list-append" && *m != "rw-register"))
    return Bad("model", "expected \"list-append\" or \"rw-register\"");
  model_ = *m == "list-append" ? Model::kListAppend : Model::kRwRegister;
  builder_.set_model(model_);
  return Status::Ok();
}

Status JsonParser::Line(const json& j) {
  if (!j.is_object()) return Bad("transaction", "expected an object {\"session\": …, \"ops\": …}");
  for (const auto& [k, v] : j.items()) {
    if (k != "index" && k != "session" && k != "outcome" && k != "ops")
      return Bad(k, "unknown field (expected index, session, outcome, ops)");
  }
  int64_t index = position_++;
  if (j.contains("index")) {
    if (!j["index"].is_number_integer()) return Bad("index", "expected an integer");
    index = j["index"].get<int64_t>();
  }
  if (!j.contains("session")) return Bad("session", "missing (the session that ran it)");
  const json& session = j["session"];
  std::string process;
  if (session.is_string())
    process = session.get<std::string>();
  else if (session.is_number_integer())
    process = std::to_string(session.get<int64_t>());
  else
    return Bad("session", "expected a string or an integer");
  if (!j.contains("outcome") || !j["outcome"].is_string())
    return Bad("outcome", "expected \"ok\", \"fail\" or \"info\"");
  const std::string outcome_text = j["outcome"].get<std::string>();
  Outcome outcome;
  if (outcome_text == "ok")
    outcome = Outcome::kOk;
  else if (outcome_text == "fail")
    outcome = Outcome::kFail;
  else if (outcome_text == "info")
    outcome = Outcome::kInfo;
  else
    return Bad("outcome",
               fmt::format("expected \"ok\", \"fail\" or \"info\", not \"{}\"", outcome_text));
  if (!j.contains("ops") || !j["ops"].is_array())
    return Bad("ops", "expected an array of operations");
  builder_.BeginTxn(outcome, builder_.Process(process), index, line_);
  const json& ops = j["ops"];
  for (size_t i = 0; i < ops.size(); ++i)
    if (Status s = Mop(ops[i], i, outcome); !s.ok()) return s;
  return Status::Ok();
}

Status JsonParser::Mop(const json& op, size_t i, Outcome outcome) {
  const std::string field = fmt::format("ops[{}]", i);
  if (!op.is_array() || op.size() != 3 || !op[0].is_string())
    return Bad(field, "expected [\"append\"|\"w\"|\"r\", key, value]");
  const std::string f = op[0].get<std::string>();
  const json& key = op[1];
  std::string key_text;
  if (key.is_string())
    key_text = key.get<std::string>();
  else if (key.is_number_integer())
    key_text = std::to_string(key.get<int64_t>());
  else
    return Bad(field + "[1]", "a key must be a string or an integer");
  const uint32_t k = builder_.Key(key_text);
  const json& v = op[2];
  const bool list_append = model_ == Model::kListAppend;
  if (f == "append" || f == "w") {
    if (list_append != (f == "append"))
      return Bad(field + "[0]", fmt::format("\"{}\" in a {} history (expected \"{}\")", f,
                                            ModelName(model_), list_append ? "append" : "w"));
    if (!v.is_number_integer()) return Bad(field + "[2]", "the value must be an integer");
    if (list_append)
      builder_.Append(k, v.get<int64_t>());
    else
      builder_.Write(k, v.get<int64_t>());
    return Status::Ok();
  }
  if (f != "r")
    return Bad(field + "[0]", fmt::format("unknown operation \"{}\" (expected append, w or r)", f));
  if (v.is_null()) {
    if (outcome != Outcome::kOk)
      builder_.ReadUnknown(k);
    else if (list_append)
      return Bad(field + "[2]", "an ok list-append read returns a list ([] when empty), not null");
    else
      builder_.ReadRegister(k, kNil);
    return Status::Ok();
  }
  if (list_append) {
    if (!v.is_array()) return Bad(field + "[2]", "a list-append read returns a list of integers");
    std::vector<int64_t> list;
    for (const json& e : v) {
      if (!e.is_number_integer())
        return Bad(field + "[2]", "a list-append read returns a list of integers");
      list.push_back(e.get<int64_t>());
    }
    builder_.ReadList(k, list);
  } else {
    if (!v.is_number_integer())
      return Bad(field + "[2]", "a rw-register read returns an integer or null");
    builder_.ReadRegister(k, v.get<int64_t>());
  }
  return Status::Ok();
}

}  // namespace

Result<History> ParseJsonHistory(const std::string& file, std::string_view text,
                                 const StopFlag* stop) {
  return JsonParser(file, stop).Run(text);
}

void WriteJsonHistory(const History& h, std::ostream& out) {
  out << json{{"racelab_history", kVersion}, {"model", std::string(ModelName(h.model))}}.dump()
      << "\n";
  for (const Txn& t : h.txns) {
    json ops = json::array();
    for (const Mop& m : h.MopsOf(t)) {
      const std::string f = m.kind == MopKind::kAppend  ? "append"
                            : m.kind == MopKind::kWrite ? "w"
                                                        : "r";
      json value;
      if (m.kind != MopKind::kRead)
        value = m.value;
      else if (!m.read_known || (h.model == Model::kRwRegister && m.value == kNil))
        value = nullptr;
      else if (h.model == Model::kRwRegister)
        value = m.value;
      else
        value = std::vector<int64_t>(h.ListOf(m).begin(), h.ListOf(m).end());
      ops.push_back(json::array({f, h.keys[m.key], value}));
    }
    out << json{{"index", t.index},
                {"session", h.processes[t.process]},
                {"outcome", std::string(OutcomeName(t.outcome))},
                {"ops", ops}}
               .dump()
        << "\n";
  }
}

}  // namespace racelab::check
