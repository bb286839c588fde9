// What each seat of a recorded match was sent, exactly, and what it answered:
// its MatchStart, every DecisionRequest (view, events, legal actions,
// decision id, deadline, simultaneous flag, step) and its MatchEnd, each
// request with the answer the record holds for it. For `arena replay
// --requests` and repro bundles (arena/records/repro_bundle.h).
//
// The messages are not rebuilt by a second copy of the referee's code: the
// match is played again by the referee's own match runner
// (referee/match/match_runner.h), from the record's header (game, options,
// seats, seed and salt, decision cap, auto moves, fault policy, time
// control), over a link whose seats answer each request with the recorded
// action or fault, and the link keeps what each seat is sent. The re-run's
// record must equal the original (but for the wall-clock and version fields:
// started_at, software_version); otherwise the record is refused, with the
// line and step where they part. One deviation, so that no deadline can
// fire while a step's requests are still being sent: the re-run is played
// with a long decision time, and the time control of the MatchStart and the
// deadline of each request are then set back to the header's (they are
// copies of it; nothing else depends on the time control).
//
// Thread safety: plain functions; each call plays its own match.
#ifndef ARENA_ARENA_RECORDS_SEAT_TRANSCRIPT_H_
#define ARENA_ARENA_RECORDS_SEAT_TRANSCRIPT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/v1/arena.pb.h"
#include "arena/v1/record.pb.h"

namespace arena {

// One request a seat was sent, and its answer as recorded: source
// SOURCE_BOT (the bot's action), SOURCE_REFEREE_FAULT (its fault, replaced
// by a random action), or, when the request was the one the seat forfeited
// on, source SOURCE_REFEREE_FAULT with the forfeit's fault and detail and no
// action (-1). Source SOURCE_UNSPECIFIED: the record holds no answer (another
// seat forfeited the step before it was taken).
struct SeatRequest {
  v1::DecisionRequest request;
  v1::SeatAction answer;
};

// Everything one seat was sent in the match, in order.
struct SeatTranscript {
  int seat = 0;
  v1::MatchStart start;
  std::vector<SeatRequest> requests;
  v1::MatchEnd end;
  // The messages in the order they were sent (start, requests, end).
  std::vector<v1::RefereeMessage> Messages() const;
};

// Every seat's transcript, by seat, from a whole record (header first,
// result last). Errors name `source`, and for a re-run that differs from the
// record, the line and step.
absl::StatusOr<std::vector<SeatTranscript>> SeatTranscripts(
    const std::vector<v1::RecordLine>& lines, const std::string& source);

}  // namespace arena

#endif  // ARENA_ARENA_RECORDS_SEAT_TRANSCRIPT_H_
