// The accounting of one benchmark run (tally.h).
#include "harness/workload/tally.h"

#include <algorithm>

#include "harness/model/error_key.h"
#include "harness/workload/workload_item.h"

namespace racelab::workload {
namespace {

struct Span {
  std::optional<int64_t> first_sent_us;
  int64_t last_completed_us = 0;
};

}  // namespace

void Tally::AddRound(const TrialVerdict& round, bool measured, double origin_s, double end_s,
                     const std::vector<int64_t>& intended_us) {
  if (!measured) {
    ++f_.warmup_rounds;
    return;
  }
  if (!first_origin_s_) first_origin_s_ = origin_s;
  last_end_s_ = std::max(last_end_s_, end_s);
  f_.window_s = last_end_s_ - *first_origin_s_;
  ++f_.rounds;
  const TrialResult& r = round.result;
  if (!r.error.empty()) {
    ++f_.rounds_error;
    if (f_.first_error.empty()) f_.first_error = r.error;
    return;
  }
  if (round.verdict == Verdict::kPass) ++f_.rounds_expectations_held;

  std::map<std::string, size_t> index;  // label -> session index
  for (size_t i = 0; i < item_->sessions.size(); ++i) index[item_->sessions[i].label] = i;
  std::vector<Span> spans(item_->sessions.size());
  std::vector<int> attempts(item_->sessions.size(), 1);
  for (size_t i = 0; i < r.sessions.size() && i < attempts.size(); ++i)
    attempts[i] = std::max(1, r.sessions[i].attempts);

  for (const StepEvent& ev : r.events) {
    auto at = index.find(ev.session);
    if (at == index.end()) continue;
    const size_t s = at->second;
    if (!ev.skipped) {
      Span& span = spans[s];
      if (!span.first_sent_us || ev.sent_us < *span.first_sent_us) span.first_sent_us = ev.sent_us;
      span.last_completed_us = std::max(span.last_completed_us, ev.completed_us);
      f_.step_us[item_->sessions[s].role + "/" + ev.step].Record(
          static_cast<double>(ev.completed_us - ev.sent_us));
    }
    if (ev.lock_wait) {
      ++f_.lock_waits;
      f_.lock_wait_ms += static_cast<double>(ev.lock_wait_us) / 1000.0;
    }
    const std::string key = ErrorKey(ev.sqlstate, ev.error_code);
    if (key.empty()) continue;
    ++f_.errors[key];
    if (ev.attempt < attempts[s]) {  // a later attempt followed: the role's retry took it
      ++f_.retries[key];
      ++f_.retried_at_attempt[ev.attempt];
    }
  }

  for (size_t s = 0; s < r.sessions.size() && s < spans.size(); ++s) {
    const SessionResult& sr = r.sessions[s];
    ++f_.transactions;
    f_.attempts += attempts[s];
    ++f_.transactions_by_attempts[attempts[s]];
    if (sr.committed) ++f_.committed;
    if (sr.won) ++f_.won;
    const Span& span = spans[s];
    if (!span.first_sent_us) continue;  // every step skipped: no latency to speak of
    const int64_t start = s < intended_us.size() ? intended_us[s] : *span.first_sent_us;
    f_.transaction_us.Record(static_cast<double>(span.last_completed_us - start));
  }

  for (const FinalValue& v : r.finals) {
    const std::string value = !v.error.empty() ? "error: " + v.error : v.value.value_or("NULL");
    ++f_.final_values[v.sql][value];
  }
  const ClaimCheck claims = CheckClaims(*item_, r.sessions);
  f_.claims_checked = claims.applies;
  if (claims.double_claims > 0) {
    ++f_.rounds_double_claimed;
    f_.double_claims += claims.double_claims;
  }
}

}  // namespace racelab::workload
