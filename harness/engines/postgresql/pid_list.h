// Backend pid lists as the server writes them: an int[] value from pg_blocking_pids() ("{12,34}")
// or the pids in a lock-wait log DETAIL ("Process holding the lock: 12. Wait queue: 34, 56.").
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace racelab::pg {

// Every run of decimal digits in `text`, in order, as a pid. A run too long for a pid (more than 9
// digits: not a PostgreSQL backend) is skipped rather than thrown on.
inline std::vector<int64_t> ParsePidList(const std::string& text) {
  std::vector<int64_t> out;
  std::string cur;
  for (char c : text + ",") {
    if (c >= '0' && c <= '9') {
      cur.push_back(c);
    } else if (!cur.empty()) {
      if (cur.size() <= 9) out.push_back(std::stoi(cur));
      cur.clear();
    }
  }
  return out;
}

}  // namespace racelab::pg
