// The engine registry (harness/engine_registry/registry.h) and the traits the loader and the CLI
// ask instead of engine names (harness/model/engine_traits.h): every descriptor complete and
// agreeing with its traits row, DSN schemes that lead back to their engine, and the trait
// questions' answers for today's three engines (what the loader's messages are built from).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness/engine_registry/open_engine.h"
#include "harness/engine_registry/registry.h"
#include "harness/model/engine_traits.h"

namespace racelab {
namespace {

TEST(EngineRegistry, EveryDescriptorIsCompleteAndNamedOnce) {
  std::set<std::string_view> names;
  for (const EngineDescriptor* d : RegisteredEngines()) {
    ASSERT_NE(d->traits, nullptr);
    SCOPED_TRACE(std::string(d->name()));
    EXPECT_TRUE(names.insert(d->name()).second);
    EXPECT_EQ(d->traits, FindEngineTraits(d->name()));
    EXPECT_EQ(FindEngine(d->name()), d);
    EXPECT_FALSE(d->dsn_schemes.empty());
    EXPECT_FALSE(d->dsn_forms.empty());
    EXPECT_NE(d->open, nullptr);
    EXPECT_NE(d->redact_dsn, nullptr);
    EXPECT_NE(d->looks_like_dsn, nullptr);
    EXPECT_NE(d->may_hold_password, nullptr);
    EXPECT_FALSE(d->cleaners.orphan_kind.empty());
    EXPECT_NE(d->cleaners.list_orphans, nullptr);
    EXPECT_NE(d->cleaners.clean_orphans, nullptr);
    EXPECT_EQ(d->cleaners.list_obsolete == nullptr, d->cleaners.clean_obsolete == nullptr);
  }
}

// This build has every engine racelab knows, in the order `--engine all` runs them.
TEST(EngineRegistry, EveryKnownEngineIsBuiltIn) {
  for (const EngineTraits& t : AllEngineTraits()) EXPECT_NE(FindEngine(t.name), nullptr) << t.name;
  EXPECT_EQ(EngineNames(), (std::vector<std::string>{"postgresql", "sqlite", "mariadb"}));
  EXPECT_EQ(FindEngine("oracle"), nullptr);
}

TEST(EngineRegistry, EachSchemeNamesItsEngine) {
  for (const EngineDescriptor* d : RegisteredEngines()) {
    for (std::string_view scheme : d->dsn_schemes) {
      const std::string dsn = std::string(scheme) + "/tmp/x";
      EXPECT_EQ(EngineOfDsn(dsn), d->name()) << dsn;
      EXPECT_TRUE(d->looks_like_dsn(dsn)) << dsn;
      EXPECT_TRUE(LooksLikeDsn(dsn)) << dsn;
    }
  }
  // Text without "://" is libpq's key=value form; an unknown scheme is no engine's.
  EXPECT_EQ(EngineOfDsn("host=/tmp dbname=x"), "postgresql");
  EXPECT_EQ(EngineOfDsn("oracle://h/x"), "");
  EXPECT_FALSE(LooksLikeDsn("oracle-h-x"));
}

TEST(EngineRegistry, OneEngineRunsIsolationSpecFiles) {
  int n = 0;
  for (const EngineDescriptor* d : RegisteredEngines()) n += d->runs_isolation_specs ? 1 : 0;
  EXPECT_EQ(n, 1);
  ASSERT_NE(IsolationSpecEngine(), nullptr);
  EXPECT_EQ(IsolationSpecEngine()->name(), "postgresql");
}

TEST(EngineRegistry, EmbeddedStartNotes) {
  EXPECT_EQ(EmbeddedStartNote("postgresql"), "starting embedded PostgreSQL…");
  EXPECT_EQ(EmbeddedStartNote("mariadb"), "starting embedded MariaDB…");
  EXPECT_EQ(EmbeddedStartNote("sqlite"), "SQLite: a new database file per trial…");
  EXPECT_EQ(EmbeddedStartNote("nosuch"), "starting embedded nosuch…");
}

TEST(EngineTraits, FeaturesAreAskedOfTraits) {
  EXPECT_EQ(EnginesWith([](const EngineTraits& t) { return t.has_server; }),
            "postgresql and mariadb");
  EXPECT_EQ(EnginesWith([](const EngineTraits& t) { return t.can_terminate; }),
            "postgresql and mariadb");
  EXPECT_EQ(EnginesWith([](const EngineTraits& t) { return t.sends_error_detail; }, true),
            "PostgreSQL");
  EXPECT_EQ(EnginesWith([](const EngineTraits& t) { return !t.begin_access_modes; }), "sqlite");
  EXPECT_EQ(EnginesWith([](const EngineTraits&) { return false; }), "");
}

TEST(EngineTraits, OwnErrorCodes) {
  EXPECT_TRUE(IsOwnErrorCode("mariadb", "1213"));
  EXPECT_FALSE(IsOwnErrorCode("mariadb", "0123"));
  EXPECT_FALSE(IsOwnErrorCode("mariadb", "12134"));
  EXPECT_FALSE(IsOwnErrorCode("postgresql", "1213"));
  EXPECT_FALSE(IsOwnErrorCode("sqlite", "1213"));
  EXPECT_TRUE(IsOwnErrorCode("sqlite", "SQLITE_BUSY_SNAPSHOT"));
  EXPECT_FALSE(IsOwnErrorCode("sqlite", "SQLITE_"));
  EXPECT_FALSE(IsOwnErrorCode("sqlite", "SQLITE_busy"));
  EXPECT_FALSE(IsOwnErrorCode("mariadb", "SQLITE_BUSY"));
  EXPECT_FALSE(IsOwnErrorCode("nosuch", "1213"));
  EXPECT_EQ(OwnErrorExamples(),
            "; or a MariaDB error number such as 1213; or a SQLite code such as SQLITE_BUSY");
}

}  // namespace
}  // namespace racelab
