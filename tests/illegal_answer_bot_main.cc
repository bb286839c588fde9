// A bot that plays well but answers illegally often, for the gate's
// --max_fault_rate test (crash_hang_flood_bot, by contrast, fails as a
// program): the Quäsenbö heuristics (referee/games/quasenbo/policy.h), except
// that every --every'th decision of its process gets an action index out of
// range (an ILLEGAL fault), at most one per --gap_ms (the referee cuts off a
// bot that sends more than 100 invalid messages in a second). Under
// --fault_policy random the referee plays a random legal move instead and
// the match goes on, so the bot still beats a random one clearly while it
// faults in many matches.
//   illegal_answer_bot --every=4 --gap_ms=25
#include <atomic>
#include <chrono>

#include "absl/flags/flag.h"
#include "bots/sdk/bot.h"
#include "referee/games/quasenbo/policy.h"

ABSL_FLAG(int, every, 4, "answer every Nth decision with an illegal index");
ABSL_FLAG(int, gap_ms, 25, "at most one illegal answer in this many milliseconds");

int main(int argc, char** argv) {
  static std::atomic<int> decisions{0};
  static std::atomic<int64_t> last_fault_ms{0};
  return arena::bots::BotMain(
      argc, argv, "illegal-answer-bot",
      [](const arena::v1::MatchStart& m, const arena::v1::DecisionRequest& r) {
        const int every = absl::GetFlag(FLAGS_every);
        if (every > 0 && ++decisions % every == 0) {
          const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch())
                                  .count();
          if (now - last_fault_ms.load() >= absl::GetFlag(FLAGS_gap_ms)) {
            last_fault_ms = now;
            return r.legal_actions_size() + 7;
          }
        }
        if (!r.view().has_quasenbo()) return 0;
        return arena::bots::ChooseQuasenboAction(m.rules().quasenbo(), r);
      });
}
