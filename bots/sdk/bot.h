// The C++ bot SDK: a bot is a function from (match, decision request) to the
// index of a legal action; the SDK does the rest: the connection, the Hello,
// the stream, many matches at once, and sending each answer back.
//
//   int MyPolicy(const arena::v1::MatchStart& m,
//                const arena::v1::DecisionRequest& r) { return 0; }
//   int main(int argc, char** argv) {
//     return arena::bots::BotMain(argc, argv, "my-bot", MyPolicy);
//   }
//
// BotMain reads --address and --token (or ARENA_ADDRESS and ARENA_TOKEN from
// the environment) and runs until the referee ends the stream. With
// ARENA_TLS_CA (a PEM file) it connects with TLS, trusting that CA.
//
// A stream that breaks (the referee restarts, the network drops) is opened
// again, waiting 0.1 s and then up to 2 s between tries, for up to
// reconnect_window since the bot was last connected; the referee keeps the
// bot's seats for its grace and sends a Resync for every live match, whose
// open decisions the SDK answers like any request. A refusal (unknown token,
// replaced by a newer stream, cut off) ends the bot.
//
// Thread safety: with threads > 1 the policy is called from several threads
// at once (for different decisions) and must be safe for that.
#ifndef ARENA_BOTS_SDK_BOT_H_
#define ARENA_BOTS_SDK_BOT_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "arena/v1/arena.pb.h"

namespace arena::bots {

// The MatchStart is that of the decision's match (empty if the referee never
// sent one). Returns an index into request.legal_actions().
using Policy = std::function<int(const v1::MatchStart& match,
                                 const v1::DecisionRequest& request)>;

struct BotOptions {
  std::string address;  // host:port of the referee
  std::string token;
  std::string client = "arena-cpp-sdk/1";
  int threads = 1;      // decisions taken at once (across matches)
  std::string tls_ca;   // PEM file of the CA to trust: TLS (empty: plaintext)
  absl::Duration reconnect_window = absl::Seconds(30);
};

// From inside a policy, on the thread that called it: a short text of the
// bot's own on the decision it is taking (why it chose), sent with the
// answer as Decision.note. The referee records it with the decision and
// never sends it to any bot; replays show it beside the decision
// (docs/bots.md#notes). The referee keeps 256 bytes of it (control
// characters replaced, cut at a character boundary; the record counts the
// bytes cut). The SDK sends at most kMaxSentNoteBytes of it, any invalid
// UTF-8 replaced by U+FFFD (so that the message stays valid protobuf within
// the referee's 64 KiB). A later call replaces the note; none: no note.
void SetNote(absl::string_view note);
inline constexpr size_t kMaxSentNoteBytes = 16 * 1024;

// Checks the referee's commitment to a match's seed (docs/security.md): the
// MatchStart's seed_commitment must be SHA-256 of
// "arena-seed-commitment-v1\n" + match_id + "\n" + seed + "\n" + salt, with the
// seed and salt the MatchEnd reveals. OK if it is; else an error saying what
// differs. RunBot checks every match it plays and logs an error for any
// commitment that does not open.
absl::Status VerifySeedCommitment(const v1::MatchStart& start,
                                  const v1::MatchEnd& end);

// Connects and plays until the referee ends the stream. OK when the referee
// ended it normally.
absl::Status RunBot(const BotOptions& options, const Policy& policy);

// main() for a bot: parses the SDK's flags (--address, --token, --threads,
// --epsilon: bots/sdk/epsilon.h), falls back on ARENA_ADDRESS / ARENA_TOKEN,
// runs the bot, returns the exit code: 0 the referee ended the stream, 1 it
// failed, 2 a flag out of range (--epsilon outside [0, 1]). `name` is used in
// logs only (the token decides the identity).
int BotMain(int argc, char** argv, const std::string& name,
            const Policy& policy);

}  // namespace arena::bots

#endif  // ARENA_BOTS_SDK_BOT_H_
