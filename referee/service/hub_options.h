// HubOptions: the bounds on what clients can make a BotHub hold, and its
// timing (grace, back-off, lazy reads); see the contract in bot_hub.h.
//
// Plain values: copied into the hub at construction, read-only after.
// Included through bot_hub.h by its users, and by the hub's parts
// (bot_connection.h) that read them.
#ifndef ARENA_REFEREE_SERVICE_HUB_OPTIONS_H_
#define ARENA_REFEREE_SERVICE_HUB_OPTIONS_H_

#include <cstddef>

#include "absl/time/time.h"

namespace arena {

// Bounds on what clients can make the hub hold; see the contract in
// bot_hub.h.
struct HubOptions {
  absl::Duration hello_timeout = absl::Seconds(5);
  // Streams without a valid Hello at once; past it a new stream evicts the
  // oldest (unknown-token ones first; see the contract in bot_hub.h).
  int max_unauthenticated = 256;
  size_t max_outbound_bytes = 8 << 20;
  int invalid_per_second = 100;
  // Log lines (warnings, connects, disconnects) per bot (or unauthenticated
  // peer) per 10 s; the rest are counted and the count logged once the
  // window has passed.
  int log_lines_per_10s = 20;
  absl::Duration reconnect_grace = absl::Milliseconds(5000);
  // Unknown tokens: the stream that sent one is refused (UNAUTHENTICATED)
  // only after a wait that doubles with each unknown token from its peer's
  // address, from the first up to the max (within hello_timeout). A valid
  // token is welcomed at once whatever its address's back-off: a guesser
  // cannot lock out honest bots that share its address.
  absl::Duration token_backoff_first = absl::Milliseconds(100);
  absl::Duration token_backoff_max = absl::Seconds(2);
  // Once a bot has answered every decision it was asked, its stream's next
  // read starts with the next message written to it rather than at once
  // (referee/service/bot_connection.cc, BotConnection::OnReadDone): one
  // write and one wake-up of the bot fewer per decision. If nothing is
  // written to it within lazy_read_wait, the read starts then (checked
  // every 100 ms), so what a bot that owes nothing sends anyway (a stale
  // answer) still gets its Notice, up to ~lazy_read_wait + 100 ms late. A
  // stream that breaks meanwhile is seen at once (the call is cancelled).
  // False: always a read out.
  bool lazy_reads = true;
  absl::Duration lazy_read_wait = absl::Milliseconds(50);
  // A message written while others wait behind it on the same stream goes
  // with a buffer hint (grpc::WriteOptions::set_buffer_hint), so gRPC sends
  // them in one write: a MatchStart with the seat's first request, or
  // whatever piled up while a write was out. False: a write each.
  bool coalesce_writes = true;
  // Each bot's connects and disconnects (and a grace that ran out for a
  // bot without a seat) at info; false: at debug, for a caller that starts
  // and stops the bots' processes itself and says so in its own words
  // (arena with entrants on demand: thousands of them).
  bool connections_at_info = true;
  // Tests only: how long a closing stream waits before telling the hub it
  // is gone, to hold open the window in which a match writes to a stream
  // that is closing but still the bot's (tests/service_test.cc).
  absl::Duration unregister_delay_for_test = absl::ZeroDuration();
  // Tests only: how long a stream waits, once its Hello is welcomed,
  // before its resync (BotHub::ResyncBot) looks at whose stream it is.
  absl::Duration resync_delay_for_test = absl::ZeroDuration();
};

// Ids a client sent are echoed (in notices and logs) clipped to this many
// bytes.
inline constexpr size_t kMaxEchoedId = 64;

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_HUB_OPTIONS_H_
