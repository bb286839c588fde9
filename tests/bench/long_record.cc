// long_record: writes the record of a very long match, for the replay and
// site benchmarks (tests/bench/replay_bench.sh, docs/benchmarks.md).
//
//   build/bin/long_record --out DIR [--game pesten] [--seats 4]
//       [--min_decisions 20000] [--max_decisions 22000] [--first_seed 1]
//       [--max_seeds 200000]
//
// Plays matches in process (the referee's own match runner, RunMatch, with
// every seat a uniformly random player, as build/bin/random_bot plays) from
// seed --first_seed on, until one lasts at least --min_decisions decisions
// (and at most --max_decisions, 0: no bound),
// and writes its record (compact, as a tournament writes it) to
// DIR/<game>-long-<seed>.rec. Weak players in 4-seat Pesten now and then
// play a match ten to twenty times the median's length: such a match is
// what the benchmarks replay. Prints the seed, the decisions and the path;
// exit 1 if no seed within --max_seeds gave one.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "referee/game_api/rng.h"
#include "referee/games/registry.h"
#include "referee/match/local_link.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, out, "", "folder to write the record into");
ABSL_FLAG(std::string, game, "pesten", "game");
ABSL_FLAG(int, seats, 4, "seats");
ABSL_FLAG(int64_t, min_decisions, 20000, "the record's match lasts at least this many decisions");
ABSL_FLAG(int64_t, max_decisions, 22000, "and at most this many (0: no bound)");
ABSL_FLAG(uint64_t, first_seed, 1, "first seed tried");
ABSL_FLAG(uint64_t, max_seeds, 200000, "seeds tried at most");

namespace {

arena::MatchSpec Spec(const std::string& game, int seats, uint64_t seed) {
  arena::MatchSpec spec;
  spec.game_name = game;
  spec.match_id = absl::StrCat(game, "-long-", seed);
  spec.seed = seed;
  spec.predictable_seed = true;
  spec.auto_moves = arena::v1::AUTO_MOVES_NONE;
  spec.time_control.set_decision_ms(60000);
  for (int s = 0; s < seats; ++s) spec.seat_bots.push_back(absl::StrCat("random", s));
  return spec;
}

arena::LocalSeatLink::Policy Random(uint64_t seed) {
  auto rng = std::make_shared<arena::Rng>(seed);
  return [rng](int, const arena::v1::MatchStart&, const arena::v1::DecisionRequest& r) {
    return static_cast<int>(rng->Uniform(static_cast<uint32_t>(r.legal_actions_size())));
  };
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  spdlog::set_level(spdlog::level::warn);
  const std::string out = absl::GetFlag(FLAGS_out);
  const std::string game_name = absl::GetFlag(FLAGS_game);
  const int seats = absl::GetFlag(FLAGS_seats);
  const int64_t min = absl::GetFlag(FLAGS_min_decisions);
  const int64_t max = absl::GetFlag(FLAGS_max_decisions);
  if (out.empty()) {
    std::fprintf(stderr, "long_record: --out DIR is needed\n");
    return 2;
  }
  auto game = arena::CreateGame(game_name, {}, seats);
  if (!game.ok()) {
    std::fprintf(stderr, "long_record: %s\n", std::string(game.status().message()).c_str());
    return 2;
  }
  const uint64_t first = absl::GetFlag(FLAGS_first_seed);
  int64_t longest = 0;
  for (uint64_t seed = first; seed < first + absl::GetFlag(FLAGS_max_seeds); ++seed) {
    const arena::MatchSpec spec = Spec(game_name, seats, seed);
    auto memory = arena::RecordWriter::Open("", spec.match_id);
    arena::LocalSeatLink link(Random(seed));
    const arena::MatchOutcome o = arena::RunMatch(**game, spec, link, **memory);
    const int64_t decisions = o.result.decisions();
    longest = std::max(longest, decisions);
    if (decisions < min || (max > 0 && decisions > max)) continue;
    // The same match again (same seed, same players), into the folder.
    auto writer = arena::RecordWriter::Open(out, spec.match_id);
    if (!writer.ok()) {
      std::fprintf(stderr, "long_record: %s\n", std::string(writer.status().message()).c_str());
      return 2;
    }
    arena::LocalSeatLink again(Random(seed));
    const arena::MatchOutcome o2 = arena::RunMatch(**game, spec, again, **writer);
    if (o2.result.decisions() != decisions || !(*writer)->Finish().ok()) {
      std::fprintf(stderr, "long_record: seed %llu did not play the same twice\n",
                   static_cast<unsigned long long>(seed));
      return 2;
    }
    std::printf("seed %llu: %lld decisions: %s\n", static_cast<unsigned long long>(seed),
                static_cast<long long>(decisions), (*writer)->final_path().c_str());
    return 0;
  }
  std::fprintf(stderr, "long_record: no match of %lld to %lld decisions (longest %lld)\n",
               static_cast<long long>(min), static_cast<long long>(max),
               static_cast<long long>(longest));
  return 1;
}
