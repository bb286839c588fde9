// Round-robin seat arrangements.
//
// With B bots and S seats, the arrangements are every ordered S-tuple of bots
// that uses min(B, S) different bots: all distinct bots when B >= S, every
// bot at least once (a bot filling several seats) when B < S. The set is
// closed under renaming the bots and under permuting the seats, so over one
// full cycle every bot sits at every seat position equally often and every
// pair of bots meets equally often at every pair of positions. A tournament
// of N matches plays arrangement i mod K for match i; it is exactly balanced
// when N is a multiple of K.
#ifndef ARENA_ARENA_SCHEDULE_H_
#define ARENA_ARENA_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace arena {

// Every arrangement, in lexicographic order. Errors if there would be more
// than `limit` of them.
absl::StatusOr<std::vector<std::vector<int>>> Arrangements(int bots, int seats,
                                                           int64_t limit = 1000000);

}  // namespace arena

#endif  // ARENA_ARENA_SCHEDULE_H_
