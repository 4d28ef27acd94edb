#include "harness/check/check_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace racelab::check {

std::string TxnOpsText(const History& h, const Txn& t) {
  std::string out = "[";
  for (const Mop& m : h.MopsOf(t)) {
    if (out.size() > 1) out += ' ';
    const std::string& k = h.keys[m.key];
    if (m.kind == MopKind::kAppend)
      out += fmt::format("[:append {} {}]", k, m.value);
    else if (m.kind == MopKind::kWrite)
      out += fmt::format("[:w {} {}]", k, m.value);
    else if (!m.read_known)
      out += fmt::format("[:r {} nil]", k);
    else if (h.model == Model::kRwRegister)
      out += fmt::format("[:r {} {}]", k, RegisterText(m.value));
    else
      out += fmt::format("[:r {} {}]", k, ListText(h.ListOf(m)));
  }
  return out + "]";
}

namespace {

size_t Total(const CheckResult& r) {
  size_t n = 0;
  for (const auto& [name, count] : r.counts) n += count;
  return n;
}

}  // namespace

void WriteCheckConsole(const std::string& file, const History& h, const CheckResult& r,
                       std::ostream& out) {
  const size_t total = Total(r);
  out << fmt::format("{}: {} transactions ({} ok, {} fail, {} info), {}, {} dependencies: {}\n",
                     file, h.txns.size(), r.ok, r.failed, r.info, ModelName(h.model),
                     r.dependencies,
                     total == 0 ? std::string("no anomaly")
                                : fmt::format("{} anomal{}", total, total == 1 ? "y" : "ies"));
  for (const auto& [name, count] : r.counts) {
    size_t shown = 0;
    for (const Anomaly& a : r.anomalies) shown += a.name == name;
    out << fmt::format("{} ({}{})\n", name, count,
                       shown < count ? fmt::format(", {} shown", shown) : "");
    for (const Anomaly& a : r.anomalies) {
      if (a.name != name) continue;
      out << "  " << a.explanation << "\n";
      std::vector<uint32_t> seen;
      for (uint32_t t : a.txns) {
        if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
        seen.push_back(t);
        const Txn& txn = h.txns[t];
        out << fmt::format("    T{}  {}process {}, {}: {}\n", txn.index,
                           txn.line > 0 ? fmt::format("line {}, ", txn.line) : "",
                           h.processes[txn.process], OutcomeName(txn.outcome), TxnOpsText(h, txn));
      }
    }
  }
}

void WriteCheckJson(const std::string& file, const History& h, const CheckResult& r,
                    std::ostream& out) {
  using nlohmann::json;
  json anomalies = json::array();
  for (const Anomaly& a : r.anomalies) {
    json txns = json::array();
    for (uint32_t t : a.txns) {
      const Txn& txn = h.txns[t];
      json j{{"index", txn.index},
             {"process", h.processes[txn.process]},
             {"outcome", std::string(OutcomeName(txn.outcome))},
             {"ops", TxnOpsText(h, txn)}};
      if (txn.line > 0) j["line"] = txn.line;
      txns.push_back(j);
    }
    json cycle = json::array();
    for (const Dependency& d : a.cycle) {
      json e{{"from", h.txns[d.from].index},
             {"to", h.txns[d.to].index},
             {"type", std::string(DepTypeName(d.type))}};
      if (d.type != DepType::kProcess) e["key"] = h.keys[d.key];
      cycle.push_back(e);
    }
    json j{{"name", a.name}, {"transactions", txns}, {"explanation", a.explanation}};
    if (!a.cycle.empty()) j["cycle"] = cycle;
    anomalies.push_back(j);
  }
  json counts = json::object();
  for (const auto& [name, count] : r.counts) counts[name] = count;
  json j{{"file", file},
         {"model", std::string(ModelName(h.model))},
         {"valid", r.valid()},
         {"transactions",
          {{"total", h.txns.size()}, {"ok", r.ok}, {"fail", r.failed}, {"info", r.info}}},
         {"dependencies", r.dependencies},
         {"cyclic_components", r.cyclic_components},
         {"counts", counts},
         {"anomalies", anomalies}};
  out << j.dump(2) << "\n";
}

}  // namespace racelab::check
