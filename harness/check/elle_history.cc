// Elle's EDN histories in and out (history_file.h).
#include <fmt/format.h>

#include <charconv>
#include <unordered_map>

#include "harness/check/edn_reader.h"
#include "harness/check/history_file.h"

namespace racelab::check {
namespace {

using Kind = EdnValue::Kind;

class ElleParser {
 public:
  ElleParser(const std::string& file, std::string_view text, const StopFlag* stop)
      : reader_(file, text), builder_(Model::kListAppend), stop_(stop) {}
  Result<History> Run();

 private:
  struct Pending {
    EdnValue value;  // the :invoke's :value
    int64_t index;
    uint32_t line;
  };
  Status Op(const EdnValue& op);
  Status Txn(Outcome outcome, uint32_t process, int64_t index, uint32_t line, const EdnValue& value,
             const EdnValue* invoked);
  Status Bad(const EdnValue& at, std::string_view message) const {
    return Status::Usage(reader_.ErrorAt(at.line, at.column, message));
  }
  Status SetModel(Model m, const EdnValue& at);

  EdnReader reader_;
  HistoryBuilder builder_;
  std::optional<Model> model_;
  std::unordered_map<int64_t, Pending> open_;  // process → its :invoke
  std::vector<int64_t> open_order_;
  int64_t position_ = 0;
  const StopFlag* stop_;
};

Status ElleParser::SetModel(Model m, const EdnValue& at) {
  if (model_ && *model_ != m) {
    return Bad(at, fmt::format("a {} operation in a {} history (a history holds one model)",
                               ModelName(m), ModelName(*model_)));
  }
  model_ = m;
  builder_.set_model(m);
  return Status::Ok();
}

Result<History> ElleParser::Run() {
  while (true) {
    auto form = reader_.Next();
    if (!form.ok()) return form.status();
    if (!form->has_value()) break;
    const EdnValue& v = **form;
    if (v.kind == Kind::kVector || v.kind == Kind::kList) {
      for (const EdnValue& op : v.items)
        if (Status s = Op(op); !s.ok()) return s;
    } else if (Status s = Op(v); !s.ok()) {
      return s;
    }
  }
  for (int64_t p : open_order_) {  // invoked, never completed: unknown
    auto it = open_.find(p);
    if (it == open_.end()) continue;
    const uint32_t process = builder_.Process(std::to_string(p));
    if (Status s = Txn(Outcome::kInfo, process, it->second.index, it->second.line, it->second.value,
                       nullptr);
        !s.ok())
      return s;
    open_.erase(it);
  }
  return builder_.Take();
}

Status ElleParser::Op(const EdnValue& op) {
  if (position_ % 4096 == 0 && stop_ != nullptr && stop_->stop_requested())
    return Status::Usage("interrupted");
  if (op.kind != Kind::kMap)
    return Bad(op,
               fmt::format("an operation must be a map {{:type …}}, not a {}", EdnDescribe(op)));
  const int64_t position = position_++;
  const EdnValue* f = op.Get("f");
  const EdnValue* process = op.Get("process");
  if (f == nullptr || !f->IsKeyword("txn")) return Status::Ok();               // not a transaction
  if (process == nullptr || process->kind != Kind::kInt) return Status::Ok();  // :nemesis
  const EdnValue* type = op.Get("type");
  if (type == nullptr) return Bad(op, ":type: missing (expected :invoke, :ok, :fail or :info)");
  const EdnValue* value = op.Get("value");
  if (value == nullptr) return Bad(op, ":value: missing (the transaction's operations)");
  int64_t index = position;
  if (const EdnValue* i = op.Get("index")) {
    if (i->kind != Kind::kInt)
      return Bad(*i, fmt::format(":index: expected an integer, not {}", EdnDescribe(*i)));
    index = i->integer;
  }
  const int64_t p = process->integer;
  if (type->IsKeyword("invoke")) {
    if (open_.count(p) != 0)
      return Bad(op, fmt::format("process {} invokes again before its last :invoke completed", p));
    open_[p] = Pending{*value, index, op.line};
    open_order_.push_back(p);
    return Status::Ok();
  }
  Outcome outcome;
  if (type->IsKeyword("ok"))
    outcome = Outcome::kOk;
  else if (type->IsKeyword("fail"))
    outcome = Outcome::kFail;
  else if (type->IsKeyword("info"))
    outcome = Outcome::kInfo;
  else
    return Bad(*type, fmt::format(":type: expected :invoke, :ok, :fail or :info, not {}",
                                  EdnDescribe(*type)));
  auto pending = open_.find(p);
  std::optional<EdnValue> invoked;
  if (pending != open_.end()) {
    invoked = std::move(pending->second.value);
    open_.erase(pending);
  }
  return Txn(outcome, builder_.Process(std::to_string(p)), index, op.line, *value,
             invoked ? &*invoked : nullptr);
}

Status ElleParser::Txn(Outcome outcome, uint32_t process, int64_t index, uint32_t line,
                       const EdnValue& value, const EdnValue* invoked) {
  // An :info completion may say nothing of the values: the :invoke's writes are what it tried.
  const EdnValue& mops =
      (outcome == Outcome::kInfo && invoked != nullptr && value.kind == Kind::kNil) ? *invoked
                                                                                    : value;
  if (mops.kind != Kind::kVector && mops.kind != Kind::kList)
    return Bad(mops,
               fmt::format(":value: expected a vector of operations, not {}", EdnDescribe(mops)));
  builder_.BeginTxn(outcome, process, index, line);
  for (const EdnValue& m : mops.items) {
    if ((m.kind != Kind::kVector && m.kind != Kind::kList) || m.items.size() != 3 ||
        m.items[0].kind != Kind::kKeyword) {
      return Bad(m, "an operation must be [:append k v], [:w k v] or [:r k v]");
    }
    const EdnValue& fn = m.items[0];
    const EdnValue& key = m.items[1];
    const EdnValue& v = m.items[2];
    if (key.kind != Kind::kInt && key.kind != Kind::kKeyword && key.kind != Kind::kString &&
        key.kind != Kind::kSymbol)
      return Bad(key, fmt::format("a key must be an integer, keyword or string, not {}",
                                  EdnDescribe(key)));
    const uint32_t k = builder_.Key(EdnText(key));
    if (fn.text == "append" || fn.text == "w") {
      if (Status s = SetModel(fn.text == "w" ? Model::kRwRegister : Model::kListAppend, fn);
          !s.ok())
        return s;
      if (v.kind != Kind::kInt)
        return Bad(v, fmt::format("[:{} …]: the value must be an integer, not {}", fn.text,
                                  EdnDescribe(v)));
      if (fn.text == "w")
        builder_.Write(k, v.integer);
      else
        builder_.Append(k, v.integer);
    } else if (fn.text == "r") {
      if (v.kind == Kind::kNil) {
        // An ok read of nil: the initial state (rw-register) or the empty list (list-append).
        if (outcome != Outcome::kOk)
          builder_.ReadUnknown(k);
        else
          builder_.ReadRegister(k, kNil);  // an empty list to list-append (list_size 0)
      } else if (v.kind == Kind::kInt) {
        if (Status s = SetModel(Model::kRwRegister, v); !s.ok()) return s;
        builder_.ReadRegister(k, v.integer);
      } else if (v.kind == Kind::kVector || v.kind == Kind::kList) {
        if (Status s = SetModel(Model::kListAppend, v); !s.ok()) return s;
        std::vector<int64_t> list;
        for (const EdnValue& e : v.items) {
          if (e.kind != Kind::kInt)
            return Bad(e, fmt::format("[:r …]: a list's elements must be integers, not {}",
                                      EdnDescribe(e)));
          list.push_back(e.integer);
        }
        builder_.ReadList(k, list);
      } else {
        return Bad(
            v, fmt::format("[:r …]: expected nil, an integer or a vector, not {}", EdnDescribe(v)));
      }
    } else {
      return Bad(fn, fmt::format("unknown operation :{} (expected :append, :w or :r)", fn.text));
    }
  }
  return Status::Ok();
}

bool IsInteger(const std::string& s) {
  int64_t n;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

std::string EdnKey(const std::string& key) {
  if (IsInteger(key) ||
      (key.size() > 1 && key[0] == ':' && key.find_first_of(" \"") == std::string::npos))
    return key;
  std::string out = "\"";
  for (char c : key) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Result<History> ParseElleHistory(const std::string& file, std::string_view text,
                                 const StopFlag* stop) {
  return ElleParser(file, text, stop).Run();
}

void WriteElleHistory(const History& h, std::ostream& out) {
  std::vector<std::string> processes;
  for (size_t i = 0; i < h.processes.size(); ++i)
    processes.push_back(IsInteger(h.processes[i]) ? h.processes[i] : std::to_string(i));
  int64_t index = 0;
  for (const Txn& t : h.txns) {
    std::string invoke, done;
    for (const Mop& m : h.MopsOf(t)) {
      const std::string key = EdnKey(h.keys[m.key]);
      std::string f = m.kind == MopKind::kAppend ? "append" : m.kind == MopKind::kWrite ? "w" : "r";
      std::string v, iv;
      if (m.kind != MopKind::kRead) {
        v = iv = std::to_string(m.value);
      } else {
        iv = "nil";
        v = !m.read_known                   ? "nil"
            : h.model == Model::kRwRegister ? RegisterText(m.value)
                                            : ListText(h.ListOf(m));
      }
      invoke += fmt::format("{}[:{} {} {}]", invoke.empty() ? "" : " ", f, key, iv);
      done += fmt::format("{}[:{} {} {}]", done.empty() ? "" : " ", f, key, v);
    }
    const std::string& p = processes[t.process];
    out << fmt::format("{{:type :invoke, :f :txn, :value [{}], :process {}, :index {}}}\n", invoke,
                       p, index++);
    out << fmt::format("{{:type :{}, :f :txn, :value [{}], :process {}, :index {}}}\n",
                       OutcomeName(t.outcome), done, p, index++);
  }
}

}  // namespace racelab::check
