#include "harness/check/history.h"

#include <fmt/format.h>

namespace racelab::check {

std::string_view ModelName(Model m) {
  return m == Model::kListAppend ? "list-append" : "rw-register";
}

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kFail:
      return "fail";
    case Outcome::kInfo:
      return "info";
  }
  return "?";
}

uint32_t HistoryBuilder::Key(std::string_view text) {
  auto [it, added] = key_ids_.try_emplace(std::string(text), static_cast<uint32_t>(h_.keys.size()));
  if (added) h_.keys.emplace_back(text);
  return it->second;
}

uint32_t HistoryBuilder::Process(std::string_view text) {
  auto [it, added] =
      process_ids_.try_emplace(std::string(text), static_cast<uint32_t>(h_.processes.size()));
  if (added) h_.processes.emplace_back(text);
  return it->second;
}

void HistoryBuilder::BeginTxn(Outcome outcome, uint32_t process, int64_t index, uint32_t line) {
  h_.txns.push_back(Txn{.outcome = outcome,
                        .process = process,
                        .index = index,
                        .line = line,
                        .mop_begin = static_cast<uint32_t>(h_.mops.size()),
                        .mop_count = 0});
}

void HistoryBuilder::AddMop(const Mop& m) {
  h_.mops.push_back(m);
  ++h_.txns.back().mop_count;
}

void HistoryBuilder::Append(uint32_t key, int64_t element) {
  AddMop(Mop{.kind = MopKind::kAppend, .key = key, .value = element});
}

void HistoryBuilder::Write(uint32_t key, int64_t value) {
  AddMop(Mop{.kind = MopKind::kWrite, .key = key, .value = value});
}

void HistoryBuilder::ReadRegister(uint32_t key, int64_t value) {
  AddMop(Mop{.kind = MopKind::kRead, .key = key, .value = value});
}

void HistoryBuilder::ReadList(uint32_t key, std::span<const int64_t> list) {
  Mop m{.kind = MopKind::kRead, .key = key};
  m.list_begin = static_cast<uint32_t>(h_.elements.size());
  m.list_size = static_cast<uint32_t>(list.size());
  h_.elements.insert(h_.elements.end(), list.begin(), list.end());
  AddMop(m);
}

void HistoryBuilder::ReadUnknown(uint32_t key) {
  AddMop(Mop{.kind = MopKind::kRead, .read_known = false, .key = key});
}

std::string ListText(std::span<const int64_t> list) {
  return fmt::format("[{}]", fmt::join(list, " "));
}

std::string RegisterText(int64_t value) { return value == kNil ? "nil" : std::to_string(value); }

}  // namespace racelab::check
