#include "arena/tournament/start_holds.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "referee/clock/mono_clock.h"
#include "referee/match/match_runner.h"

namespace arena {

StartHolds::StartHolds(BotHub& hub, LoadSample* load)
    : hub_(hub),
      load_(*load),
      t0_(MonoNow()),
      lag_tolerance_(RefereeLagTolerance(load->decision_ms)),
      owed_within_(std::max(absl::Milliseconds(100), 4 * absl::Milliseconds(load->decision_ms))) {}

void StartHolds::Hold(const std::vector<std::string>& bots, const std::atomic<bool>& stopped) {
  const absl::Time from = MonoNow();
  bool held = false, for_bots = false;
  for (;;) {
    const absl::Time now = MonoNow();
    if (stopped.load() || now - from >= absl::Seconds(1)) break;
    if (DeadlineTimer::Shared().Behind() > lag_tolerance_) {
      held = true;
    } else if (held_for_bots_ + (for_bots ? now - from : absl::ZeroDuration()) <
                   (now - t0_) / 10 &&
               std::any_of(bots.begin(), bots.end(), [&](const std::string& b) {
                 return hub_.OwesLateAnswer(b, owed_within_);
               })) {
      held = for_bots = true;
    } else {
      break;
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
  if (held) {
    ++load_.start_holds;
    load_.start_hold_us += absl::ToInt64Microseconds(MonoNow() - from);
  }
  if (for_bots) {
    ++load_.start_holds_for_bots;
    held_for_bots_ += MonoNow() - from;
  }
}

}  // namespace arena
