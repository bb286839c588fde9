// A tournament's config (arena.v1.TournamentConfig) before it runs: the one
// check of every field, with the defaults it fills in (`arena` and `referee
// --config` alike; docs/config.md), and the secret the config names.
//
// Thread safety: plain functions. ResolveSecret may create config.secret_file.
#ifndef ARENA_ARENA_TOURNAMENT_CONFIG_H_
#define ARENA_ARENA_TOURNAMENT_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/tournament/secret.h"
#include "arena/v1/config.pb.h"

namespace arena {

// Matches at a time. A live match is a state machine (no thread of its
// own) that holds no descriptor: what bounds it is memory
// (docs/benchmarks.md).
inline constexpr int kMaxJobs = 65536;
// Descriptors a live match holds between its writes: none. Its record is
// kept in memory and spills with open, append, close
// (referee/records/record.h); its sent log the same (referee/match/sent_log.h);
// its link and its clock hold none (the hub's streams are per bot; one timer
// thread for every match). A match opens a file only for the length of a write.
inline constexpr int kFilesPerLiveMatch = 0;
inline constexpr int kMaxBots = 4096;  // bots in one tournament

// Bot names: 1 to 64 of [A-Za-z0-9_.-], not "." or "..". They name log
// files and appear in records, so nothing else is accepted.
bool IsValidBotName(const std::string& name);

// Checks a config for mistakes (names each); fills in defaults.
absl::Status ValidateConfig(v1::TournamentConfig* config);

// How long a bot may take to connect: config.connect_timeout_ms, 0 meaning
// the default, kDefaultConnectTimeoutMs (as config.proto documents it).
inline constexpr int64_t kDefaultConnectTimeoutMs = 30'000;
absl::Duration ConnectTimeout(const v1::TournamentConfig& config);

// The tournament's secret: read from config.secret_file (created there if
// the file does not exist), else derived from a public config.seed (with a
// warning), else fresh from the OS CSPRNG.
absl::StatusOr<TournamentSecret> ResolveSecret(const v1::TournamentConfig& config);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_CONFIG_H_
