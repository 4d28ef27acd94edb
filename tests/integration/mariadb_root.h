// One statement as the MariaDB tests' own root user, for arranging and checking a test server
// (mariadb_dsn_test, mariadb_hardening_test): a connection of its own, 10 s deadlines.
// Returns the first row's first column ("" if none; "NULL" for NULL); a failure is a gtest failure.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "harness/engines/mariadb/connection.h"

namespace racelab::testing {

inline std::string RootQuery(const mariadb::ConnectTarget& root, const std::string& sql) {
  const auto in = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(10); };
  Result<std::unique_ptr<mariadb::MariaConnection>> c =
      mariadb::MariaConnection::Open(root, "test", in(), nullptr);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return "";
  QueryResult r = (*c)->Exec(sql, in(), 100);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.message;
  (*c)->Close();
  if (!r.ok() || r.values.empty() || r.values[0].empty()) return "";
  return r.values[0][0].value_or("NULL");
}

}  // namespace racelab::testing
