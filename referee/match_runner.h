// The game-agnostic match runner: plays one match of any Game, asking the
// bots at the seats for their decisions through a SeatLink, enforcing the
// decision cap and the fault policy, and writing the record.
//
// For each decision step the runner asks State::ActingSeats(). A seat with a
// single legal action is played by the referee (AUTO_MOVES_SINGLE, recorded as
// SOURCE_REFEREE_ONLY_MOVE). Every other acting seat is sent a
// DecisionRequest (its view, the events it may know since its previous
// decision, its legal actions, its deadline) at once; the runner then waits
// for all the answers, so seats deciding at the same time never see each
// other's choice. A fault (timeout, illegal index, disconnection, bot not
// available) forfeits the match or, under FAULT_POLICY_RANDOM_MOVE, is
// replaced by a random legal action drawn from a generator seeded by the
// match seed. Either way the record says so.
//
// Thread safety: RunMatch blocks its calling thread for the whole match; run
// several matches on several threads. The SeatLink must be safe to use from
// each of them.
#ifndef ARENA_REFEREE_MATCH_RUNNER_H_
#define ARENA_REFEREE_MATCH_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "arena/v1/arena.pb.h"
#include "arena/v1/config.pb.h"
#include "arena/v1/record.pb.h"
#include "referee/game.h"
#include "referee/out_message.h"
#include "referee/record.h"

namespace arena {

// A bot's answer to one request, or the fault that stands for it.
struct SeatReply {
  bool ok = false;
  int action = -1;
  v1::FaultKind fault = v1::FAULT_KIND_UNSPECIFIED;
  std::string detail;
  int64_t think_us = 0;
};

// How the runner reaches the bots of one match.
class SeatLink {
 public:
  virtual ~SeatLink() = default;
  virtual void Start(int seat, const v1::MatchStart& start) = 0;
  // Sends a request (`message->decision_request()`); must not block on the
  // bot. Takes the message, so the transport can queue it without a copy.
  virtual void Send(int seat, OutMessage message, int num_legal_actions) = 0;
  // Waits for the answer to a sent request until `deadline`.
  virtual SeatReply Await(int seat, uint64_t decision_id,
                          absl::Time deadline) = 0;
  // Tells the seat the match is over; drops its unanswered requests.
  virtual void End(int seat, const v1::MatchEnd& end) = 0;
};

struct MatchSpec {
  std::string match_id;
  std::string game_name;
  Options options;
  std::vector<std::string> seat_bots;  // bot name per seat
  uint64_t seed = 0;
  v1::TimeControl time_control;        // decision_ms 0: kDefaultDecisionMs
  v1::FaultPolicy fault_policy = v1::FAULT_POLICY_FORFEIT;
  v1::AutoMoves auto_moves = v1::AUTO_MOVES_SINGLE;
  int64_t decision_cap = 0;            // 0: the game's default
  // Commit and reveal (arena/secret.h): the commitment is sent to the bots
  // at MatchStart; seed and salt are revealed in the result.
  std::string seed_commitment;
  std::string seed_salt;
  std::string tournament_id;
  bool predictable_seed = false;
  std::string deal_group;              // recorded in the header
};

// The deadline of every decision when the time control sets none: nothing
// waits forever. The record header holds it (with default_time_control set).
inline constexpr int64_t kDefaultDecisionMs = 10000;

// One fault of a seat in a match (replaced by a random move, or forfeited).
struct SeatFault {
  int seat = 0;
  v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;
};

struct MatchOutcome {
  v1::MatchResult result;
  std::vector<SeatFault> faults;  // in the order they happened
  absl::Status record_status;  // whether the record was written whole
  std::string record_path;
};

// The record format this runner writes (RecordHeader.format_version).
// 2: seed commitment, reveal and header digest (arena/secret.h).
inline constexpr int kRecordFormatVersion = 2;

// The words a fault's detail starts with ("timeout", "illegal action", ...).
const char* FaultName(v1::FaultKind fault);

// Plays the match to its end. `records` may be an in-memory writer.
MatchOutcome RunMatch(const Game& game, const MatchSpec& spec, SeatLink& link,
                      RecordWriter& records);

// The result of a forfeit: the game's tie-break ranking of the position, with
// the forfeiting seat placed last.
v1::MatchResult ForfeitResult(const State& state, int seat,
                              const std::string& detail);

// The record's form of a logged event (the full event and who may see it).
v1::RecordedEvent ToRecordedEvent(const LoggedEvent& e, int num_seats);

// Builds the header line of a match record.
v1::RecordHeader MakeHeader(const Game& game, const MatchSpec& spec);

}  // namespace arena

#endif  // ARENA_REFEREE_MATCH_RUNNER_H_
