#include "arena/tournament/load_meter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "spdlog/spdlog.h"

namespace arena {

LoadVerdict AssessLoad(const LoadSample& sample) {
  LoadVerdict v;
  const double deadline_us = 1000.0 * static_cast<double>(sample.decision_ms);
  int64_t answered = 0, think_us = 0;
  int fast_timing_out = 0;
  // A load slows every bot alike; a slow bot stands out from the others.
  std::vector<double> means;
  for (const LoadSample::Bot& b : sample.bots) {
    if (b.answered > 0) means.push_back(static_cast<double>(b.think_us_sum) / b.answered);
  }
  double median = 0;
  if (!means.empty()) {
    std::sort(means.begin(), means.end());
    median = means.size() % 2 == 1
                 ? means[means.size() / 2]
                 : (means[means.size() / 2 - 1] + means[means.size() / 2]) / 2;
  }
  const double fast_below = std::max(deadline_us / 2, 2 * median);
  for (const LoadSample::Bot& b : sample.bots) {
    v.timeouts += b.timeouts;
    answered += b.answered;
    think_us += b.think_us_sum;
    const bool fast = b.answered > 0 &&
                      static_cast<double>(b.think_us_sum) / b.answered < fast_below;
    if (fast && b.timeouts > 0) {
      v.load_timeouts += b.timeouts;
      ++fast_timing_out;
    }
  }
  const double mean_lag_us =
      sample.requests > 0
          ? static_cast<double>(sample.send_lag_us_sum) / sample.requests
          : 0.0;
  const bool referee_lagged = mean_lag_us >= deadline_us / 20 ||
                              sample.send_lag_us_max >= deadline_us / 2;
  v.summary = absl::StrFormat(
      "%d timeouts in %d answers; the referee's requests waited %.2f ms on "
      "average to be sent (at most %.1f ms); mean answer time by bot:",
      v.timeouts, answered, mean_lag_us / 1000, sample.send_lag_us_max / 1000.0);
  for (const LoadSample::Bot& b : sample.bots) {
    absl::StrAppendFormat(&v.summary, " %s %.2f ms (%d timeouts)", b.name,
                          b.answered > 0 ? b.think_us_sum / 1000.0 / b.answered : 0.0,
                          b.timeouts);
  }
  if (v.load_timeouts == 0 || deadline_us <= 0 || !referee_lagged) return v;
  v.saturated = true;
  const double mean_think_us =
      answered > 0 ? static_cast<double>(think_us) / answered : deadline_us;
  const int jobs = std::max(1, sample.jobs);
  const double fit = jobs * deadline_us / (8 * std::max(1.0, mean_think_us));
  v.suggested_jobs = static_cast<int>(
      std::clamp<double>(std::floor(fit), 1, std::max(1, jobs - 1)));
  v.text = absl::StrFormat(
      "%d of the %d timeouts look caused by the machine's load, not by slow "
      "bots: %d bot(s) that answer about as fast as the others, in %.2f ms "
      "on average (deadline %d ms), timed out, and the "
      "referee itself lagged: its requests waited %.2f ms on average to be "
      "sent (at most %.1f ms). %d matches at once are too many for this "
      "machine at this deadline; try --jobs %d (or a longer --decision_ms).",
      v.load_timeouts, v.timeouts, fast_timing_out, mean_think_us / 1000,
      sample.decision_ms, mean_lag_us / 1000, sample.send_lag_us_max / 1000.0,
      jobs, v.suggested_jobs);
  return v;
}

LoadMeter::LoadMeter(const v1::TournamentConfig& config) {
  sample_.decision_ms = config.time_control().decision_ms() > 0
                            ? config.time_control().decision_ms()
                            : kDefaultDecisionMs;
  sample_.jobs = std::max(1, config.jobs());
}

void LoadMeter::Add(const MatchSpec& spec, const MatchOutcome& outcome) {
  auto bot = [&](int seat) -> LoadSample::Bot& {
    const std::string& name = spec.seat_bots[seat];
    auto [it, added] = bot_index_.emplace(name, sample_.bots.size());
    if (added) sample_.bots.push_back({name});
    return sample_.bots[it->second];
  };
  const MatchTiming& t = outcome.timing;
  for (size_t s = 0; s < t.seats.size() && s < spec.seat_bots.size(); ++s) {
    LoadSample::Bot& b = bot(static_cast<int>(s));
    b.answered += t.seats[s].answered;
    b.think_us_sum += t.seats[s].think_us_sum;
  }
  for (const SeatFault& f : outcome.faults) {
    if (f.kind == v1::FAULT_KIND_TIMEOUT) ++bot(f.seat).timeouts;
  }
  sample_.requests += t.left;
  sample_.send_lag_us_sum += t.send_lag_us_sum;
  sample_.send_lag_us_max = std::max(sample_.send_lag_us_max, t.send_lag_us_max);
  sample_.clock_restarts += t.clock_restarts;
  sample_.referee_lag_us_sum += t.referee_lag_us_sum;
}

void LoadMeter::Report(int max_opening) const {
  const LoadSample& load = sample_;
  if (const LoadVerdict verdict = AssessLoad(load); verdict.saturated) {
    spdlog::warn("{}", verdict.text);
    spdlog::info("{}", verdict.summary);
  } else if (verdict.timeouts > 0) {
    spdlog::info("{}", verdict.summary);
  }
  if (load.clock_restarts > 0 || load.start_holds > 0 || load.opening_waits > 0) {
    spdlog::info(
        "fair clocks: {} decision clocks restarted while the referee was behind "
        "({:.1f} ms given back, not charged to the bots); {} match starts held "
        "back for {:.1f} ms in all ({} of them for a bot still owing a timed-out "
        "answer); {} starts waited for one of the {} matches opening to get its "
        "first answer",
        load.clock_restarts, load.referee_lag_us_sum / 1000.0, load.start_holds,
        load.start_hold_us / 1000.0, load.start_holds_for_bots, load.opening_waits,
        max_opening);
  }
}

}  // namespace arena
