// A Pesten bot that plays by heuristics (see policy.h); for other games it
// plays the first legal action.
#include "referee/games/pesten/policy.h"
#include "bots/sdk/bot.h"

int main(int argc, char** argv) {
  return arena::bots::BotMain(
      argc, argv, "pesten-bot",
      [](const arena::v1::MatchStart& m, const arena::v1::DecisionRequest& r) {
        if (!r.view().has_pesten()) return 0;
        return arena::bots::ChoosePestenAction(m.rules().pesten(), r);
      });
}
