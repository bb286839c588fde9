// A bot for any game: picks a legal action uniformly at random. Its choices
// are reproducible: the generator is seeded from the match id and decision id.
#include <functional>
#include <string>

#include "bots/sdk/bot.h"
#include "referee/rng.h"

int main(int argc, char** argv) {
  return arena::bots::BotMain(
      argc, argv, "random-bot",
      [](const arena::v1::MatchStart&, const arena::v1::DecisionRequest& r) {
        uint64_t seed = r.decision_id();
        for (char c : r.match_id()) seed = seed * 131 + static_cast<unsigned char>(c);
        arena::Rng rng(seed);
        return static_cast<int>(rng.Uniform(r.legal_actions_size()));
      });
}
