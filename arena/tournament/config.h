// A tournament's config (arena.v1.TournamentConfig) before it runs: the one
// check of every field, with the defaults it fills in (`arena` and `referee
// --config` alike; docs/config.md), and the secret the config names.
//
// Thread safety: plain functions. ResolveSecret may create config.secret_file.
#ifndef ARENA_ARENA_TOURNAMENT_CONFIG_H_
#define ARENA_ARENA_TOURNAMENT_CONFIG_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arena/tournament/secret.h"
#include "arena/v1/config.pb.h"

namespace arena {

// Matches at a time. A live match is a state machine (no thread of its
// own) and holds at most kFilesPerLiveMatch descriptors: what bounds it is
// memory (docs/benchmarks.md) and, for each of those, an open file.
inline constexpr int kMaxJobs = 65536;
// Descriptors a live match holds between its writes: its record's file
// (referee/records/record.h). Its sent log holds none (opened, written and
// closed at each flush, referee/match/sent_log.h), nor do its link and its
// clock (the hub's streams are per bot; one timer thread for every match).
inline constexpr int kFilesPerLiveMatch = 1;
inline constexpr int kMaxBots = 4096;  // bots in one tournament

// Bot names: 1 to 64 of [A-Za-z0-9_.-], not "." or "..". They name log
// files and appear in records, so nothing else is accepted.
bool IsValidBotName(const std::string& name);

// Checks a config for mistakes (names each); fills in defaults.
absl::Status ValidateConfig(v1::TournamentConfig* config);

// The tournament's secret: read from config.secret_file (created there if
// the file does not exist), else derived from a public config.seed (with a
// warning), else fresh from the OS CSPRNG.
absl::StatusOr<TournamentSecret> ResolveSecret(const v1::TournamentConfig& config);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_CONFIG_H_
