// A Quäsenbö bot that plays by heuristics (see policy.h); for other games it
// plays the first legal action.
#include "referee/games/quasenbo/policy.h"
#include "bots/sdk/bot.h"

int main(int argc, char** argv) {
  return arena::bots::BotMain(
      argc, argv, "quasenbo-bot",
      [](const arena::v1::MatchStart& m, const arena::v1::DecisionRequest& r) {
        if (!r.view().has_quasenbo()) return 0;
        return arena::bots::ChooseQuasenboAction(m.rules().quasenbo(), r);
      });
}
