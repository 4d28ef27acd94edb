#include "harness/engines/postgresql/server_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "harness/engines/postgresql/pid_list.h"

namespace racelab::pg {
namespace {

// ProcSleep's messages (src/backend/storage/lmgr/proc.c), e.g.
// "process 21012 acquired ShareLock on transaction 725 after 15.112 ms".
const std::regex kWaitMessage(
    R"(^process (\d+) (still waiting for|acquired|detected deadlock while waiting for|)"
    R"(avoided deadlock for|failed to acquire) (\S+) on (.+?) (?:by rearranging queue order )?)"
    R"(after (\d+)\.(\d{3}) ms$)");
const std::regex kHolders(R"(^Process(?:es)? holding the lock: ([0-9, ]*)\.)");
const char* const kMarkerPrefix = "racelab-sync ";

// "2026-11-30 15:54:41.609 UTC" -> µs since the epoch; nullopt for another zone or form.
std::optional<int64_t> ParseUtcTimestamp(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  char zone[8] = {0};
  if (std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%d.%d %7s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, zone) != 8) {
    return std::nullopt;
  }
  if (std::string(zone) != "UTC" && std::string(zone) != "GMT") return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000000 + ms * 1000;
}

// pg_stat_activity's wait_event for a lock tag as DescribeLockTag writes it (lmgr.c).
std::string WaitEventOf(const std::string& object) {
  auto starts = [&](const char* p) { return object.rfind(p, 0) == 0; };
  if (starts("virtual transaction")) return "virtualxid";
  if (starts("transaction")) return "transactionid";
  if (starts("tuple")) return "tuple";
  if (starts("extension of relation")) return "extend";
  if (starts("page")) return "page";
  if (starts("relation")) return "relation";
  if (starts("speculative token")) return "spectoken";
  if (starts("object")) return "object";
  if (starts("advisory lock")) return "advisory";
  if (starts("user lock")) return "userlock";
  return "other";
}

}  // namespace

ServerWaitBatch ParseServerLog(const std::vector<std::string>& lines) {
  ServerWaitBatch batch;
  std::map<int64_t, size_t> open;  // pid -> index in batch.waits of its wait not yet ended
  for (const std::string& line : lines) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer()) continue;
    const int64_t pid = j["pid"].get<int64_t>();
    if (j.contains("backend_type") && j["backend_type"].is_string()) {
      batch.session_kinds[pid] = j["backend_type"].get<std::string>();
    }
    const std::string message = j.value("message", "");
    std::smatch m;
    if (!std::regex_match(message, m, kWaitMessage) || std::stoll(m[1].str()) != pid) continue;
    const std::optional<int64_t> logged = ParseUtcTimestamp(j.value("timestamp", ""));
    if (!logged) continue;
    const std::string kind = m[2].str(), mode = m[3].str(), object = m[4].str();
    const int64_t elapsed = std::stoll(m[5].str()) * 1000 + std::stoll(m[6].str());
    auto it = open.find(pid);
    if (it != open.end() &&
        (batch.waits[it->second].mode != mode || batch.waits[it->second].object != object)) {
      open.erase(it);  // a different lock: the earlier wait ended without a logged end
      it = open.end();
    }
    if (it == open.end()) {
      ServerLockWait w;
      w.session_id = pid;
      w.mode = mode;
      w.object = object;
      w.wait_event = WaitEventOf(object);
      w.statement = j.value("statement", "");
      w.start_lo_us = *logged - elapsed;
      w.start_hi_us = *logged + 1000 - elapsed;
      batch.waits.push_back(std::move(w));
      it = open.emplace(pid, batch.waits.size() - 1).first;
    }
    ServerLockWait& w = batch.waits[it->second];
    w.start_lo_us = std::max(w.start_lo_us, *logged - elapsed);
    w.start_hi_us = std::min(w.start_hi_us, *logged + 1000 - elapsed);
    if (w.start_lo_us > w.start_hi_us) w.start_lo_us = w.start_hi_us;  // descheduled while logging
    std::smatch h;
    const std::string detail = j.value("detail", "");
    if (std::regex_search(detail, h, kHolders)) {
      for (int64_t p : ParsePidList(h[1].str())) {
        if (p != pid && std::find(w.holders.begin(), w.holders.end(), p) == w.holders.end()) {
          w.holders.push_back(p);
        }
      }
    }
    if (kind == "acquired" || kind == "failed to acquire" ||
        kind == "detected deadlock while waiting for") {
      w.duration_us = elapsed;
      w.deadlock = kind == "detected deadlock while waiting for";
      open.erase(it);
    }
  }
  return batch;
}

Result<std::unique_ptr<ServerLog>> ServerLog::Open(const std::string& path) {
  std::unique_ptr<ServerLog> log(new ServerLog(path));
  log->in_.open(path, std::ios::binary);
  if (!log->in_) return Status::Internal("cannot open the server log " + path);
  log->in_.seekg(0, std::ios::end);
  return log;
}

bool ServerLog::ReadLines(std::vector<std::string>* lines) {
  in_.clear();
  char buf[65536];
  for (;;) {
    in_.read(buf, sizeof buf);
    const std::streamsize n = in_.gcount();
    if (n <= 0) break;
    partial_.append(buf, static_cast<size_t>(n));
  }
  if (in_.bad()) return false;
  size_t start = 0;
  for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines->push_back(partial_.substr(start, nl - start));
  }
  partial_.erase(0, start);
  return true;
}

Result<ServerWaitBatch> ServerLog::Collect(Session* conn, SteadyTime deadline) {
  const std::string marker = kMarkerPrefix + std::to_string(++markers_);
  QueryResult r =
      conn->Exec(fmt::format("DO $racelab$BEGIN RAISE LOG '{}'; END$racelab$", marker), deadline);
  if (!r.ok()) return Status::Database("cannot mark the server log: " + r.message);
  const std::string needle = "\"message\":\"" + marker + "\"";
  std::vector<std::string> lines;
  std::chrono::microseconds pause(50);
  for (;;) {
    if (!ReadLines(&lines)) return Status::Database("cannot read the server log " + path_);
    auto found = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(needle) != std::string::npos;
    });
    if (found != lines.end()) {
      lines.erase(found, lines.end());  // after the marker: racelab's own between-trial work
      ServerWaitBatch batch = ParseServerLog(lines);
      batch.node = conn->node();  // the log is of the server `conn` is on
      return batch;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Database("the server log marker did not appear in " + path_ + " in time");
    }
    // The logging collector writes the marker when the scheduler lets it run: look again soon
    // (50 µs, doubling up to 1 ms) — a fixed 1 ms cost every trial at least 1 ms here.
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

}  // namespace racelab::pg
