// toy_bot: the toy game's bot program (policy.h), on the C++ bot SDK.
// The conformance suite's end-to-end test runs `<game>_bot` against
// random_bot, so the program is named after the game.
#include "bots/sdk/bot.h"
#include "policy.h"

int main(int argc, char** argv) {
  return arena::bots::BotMain(argc, argv, "toy-bot", toy::ChooseToyAction);
}
