// A bot for any game: picks a legal action uniformly at random. Its choices
// are reproducible: the generator is seeded from the match id and decision id.
// With RANDOM_BOT_THINK_MS=N in the environment it sleeps N ms before each
// answer (a slow bot for the load tests).
#include <cstdlib>
#include <functional>
#include <string>

#include "absl/time/clock.h"
#include "bots/sdk/bot.h"
#include "referee/game_api/rng.h"

int main(int argc, char** argv) {
  const char* think = std::getenv("RANDOM_BOT_THINK_MS");
  const int think_ms = think != nullptr ? std::atoi(think) : 0;
  return arena::bots::BotMain(
      argc, argv, "random-bot",
      [think_ms](const arena::v1::MatchStart&, const arena::v1::DecisionRequest& r) {
        if (think_ms > 0) absl::SleepFor(absl::Milliseconds(think_ms));
        uint64_t seed = r.decision_id();
        for (char c : r.match_id()) seed = seed * 131 + static_cast<unsigned char>(c);
        arena::Rng rng(seed);
        return static_cast<int>(rng.Uniform(r.legal_actions_size()));
      });
}
