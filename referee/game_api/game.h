// The game interface every rules engine implements, after OpenSpiel's: an
// immutable Game made from options creates States; a State says who must act,
// what each acting seat may do, what each seat may see, and applies actions.
//
// Chance lives inside the State: it owns an arena::Rng seeded from the match
// seed, so a match is a function of (game, options, seats, seed, actions).
// Every chance outcome (deal, draw, reshuffle) is logged as an event with its
// visibility, so records can be checked step by step on re-simulation.
//
// Decisions may be taken by several seats at once (ActingSeats() returns more
// than one seat): the runner collects every choice, unseen by the others, and
// calls Apply once with all of them. Moves the rules force are made by the
// State itself and logged as events; a decision with one legal action is
// still a decision, which the runner may take for the seat (AUTO_MOVES_SINGLE).
//
// Ownership and threads: a Game is immutable and may be shared by threads; a
// State belongs to one match and is used by one thread at a time.
#ifndef ARENA_REFEREE_GAME_API_GAME_H_
#define ARENA_REFEREE_GAME_API_GAME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "arena/v1/arena.pb.h"
#include "arena/v1/record.pb.h"
#include "arena/v1/replay.pb.h"
#include "google/protobuf/descriptor.h"

namespace arena {

using Options = std::map<std::string, std::string>;

// An event and who may see it. The record always holds `event`. A public
// event is seen by every seat; otherwise only the seats in `seats_mask` see
// `event`, and the other seats see `redacted` when `has_redacted` is set
// (a card drawn, without its face), else nothing. An event with no seat in
// its mask and nothing redacted is the record's alone (the order of a
// shuffled deck).
struct LoggedEvent {
  v1::Event event;             // the full event, as the record holds it
  bool is_public = false;      // everyone may see `event`
  uint64_t seats_mask = 0;     // else: these seats may see `event`
  // When not public: what the other seats are told instead (unset: nothing).
  bool has_redacted = false;
  v1::Event redacted;
};

struct GameInfo {
  std::string name;
  int min_seats = 2;
  int max_seats = 2;
  int default_seats = 2;
  int64_t default_decision_cap = 10000;
  bool higher_score_wins = false;
  // Option name -> one-line help, for `arena --help` and config errors.
  std::map<std::string, std::string> options;
  // Whether some decisions are taken by several seats at once (ActingSeats()
  // returns more than one seat): the conformance suite then requires
  // matches to have such steps, and a game that says false to have none.
  bool simultaneous_steps = false;
  // The .proto files of the game's own messages (its rules, views, events
  // and actions; e.g. v1::PestenView::descriptor()->file()): replays and the
  // HTML site put the values of their enums in words (EnumWords).
  std::vector<const google::protobuf::FileDescriptor*> proto_files;
};

class State {
 public:
  virtual ~State() = default;

  virtual bool IsTerminal() const = 0;

  // Seats that must decide now, ascending. Empty iff terminal or stopped at
  // the decision cap. More than one seat means a simultaneous decision.
  virtual const std::vector<int>& ActingSeats() const = 0;

  // Number of legal actions for an acting seat (at least 1).
  virtual int NumLegalActions(int seat) const = 0;

  // The legal actions of an acting seat, as sent to its bot.
  virtual void FillLegalActions(
      int seat, google::protobuf::RepeatedPtrField<v1::Action>* out) const = 0;

  // Human-readable label of a legal action, for records and replays.
  virtual std::string ActionLabel(int seat, int action) const = 0;

  // The same label, for whoever holds only a request: one of `seat`'s legal
  // actions as FillLegalActions sent it, with the seat's View sent beside it
  // (arena play's human seat, arena replay-bot). Called on any state of the
  // match's game, options and seats (only its rules are used, as for
  // DescribeEvent), it must equal ActionLabel of the state that sent the
  // request (the conformance suite checks it); empty if the game cannot
  // tell, and callers then show the action's fields.
  virtual std::string ActionLabelFromRequest(int seat, const v1::View& view,
                                             const v1::Action& action) const {
    return "";
  }

  // Everything `seat` may know now (the events are added by the runner).
  virtual void FillView(int seat, v1::View* view) const = 0;

  // Applies one choice per acting seat: actions[i] is the index, into
  // ActingSeats()[i]'s legal actions, of its choice. Indices must be legal.
  virtual void Apply(absl::Span<const int> actions) = 0;

  // The result: for a terminal state, by the rules; otherwise by the game's
  // tie-break (used at the decision cap and for forfeits). Fills scores,
  // placements, higher_score_wins and detail.
  virtual v1::MatchResult Result() const = 0;

  // The log of everything that happened, from event number
  // events_discarded() on (0 unless a runner discards what it no longer
  // needs): events()[i] is event number events_discarded() + i.
  const std::vector<LoggedEvent>& events() const { return events_; }
  size_t events_discarded() const { return discarded_; }
  // Event number of the next event logged.
  size_t events_end() const { return discarded_ + events_.size(); }
  // Lets the log forget the events numbered below `first_kept` (the match
  // runner calls it once every seat has been sent them and the record holds
  // them), so that a long match keeps a bounded tail. Amortised: they are
  // erased only once they are at least half of the log (until then they
  // stay, and events_discarded() says where events() starts).
  void DiscardEventsBefore(size_t first_kept);

  // Game-specific constants for MatchStart (card catalogue and the like).
  virtual void FillRules(v1::Rules* rules) const = 0;

  // A one-line human description of an event of this game (card names, not
  // ids), for replays and logs; empty to fall back on the raw message.
  virtual std::string DescribeEvent(const v1::Event& event) const { return ""; }

  // The cards of this match's rules in words, one per card id the views and
  // events use (name, suits, rank, a detail), for replays and the HTML site;
  // any order. Empty: replays show card ids.
  virtual std::vector<v1::ReplayCard> CardCatalogue() const { return {}; }

  // Number of Apply calls so far.
  int64_t step() const { return step_; }

  // The decision cap (0: none), set before the first Apply by whoever runs or
  // re-simulates the match. The Apply that makes step() reach it resolves
  // that step's own consequences, then stops: nothing of the next turn,
  // trick, round or deal happens, ActingSeats() is empty, IsTerminal() stays
  // false unless the step itself ended the game, and Result() ranks as is.
  void set_decision_cap(int64_t cap) { decision_cap_ = cap; }
  int64_t decision_cap() const { return decision_cap_; }

 protected:
  // True once the step reaching the decision cap has been applied.
  bool AtDecisionCap() const {
    return decision_cap_ > 0 && step_ >= decision_cap_;
  }
  LoggedEvent& Log(bool is_public, uint64_t seats_mask) {
    events_.emplace_back();
    LoggedEvent& e = events_.back();
    e.is_public = is_public;
    e.seats_mask = seats_mask;
    e.event.set_step(static_cast<int32_t>(step_));
    return e;
  }
  int64_t step_ = 0;

 private:
  int64_t decision_cap_ = 0;
  std::vector<LoggedEvent> events_;
  size_t discarded_ = 0;  // events forgotten from the front of the log
};

class Game {
 public:
  virtual ~Game() = default;
  virtual const GameInfo& info() const = 0;
  virtual int num_seats() const = 0;
  virtual std::unique_ptr<State> NewInitialState(uint64_t seed) const = 0;
};

// OK if `num_seats` is within the game's range; else an error naming the game
// and the allowed seat counts.
absl::Status CheckSeatCount(const GameInfo& info, int num_seats);

// Places seats by score (ties share a placement); lower scores are better
// unless `higher_is_better`.
std::vector<int> PlacementsFromScores(const std::vector<double>& scores,
                                      bool higher_is_better);

// An enum value in words, for people: its name without the enum's prefix
// (the part its UNSPECIFIED value shares), lower case, "_" as spaces
// ("QUASENBO_SUIT_MOONS" -> "moons"); the zero value is "none".
std::string EnumWords(const google::protobuf::EnumValueDescriptor* value);

// Whether `seat` may see a logged event, and which version of it.
// Returns nullptr if the seat sees nothing of it.
const v1::Event* EventForSeat(const LoggedEvent& e, int seat);

// Ends the process on a broken promise of the State interface (an illegal
// action index given to Apply, a rule that cannot be reached): prints
// "<game>: <message>" to stderr and aborts. Such a call is a bug in the
// caller or the engine, never a bot's doing: bots' choices are checked
// before Apply.
[[noreturn]] void EngineFatal(absl::string_view game,
                              absl::string_view message);

}  // namespace arena

#endif  // ARENA_REFEREE_GAME_API_GAME_H_
