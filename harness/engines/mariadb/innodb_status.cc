#include "harness/engines/mariadb/innodb_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace racelab::mariadb {
namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// "`db`.`runs`" after `key` in `line` -> db, runs (a backquote inside a name is doubled).
bool TableAfter(const std::string& line, const std::string& key, std::string* schema,
                std::string* table) {
  size_t at = line.find(key);
  if (at == std::string::npos) return false;
  at += key.size();
  auto name = [&](std::string* out) {
    if (at >= line.size() || line[at] != '`') return false;
    out->clear();
    for (++at; at < line.size(); ++at) {
      if (line[at] == '`') {
        if (at + 1 < line.size() && line[at + 1] == '`') {
          *out += '`';
          ++at;
          continue;
        }
        ++at;
        return true;
      }
      *out += line[at];
    }
    return false;
  };
  if (!name(schema)) return false;
  if (at >= line.size() || line[at] != '.') return false;
  ++at;
  return name(table);
}

// " 3: len 6; hex 717565756564; asc queued;;" or " 1: SQL NULL;" -> the field.
std::optional<InnodbField> ParseField(const std::string& line) {
  static const std::regex kField(R"(^ *[0-9]+: (SQL NULL|len [0-9]+; hex ([0-9a-f]*);))");
  std::smatch m;
  if (!std::regex_search(line, m, kField)) return std::nullopt;
  InnodbField f;
  if (m[1] == "SQL NULL") {
    f.null = true;
    return f;
  }
  const std::string hex = m[2];
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    f.bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  f.truncated = line.find("(total ") != std::string::npos;
  return f;
}

// The lock's mode and flags from the end of a lock line: "lock_mode X locks rec but not gap
// waiting", "lock mode S", "lock mode IX".
void ParseMode(const std::string& line, InnodbLock* lock) {
  static const std::regex kMode(R"(lock[ _]mode ([A-Z-]+))");
  std::smatch m;
  if (std::regex_search(line, m, kMode)) lock->mode = m[1];
  lock->gap = line.find("locks gap before rec") != std::string::npos;
  lock->rec_not_gap = line.find("locks rec but not gap") != std::string::npos;
  lock->insert_intention = line.find("insert intention") != std::string::npos;
  lock->waiting = line.size() >= 8 && line.compare(line.size() - 8, 8, " waiting") == 0;
}

bool IsInteger(const std::string& type) {
  return type == "tinyint" || type == "smallint" || type == "mediumint" || type == "int" ||
         type == "bigint";
}

bool IsString(const std::string& type) {
  return type == "char" || type == "varchar" || type == "tinytext" || type == "text" ||
         type == "mediumtext" || type == "longtext";
}

std::string Hex(const std::string& bytes) {
  std::string out = "0x";
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

}  // namespace

InnodbStatusLocks ParseInnodbStatusLocks(const std::string& status) {
  InnodbStatusLocks out;
  std::istringstream in(status);
  bool in_transactions = false;
  bool in_wait_block = false;  // "------- TRX HAS BEEN WAITING …" up to "------------------"
  std::string trx;             // the current transaction's id, as printed
  int64_t thread = 0;          // its thread id (0: not known yet)
  std::optional<InnodbLock> record_struct;  // the RECORD LOCKS line the records below belong to
  static const std::regex kTrx(R"(^---TRANSACTION ([0-9]+),)");
  static const std::regex kThread(R"(^(MariaDB|MySQL) thread id ([0-9]+),)");
  static const std::regex kRecord(R"(^Record lock, heap no ([0-9]+))");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "LIST OF TRANSACTIONS FOR EACH SESSION:") {
      in_transactions = true;
      continue;
    }
    if (!in_transactions) continue;
    if (line == "--------" || StartsWith(line, "END OF INNODB MONITOR OUTPUT")) break;
    std::smatch m;
    if (std::regex_search(line, m, kTrx) || StartsWith(line, "---TRANSACTION ")) {
      trx = m.empty() ? "" : m[1].str();
      thread = 0;
      in_wait_block = false;
      record_struct.reset();
      continue;
    }
    if (trx.empty()) continue;
    if (thread == 0 && std::regex_search(line, m, kThread)) {
      thread = std::stoll(m[2]);
      continue;
    }
    if (StartsWith(line, "------- TRX HAS BEEN WAITING")) {
      in_wait_block = true;
      record_struct.reset();
      continue;
    }
    if (in_wait_block) {
      if (line == "------------------") in_wait_block = false;
      continue;
    }
    if (StartsWith(line, "10 LOCKS PRINTED FOR THIS TRX")) {
      out.suppressed.push_back(thread);
      record_struct.reset();
      continue;
    }
    const bool table_lock = StartsWith(line, "TABLE LOCK table ");
    const bool record_lock = StartsWith(line, "RECORD LOCKS space id ");
    if (table_lock || record_lock) {
      record_struct.reset();
      // The trx id in the line must be this transaction's: a query's text printed above cannot
      // pass for a lock.
      if (line.find(" trx id " + trx + " ") == std::string::npos || thread == 0) continue;
      InnodbLock l;
      l.thread_id = thread;
      l.record = record_lock;
      if (!TableAfter(line, record_lock ? " of table " : "TABLE LOCK table ", &l.schema, &l.table))
        continue;
      ParseMode(line, &l);
      out.locks_listed = true;
      if (table_lock) {
        out.locks.push_back(std::move(l));
      } else {
        static const std::regex kIndex(R"( index (.+) of table `)");
        if (std::regex_search(line, m, kIndex)) l.index = m[1];
        record_struct = std::move(l);
      }
      continue;
    }
    if (record_struct && std::regex_search(line, m, kRecord)) {
      InnodbLock l = *record_struct;
      l.heap_no = std::stoll(m[1]);
      out.locks.push_back(std::move(l));
      continue;
    }
    if (record_struct && !out.locks.empty() && out.locks.back().record) {
      if (std::optional<InnodbField> f = ParseField(line)) {
        InnodbLock& l = out.locks.back();
        l.fields.push_back(std::move(*f));
        l.supremum = l.heap_no == 1 && l.fields.size() == 1 && l.fields[0].bytes == "supremum";
      }
    }
  }
  return out;
}

std::string FieldValue(const InnodbField& field, const ColumnType& type) {
  if (field.null) return "NULL";
  const std::string more = field.truncated ? "…" : "";
  if (IsInteger(type.data_type) && !field.truncated && !field.bytes.empty() &&
      field.bytes.size() <= 8) {
    uint64_t v = 0;
    for (unsigned char c : field.bytes) v = (v << 8) | c;
    if (type.is_unsigned) return std::to_string(v);
    const unsigned bits = static_cast<unsigned>(field.bytes.size() * 8);
    v ^= uint64_t{1} << (bits - 1);  // the stored sign bit is flipped
    if (bits < 64 && (v >> (bits - 1)) & 1) v |= ~uint64_t{0} << bits;  // sign-extend
    return std::to_string(static_cast<int64_t>(v));
  }
  if (IsString(type.data_type)) {
    std::string text = field.bytes;
    if (type.data_type == "char") {  // stored padded with spaces
      while (!text.empty() && text.back() == ' ') text.pop_back();
    }
    const bool printable = std::none_of(text.begin(), text.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
    if (printable) {
      std::string quoted = "'";
      for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
      return quoted + "'" + more;
    }
  }
  return Hex(field.bytes) + more;
}

LockWords DescribeInnodbLock(const InnodbLock& lock, const TableColumns* table) {
  LockWords w;
  const std::string where = lock.schema.empty() ? lock.table : lock.schema + "." + lock.table;
  if (!lock.record) {
    w.lock_type = "TABLE";
    w.mode = lock.mode + " table lock";
    w.object = "on " + where;
    return w;
  }
  w.lock_type = "RECORD";
  // InnoDB's record lock kinds: LOCK_REC_NOT_GAP, LOCK_GAP, LOCK_GAP|LOCK_INSERT_INTENTION, and
  // neither flag: the next-key lock (the record and the gap before it).
  if (lock.insert_intention) {
    w.mode = lock.mode + " insert intention lock";
  } else if (lock.rec_not_gap) {
    w.mode = lock.mode + " record lock (not gap)";
  } else if (lock.gap) {
    w.mode = lock.mode + " gap lock";
  } else {
    w.mode = lock.mode + " next-key lock";
  }
  w.object = "on " + where + " " + lock.index;
  if (lock.supremum) {
    w.object += " supremum";
    return w;
  }
  // The record's key: the index's columns, then (a secondary index) the primary key's others.
  std::vector<std::string> key;
  if (table != nullptr) {
    auto own = table->indexes.find(lock.index);
    if (own != table->indexes.end()) {
      key = own->second;
      auto pk = table->indexes.find("PRIMARY");
      if (lock.index != "PRIMARY" && pk != table->indexes.end()) {
        for (const std::string& c : pk->second)
          if (std::find(key.begin(), key.end(), c) == key.end()) key.push_back(c);
      }
    }
  }
  if (key.empty() || lock.fields.size() < key.size()) {
    w.object += fmt::format(" heap no {}", lock.heap_no);
    return w;
  }
  for (size_t i = 0; i < key.size(); ++i) {
    auto type = table->columns.find(key[i]);
    w.object += fmt::format(
        " {}={}", key[i],
        FieldValue(lock.fields[i], type == table->columns.end() ? ColumnType{} : type->second));
  }
  return w;
}

}  // namespace racelab::mariadb
