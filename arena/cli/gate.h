// `arena gate`: a sequential probability ratio test (arena/stats/sprt.h) of a
// candidate bot against a baseline over duplicate deal groups, played as a
// tournament of fixed seatings that stops as soon as the test decides.
//
// The command line (arena/cli/arena_main.cc) fills GateOptions from its
// flags, checks them (CheckGateOptions), builds the tournament config from
// GateBots and its other flags, lets SetUpGateConfig fix what a gate
// decides, and calls RunGate, which prints the verdict on stdout, writes
// the reports asked for (the GateResult as JSON to `json`, `junit`,
// `summary_md`) and returns the exit code.
//
// Thread safety: RunGate blocks while the tournament runs; one at a time.
#ifndef ARENA_ARENA_CLI_GATE_H_
#define ARENA_ARENA_CLI_GATE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "arena/tournament/launch.h"
#include "arena/v1/config.pb.h"

namespace arena {

struct GateOptions {
  std::string candidate;  // NAME=COMMAND of the bot under test
  std::string baseline;   // NAME=COMMAND of the bot to beat
  std::string filler;     // NAME=COMMAND in seats beyond two (empty: baseline)
  double elo0 = 0;        // H0: the candidate is at most this much stronger
  double elo1 = 10;       // H1: the candidate is at least this much stronger
  double alpha = 0.05;    // chance of accepting H1 when H0 holds
  double beta = 0.05;     // chance of accepting H0 when H1 holds
  int max_games = 2000;   // matches after which it stops undecided
  std::string json;       // also write the result (GateResult) here, if set
  // The most the candidate's or the baseline's fault rate may be (the share
  // of its matches in which it had a fault of any kind); above it the gate
  // gives no verdict (kGateNoVerdict) whatever the SPRT says. 1: no limit.
  double max_fault_rate = 1;
  std::string junit;       // also write a JUnit XML report here, if set
  std::string summary_md;  // also write a markdown summary here, if set
};

// The gate's bots as NAME=COMMAND: candidate, baseline, filler (if given).
std::vector<std::string> GateBots(const GateOptions& options);

// The options' own mistakes (no candidate or baseline, elo1 <= elo0, alpha
// or beta outside (0, 0.5), max_games < 1, max_fault_rate outside [0, 1]),
// named as the flags.
absl::Status CheckGateOptions(const GateOptions& options);

// What a gate fixes in its config: the game's default seats (if none are
// given; an unknown game is an error), max_games matches, duplicate deals,
// no gauntlet.
absl::Status SetUpGateConfig(const GateOptions& options, v1::TournamentConfig* config);

// The exit code of a gate that gives no verdict because a bot did not play.
inline constexpr int kGateNoVerdict = 4;

// Runs the gate with `config` (set up as above) and `launch` (its sandbox);
// prints the verdict, the faults by kind, forfeits and withdrawal of the
// candidate and the baseline, and their fault rates; writes the JSON, JUnit
// and markdown reports asked for. A verdict needs both programs playing: if
// the candidate, the baseline or the filler was withdrawn (did not start, or
// failed past its restarts; the gate stops at its first no-show), or the
// candidate's or the baseline's fault rate is above max_fault_rate, the
// verdict is "no verdict: CANDIDATE|BASELINE|FILLER 'NAME' ..." with the
// reason (as public text: no path of the organiser's machine,
// arena/common/public_text.h), never H0 or H1. Returns the exit code: 0 H1 accepted, 1 H0
// accepted, 3 no decision within max_games, kGateNoVerdict (4) no verdict,
// 2 an error (printed on stderr).
int RunGate(const GateOptions& options, const v1::TournamentConfig& config,
            LaunchOptions launch);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_GATE_H_
