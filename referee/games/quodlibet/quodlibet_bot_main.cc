// A Quodlibet bot that plays by heuristics (see policy.h); for other games it
// plays the first legal action.
#include "referee/games/quodlibet/policy.h"
#include "bots/sdk/bot.h"

int main(int argc, char** argv) {
  return arena::bots::BotMain(
      argc, argv, "quodlibet-bot",
      [](const arena::v1::MatchStart& m, const arena::v1::DecisionRequest& r) {
        if (!r.view().has_quodlibet()) return 0;
        return arena::bots::ChooseQuodlibetAction(m.rules().quodlibet(), r);
      });
}
