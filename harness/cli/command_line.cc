#include "harness/cli/command_line.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "harness/pg/dsn.h"

namespace racelab::cli {
namespace {

constexpr std::string_view kDsnFlag = "--dsn";
constexpr std::string_view kDsnEq = "--dsn=";

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
    if (arg.substr(0, kDsnEq.size()) == kDsnEq) {  // the parser may echo the value alone
      secrets.emplace_back(std::string(arg.substr(kDsnEq.size())), redacted.substr(kDsnEq.size()));
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
