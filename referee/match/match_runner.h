// The game-agnostic match runner: plays one match of any Game, asking the
// bots at the seats for their decisions through a SeatLink, enforcing the
// decision cap, the deadlines and the fault policy, and writing the record.
//
// For each decision step the runner asks State::ActingSeats(). A seat with a
// single legal action is played by the referee (AUTO_MOVES_SINGLE, recorded as
// SOURCE_REFEREE_ONLY_MOVE). Every other acting seat is sent a
// DecisionRequest (its view, the events it may know since its previous
// decision, its legal actions, its deadline) at once; the step is resolved
// when every answer is in (or its deadline has passed), so seats deciding at
// the same time never see each other's choice. A fault (timeout, illegal
// index, disconnection, bot not available) forfeits the match or, under
// FAULT_POLICY_RANDOM_MOVE, is replaced by a random legal action drawn from a
// generator seeded by the match seed. Either way the record says so.
//
// A Match is a state machine, not a thread: it is advanced by whichever
// thread delivers the step's last answer (a gRPC reaction, or the caller of
// SeatLink::Send when the link answers at once) or by the shared deadline
// timer (one thread for every match, see DeadlineTimer). Nothing blocks while
// a match waits, so thousands of matches live on a small fixed set of
// threads. Memory is bounded whatever the match length: after every step the
// state's new events are written to the record and queued, serialized, for
// each seat that may see them (until its next request), and the state's log
// is emptied; the record spills to its file past a few KiB
// (referee/records/record.h), and what each seat was sent goes to the
// match's sent log (referee/match/sent_log.h), read back only for a resync.
//
// Thread safety: a Match may be driven from any thread; it serialises its own
// work. RunMatch blocks its caller until the match is over.
#ifndef ARENA_REFEREE_MATCH_MATCH_RUNNER_H_
#define ARENA_REFEREE_MATCH_MATCH_RUNNER_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/v1/arena.pb.h"
#include "arena/v1/config.pb.h"
#include "arena/v1/record.pb.h"
#include "referee/game_api/game.h"
#include "referee/match/out_message.h"
#include "referee/match/think_times.h"
#include "referee/records/record.h"

namespace arena {

// A bot's answer to one request, or the fault that stands for it.
struct SeatReply {
  bool ok = false;
  int action = -1;
  v1::FaultKind fault = v1::FAULT_KIND_UNSPECIFIED;
  std::string detail;
  int64_t think_us = 0;
  // With `ok`: the bot's note as the referee keeps it (BoundNote,
  // referee/records/bot_note.h) and the bytes of it that were cut.
  std::string note;
  int32_t note_cut_bytes = 0;
};

// How the runner reaches the bots of one match. Requests go out with Send;
// each answer (or the fault that stands for it) comes back, on any thread
// and possibly from inside Send itself, through Deliver to the match that
// listens on the link.
class SeatLink {
 public:
  // The match's side: what a link calls back.
  class Listener {
   public:
    virtual ~Listener() = default;
    // The answer to request `decision_id` of `seat`. False if the match does
    // not wait for it (any more): its deadline passed, or the match ended.
    virtual bool OnReply(int seat, uint64_t decision_id, SeatReply reply) = 0;
    // Every event `seat` has been sent so far in its requests, as the
    // serialized events of a View (for a Resync). Reads the match's sent log
    // back (referee/match/sent_log.h).
    virtual absl::StatusOr<std::string> SentEvents(int seat) = 0;
    // Request `decision_id` of `seat` left for the bot at `at` (was handed
    // to the network): from a link that ReportsLeaving, the decision's
    // clock starts then, not when the match gave the request to the link.
    // `at` is a MonoNow() time (referee/clock/mono_clock.h).
    virtual void OnLeft(int seat, uint64_t decision_id, absl::Time at) {}
  };

  virtual ~SeatLink() = default;
  // Set once by the match, before Start (virtual for links that forward).
  virtual void set_listener(std::weak_ptr<Listener> listener) {
    listener_ = std::move(listener);
  }

  virtual void Start(int seat, const v1::MatchStart& start) = 0;
  // Like Start, when the match sends the seat its first request next: the
  // link may hold the MatchStart and send the two together (one write, one
  // wake-up of the bot). The default sends it at once.
  virtual void StartBeforeRequest(int seat, const v1::MatchStart& start) {
    Start(seat, start);
  }
  // Whether the link tells its listener when each request leaves
  // (Listener::OnLeft). If so, a request's clock starts when it leaves, and
  // one that has not left a decision time after it was sent to the link
  // starts its clock then (so it times out after two decision times at
  // most); otherwise the clock starts at Send.
  virtual bool ReportsLeaving() const { return false; }
  // Sends a request (`message->decision_request()`); must not block on the
  // bot. Takes the message, so the transport can queue it without a copy.
  // The answer comes through Deliver.
  virtual void Send(int seat, OutMessage message, int num_legal_actions) = 0;
  // The match no longer waits for this request (its deadline passed): an
  // answer to it is stale from now on.
  virtual void Withdraw(int seat, uint64_t decision_id) {}
  // Tells the seat the match is over; drops its unanswered requests.
  virtual void End(int seat, const v1::MatchEnd& end) = 0;

 protected:
  // Hands an answer to the match (false: it no longer waits for it). Never
  // call it while holding a lock that Send takes.
  bool Deliver(int seat, uint64_t decision_id, SeatReply reply) const {
    std::shared_ptr<Listener> l = listener_.lock();
    return l != nullptr && l->OnReply(seat, decision_id, std::move(reply));
  }
  std::shared_ptr<Listener> listener() const { return listener_.lock(); }

 private:
  std::weak_ptr<Listener> listener_;
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
  // Commit and reveal (arena/tournament/secret.h): the commitment is sent to the bots
  // at MatchStart; seed and salt are revealed in the result.
  std::string seed_commitment;
  std::string seed_salt;
  std::string tournament_id;
  bool predictable_seed = false;
  std::string deal_group;              // recorded in the header
  // False: faults are not logged (a recorded match played again to rebuild
  // what its seats were sent, arena/records/seat_transcript.h). True: each
  // at warning level, but a withdrawn bot's NO_SHOW at debug level (its
  // withdrawal is logged once where it is withdrawn).
  bool log_faults = true;
  // If set, called once: when the first answer of a bot reaches the match,
  // or when the match ends without one; on the thread that delivers it,
  // under the match's lock and before the match's `done`. It must be quick
  // and must not call into the match. (A tournament bounds the matches
  // waiting for their first answer with it.)
  std::function<void()> on_first_answer;
};

// The deadline of every decision when the time control sets none: nothing
// waits forever. The record header holds it (with default_time_control set).
inline constexpr int64_t kDefaultDecisionMs = 10000;

// One fault of a seat in a match (replaced by a random move, or forfeited).
struct SeatFault {
  int seat = 0;
  v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;
};

// How long a match's requests took, for telling a saturated machine from
// a slow bot (arena/tournament/tournament.h, AssessLoad).
struct MatchTiming {
  struct Seat {
    int64_t answered = 0;      // legal or illegal answers in time
    int64_t think_us_sum = 0;  // from the request's leaving to its answer
    int64_t think_us_max = 0;
    ThinkTimes think;          // the same answers' times, as a distribution
  };
  std::vector<Seat> seats;     // by seat
  int64_t requests = 0;
  // Requests whose leaving the link reported, and the time each waited
  // between the match's Send and its leaving (the referee's own lag: a
  // queue behind other writes, or threads waiting for a core).
  int64_t left = 0;
  int64_t send_lag_us_sum = 0;
  int64_t send_lag_us_max = 0;
  // Decisions whose clock restarted because the referee's own timer ran
  // late (kMaxClockRestarts), and the time so given back, summed.
  int64_t clock_restarts = 0;
  int64_t referee_lag_us_sum = 0;
};

// The referee's lag rule. A decision times out only when the referee is on
// time: if the deadline timer fires more than RefereeLagTolerance late (the
// process was stalled, starved of a core, or the clock jumped), the bot's
// answer may be waiting, unread, behind the referee itself, so each due
// decision's clock restarts from that moment, a whole decision time, and
// the record's SeatAction.referee_lag_us says how much was given back. A
// decision restarts at most kMaxClockRestarts times; a timeout after that
// stands, and its detail says the referee was behind.
inline constexpr int kMaxClockRestarts = 3;
inline absl::Duration RefereeLagTolerance(int64_t decision_ms) {
  return std::max(absl::Milliseconds(5), absl::Milliseconds(decision_ms) / 10);
}

struct MatchOutcome {
  v1::MatchResult result;
  std::vector<SeatFault> faults;  // in the order they happened
  MatchTiming timing;
  absl::Status record_status;  // whether the record was written whole
  std::string record_path;
};

// The record format this runner writes (RecordHeader.format_version).
// 2: seed commitment, reveal and header digest (arena/tournament/secret.h).
inline constexpr int kRecordFormatVersion = 2;

// The words a fault's detail starts with ("timeout", "illegal action", ...).
const char* FaultName(v1::FaultKind fault);

// One match in play. Create it, then Start it; `done` is called once, on
// the thread that finishes the match, with the outcome (the record is then
// finished and closed). The game must outlive the match's end; the Match
// shares the link and the writer, listens on the link through a weak
// pointer, and keeps itself alive from Start until it has finished.
class Match : public SeatLink::Listener,
              public std::enable_shared_from_this<Match> {
 public:
  using Done = std::function<void(MatchOutcome)>;
  static std::shared_ptr<Match> Create(const Game& game, MatchSpec spec,
                                       std::shared_ptr<SeatLink> link,
                                       std::shared_ptr<RecordWriter> records,
                                       Done done);
  ~Match() override;
  // Writes the header, sends MatchStart and the first requests.
  virtual void Start() = 0;

 protected:
  Match() = default;
};

// Plays the match to its end, blocking. `records` may be an in-memory writer.
MatchOutcome RunMatch(const Game& game, const MatchSpec& spec, SeatLink& link,
                      RecordWriter& records);

// The timer behind every match's deadline: one thread, a heap of times.
// Each live match keeps at most one entry (re-armed when it fires early), so
// the heap holds no more than the live matches. It is also the process's
// measure of how far the referee is behind its own clock (Behind), which a
// tournament reads before it starts a match. Thread-safe.
class DeadlineTimer {
 public:
  // The process's timer (started on first use, never destroyed).
  static DeadlineTimer& Shared();
  // Calls `fn` on the timer's thread at `when`, a MonoNow() time (at once
  // if past). Every time here is on the monotonic clock.
  void At(absl::Time when, std::function<void()> fn);
  // Notes a lag of the referee's own: a request that waited `lag` between
  // its match handing it over and its leaving for the bot.
  void NoteLag(absl::Duration lag);
  // How far the referee is behind now: how long the earliest due entry has
  // waited past its time, or the largest lag noted (NoteLag, or an entry
  // fired late) in the last kLagWindow, whichever is more.
  absl::Duration Behind();
  static constexpr absl::Duration kLagWindow = absl::Milliseconds(50);

 private:
  DeadlineTimer();
  struct Impl;
  Impl* impl_;
};

// The result of a forfeit: the game's tie-break ranking of the position, with
// the forfeiting seat placed last.
v1::MatchResult ForfeitResult(const State& state, int seat,
                              const std::string& detail);

// The record's form of a logged event (the full event and who may see it).
v1::RecordedEvent ToRecordedEvent(const LoggedEvent& e, int num_seats);

// Builds the header line of a match record.
v1::RecordHeader MakeHeader(const Game& game, const MatchSpec& spec);

}  // namespace arena

#endif  // ARENA_REFEREE_MATCH_MATCH_RUNNER_H_
