#include "harness/cli/command_line.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "harness/engine_registry/open_engine.h"

namespace racelab::cli {
namespace {

constexpr std::string_view kDsnFlag = "--dsn";
constexpr std::string_view kDsnEq = "--dsn=";
constexpr std::string_view kSetFlag = "--set";
constexpr std::string_view kSetEq = "--set=";

// Whether argv[i] is a connection string that may hold a password, and its redacted form (every
// --dsn value is shown redacted; only one that may hold a password is a secret to search for).
std::pair<bool, std::string> Classify(int i, const char* const* argv) {
  std::string_view arg = argv[i];
  if (i > 0 && argv[i - 1] == kDsnFlag) return {MayHoldPassword(arg), RedactDsn(std::string(arg))};
  if (arg.substr(0, kDsnEq.size()) == kDsnEq) {
    std::string_view value = arg.substr(kDsnEq.size());
    return {MayHoldPassword(value), std::string(kDsnEq) + RedactDsn(std::string(value))};
  }
  if (LooksLikeDsn(arg)) return {true, RedactDsn(std::string(arg))};
  // A --set value that is itself a connection string (a scenario parameter):
  // NAME=postgresql://u:pw@…
  std::string_view set = arg;
  if (arg.substr(0, kSetEq.size()) == kSetEq) {
    set = arg.substr(kSetEq.size());
  } else if (i == 0 || argv[i - 1] != kSetFlag) {
    set = {};
  }
  if (size_t eq = set.find('='); eq != std::string_view::npos && LooksLikeDsn(set.substr(eq + 1))) {
    const size_t name_end = arg.size() - set.size() + eq + 1;
    return {true,
            std::string(arg.substr(0, name_end)) + RedactDsn(std::string(set.substr(eq + 1)))};
  }
  return {false, std::string(arg)};
}

std::string ShellQuote(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::vector<std::string> RedactedArgv(int argc, const char* const* argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) out.push_back(Classify(i, argv).second);
  return out;
}

std::string CommandLine(int argc, const char* const* argv) {
  std::string out;
  for (const std::string& a : RedactedArgv(argc, argv))
    out += (out.empty() ? "" : " ") + ShellQuote(a);
  return out;
}

std::string RedactArguments(const std::string& text, int argc, const char* const* argv) {
  std::vector<std::pair<std::string, std::string>> secrets;  // as given, redacted
  for (int i = 1; i < argc; ++i) {
    auto [secret, redacted] = Classify(i, argv);
    if (!secret) continue;
    secrets.emplace_back(argv[i], redacted);
    std::string_view arg = argv[i];
    // --dsn=VALUE, --set NAME=VALUE, --set=NAME=VALUE: the parser or the planner may echo VALUE
    // alone.
    size_t at = 0;
    if (arg.substr(0, kDsnEq.size()) == kDsnEq) {
      at = kDsnEq.size();
    } else if (arg.substr(0, kSetEq.size()) == kSetEq || argv[i - 1] == kSetFlag) {
      at = arg.find('=', arg.substr(0, kSetEq.size()) == kSetEq ? kSetEq.size() : 0) + 1;
    }
    if (at > 0 && at <= arg.size() && at <= redacted.size()) {
      secrets.emplace_back(std::string(arg.substr(at)), redacted.substr(at));
    }
  }
  std::sort(secrets.begin(), secrets.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string out = text;
  for (const auto& [given, redacted] : secrets) {
    if (given.empty()) continue;
    for (size_t at = out.find(given); at != std::string::npos;
         at = out.find(given, at + redacted.size())) {
      out.replace(at, given.size(), redacted);
    }
  }
  return out;
}

int StrayDsnArgument(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (argv[i - 1] == kDsnFlag || arg.substr(0, kDsnEq.size()) == kDsnEq) continue;
    // A --set value such as password=x is a scenario parameter (redacted in CommandLine all the
    // same).
    if (std::string_view(argv[i - 1]) == "--set" || arg.substr(0, 6) == "--set=") continue;
    if (LooksLikeDsn(arg)) return i;
  }
  return 0;
}

}  // namespace racelab::cli
