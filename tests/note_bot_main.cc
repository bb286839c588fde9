// A bot that writes a note on every decision (the C++ SDK's SetNote): a
// random legal action (seeded by the match and decision) and the note
// tests/note_bot.h gives for it, hostile texts among them.
//   note_bot [--hang_at N]   N > 0: at its first decision with an id of N or
//                            more, no answer for 3 s (a timeout, so that
//                            arena writes a repro bundle)
#include <chrono>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "bots/sdk/bot.h"
#include "referee/game_api/rng.h"
#include "tests/note_bot.h"

ABSL_FLAG(int, hang_at, 0, "at this decision id, answer only after 3 s (0: never)");

namespace {

int Policy(const arena::v1::MatchStart&, const arena::v1::DecisionRequest& r) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : r.match_id()) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  arena::Rng rng(arena::DeriveSeed(h, r.decision_id()));
  const int action = static_cast<int>(rng.Uniform(r.legal_actions_size()));
  arena::bots::SetNote(arena::testing::NoteFor(r.seat(), r.decision_id(), action));
  static bool hung = false;  // (one decision at a time: --threads 1)
  const int hang_at = absl::GetFlag(FLAGS_hang_at);
  if (!hung && hang_at > 0 && r.decision_id() >= static_cast<uint64_t>(hang_at)) {
    hung = true;
    std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  return action;
}

}  // namespace

int main(int argc, char** argv) {
  return arena::bots::BotMain(argc, argv, "note_bot", Policy);
}
