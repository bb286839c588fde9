// Tournament secrets: where every match's seed comes from.
//
// A tournament has a 256-bit secret key, drawn from the operating system's
// CSPRNG (OpenSSL's RAND_bytes) unless the organiser gives one in a file.
// Everything a match needs that must stay unpredictable derives from it with
// HMAC-SHA-256 (OpenSSL's libcrypto; nothing hand-written):
//
//   seed(i)  = first 8 bytes, big-endian, of HMAC(key, "arena-match-seed-v1:" i)
//   salt(i)  = hex of HMAC(key, "arena-match-salt-v1:" i)           (64 hex digits)
//   tournament id = first 12 hex digits of HMAC(key, "arena-tournament-id-v1")
//   schedule seed = first 8 bytes, big-endian, of HMAC(key, "arena-schedule-seed-v1")
//
// where i is the match's deal index in decimal. A match's commitment, sent
// to its bots at MatchStart and revealed (seed and salt) at MatchEnd, is
//
//   commitment = hex(SHA-256("arena-seed-commitment-v1\n" match_id "\n"
//                             seed "\n" salt))      seed in decimal
//
// so a bot can check after the match that its deal was fixed before it
// started (docs/security.md shows how in C++ and Python).
//
// A "public" secret (FromPublicSeed, `arena --seed N`) is derived from a
// number anyone may guess: deals are then predictable. It is for demos and
// tests only; arena warns when it is used.
//
// Thread safety: a TournamentSecret is immutable after construction; its
// const methods may be called from any thread.
#ifndef ARENA_ARENA_TOURNAMENT_SECRET_H_
#define ARENA_ARENA_TOURNAMENT_SECRET_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "referee/records/record.h"  // SeedCommitment

namespace arena {

struct MatchSecrets {
  uint64_t seed = 0;
  std::string salt;        // 64 lowercase hex digits
  std::string commitment;  // 64 lowercase hex digits (SeedCommitment)
};

class TournamentSecret {
 public:
  static constexpr size_t kBytes = 32;

  // 256 bits from the OS CSPRNG; an error if it cannot supply them.
  static absl::StatusOr<TournamentSecret> Generate();
  // A secret anyone who knows `seed` can compute (demos and tests).
  static TournamentSecret FromPublicSeed(uint64_t seed);
  // Reads a secret file: 64 hex digits, optionally followed by a newline.
  // Errors name the file and what is wrong, never echo its contents.
  static absl::StatusOr<TournamentSecret> ReadFile(const std::string& path);
  // Writes the secret as 64 hex digits and a newline to a new file, mode
  // 0600; refuses to overwrite an existing file.
  absl::Status WriteFile(const std::string& path) const;

  bool predictable() const { return predictable_; }
  // 12 hex digits naming the tournament in match ids; reveals nothing of
  // the key.
  std::string TournamentId() const;
  // The seed of the schedule's own choices (which tables a round plays):
  // unpredictable without the secret, the same for every shard and resume.
  uint64_t ScheduleSeed() const;
  // The seed, salt and commitment of the match with deal index `index`,
  // whose id is `match_id`.
  MatchSecrets ForMatch(uint64_t index, const std::string& match_id) const;

 private:
  TournamentSecret() = default;
  std::string Hmac(const std::string& message) const;  // 32 raw bytes
  std::array<unsigned char, kBytes> key_{};
  bool predictable_ = false;
};

// `n` bytes from the OS CSPRNG as 2n lowercase hex digits (tokens, ids).
absl::StatusOr<std::string> RandomHex(size_t n);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_SECRET_H_
