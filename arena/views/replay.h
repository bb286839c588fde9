// Replays people and tools can read: `arena replay` (text or --json) and the
// data behind the HTML replay pages (arena/views/html.h); the words of a
// seat's requests for whoever holds only those (ReferenceState,
// LegalActionText, RequestText: `arena play`'s human seat, `arena
// replay-bot`, `arena check-bot`).
//
// BuildReplay re-simulates a record (checking it as `arena verify` does) and
// gathers, step by step, the events in words with card names, what every
// seat saw (its View before each decision, and its own version of each
// event), the decisions with every legal action's label, and the result. With
// a seat given, the replay holds only what that seat saw: events it was not
// told are left out, redacted events appear in the version it was told, and
// only its own views and decisions are kept.
//
// Card fields (int32 fields named in CardFieldNames()) are shown by name from
// the match's catalogue; every field is shown, proto3 defaults included (card
// 0 is a card, seat 0 a seat).
//
// Thread safety: plain functions of their arguments (ReferenceState returns
// a State the caller owns); safe from any thread.
#ifndef ARENA_ARENA_VIEWS_REPLAY_H_
#define ARENA_ARENA_VIEWS_REPLAY_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/v1/record.pb.h"
#include "arena/v1/replay.pb.h"
#include "google/protobuf/message.h"
#include "referee/game_api/game.h"

namespace arena {

struct ReplayOptions {
  int seat = -1;       // -1: show everything; else only what this seat saw
  // What a spectator may see (seat must be -1; the replay's seat is then
  // kSpectatorSeat): public events in full, private events in the version
  // the seats not told them get (else not at all), no seat's view, and of
  // each decision only who acted, how and how long it took (no action, label,
  // legal actions or fault detail, which may name a hidden card); the
  // header without its seed (which would deal every hand again), a forfeit
  // without its detail. The live view of a match in progress
  // (arena/live/live_site.h) is this and nothing else.
  bool spectator = false;
  int64_t step = -1;   // -1: the whole match; else stop after this step
  // Whether the decisions carry their bots' notes (SeatAction.note; with a
  // seat, that seat's own only; never a spectator's). `arena replay` shows
  // them; the public site only when told (HtmlOptions::show_notes), since a
  // contest's entrants may read each other's replays.
  bool notes = false;
  std::string source = "record";  // what errors name (the record's file)
  // BuildReplay only: keep the last this many steps (-1: every one), the
  // earlier ones dropped as the replay is made (memory: twice this many
  // steps at most). Each step keeps its number (ReplayStep.step).
  int64_t last_steps = -1;
};

// Replay.seat of a spectator's replay.
inline constexpr int kSpectatorSeat = -2;

// Receives a replay while it is made (StreamReplay), one part at a time, so
// that what a replay costs in memory is its largest step, not its steps
// times their size (a 20,000-decision Pesten match's steps take about 2 GB
// as one v1::Replay).
class ReplaySink {
 public:
  virtual ~ReplaySink() = default;
  // First, once: a Replay with the header, seat, cards and card_fields set
  // (no step, forfeit or result).
  virtual absl::Status Begin(const v1::Replay& head) = 0;
  // Each step, in order. The sink may keep or move from it; the builder
  // holds no other step, and clears this one once the call returns.
  virtual absl::Status Step(v1::ReplayStep& step) = 0;
  // Last, once the record is read whole and verified: a Replay with only
  // forfeit, result and finished set.
  virtual absl::Status End(const v1::Replay& tail) = 0;
};

// Re-simulates `lines` into `sink`: the record is read once, each step handed
// over as soon as it is whole. The sink's first error stops what it is given
// (the record is still read to its end) and is returned. Errors as
// BuildReplay's; a record that does not verify may have had steps handed
// over before the error (End is then not called).
absl::Status StreamReplay(const std::vector<v1::RecordLine>& lines, const ReplayOptions& options,
                          ReplaySink& sink);

// Re-simulates `lines` into a replay (StreamReplay into one message: every
// step at once; for a long match, stream it instead). Errors: a record that
// does not verify, a seat outside the match, a negative step other than -1.
absl::StatusOr<v1::Replay> BuildReplay(const std::vector<v1::RecordLine>& lines,
                                       const ReplayOptions& options);

// The display catalogue of a match's cards (State::CardCatalogue, the game's
// own), sorted by id.
std::vector<v1::ReplayCard> CardCatalogue(const State& state);

// Field names whose int32 values are card ids, in every game's messages.
const std::vector<std::string>& CardFieldNames();

// One line of words for any message: every field, cards by name, enums as
// words ("no reds" for QUODLIBET_CONTRACT_NO_REDS).
std::string DescribeMessage(const google::protobuf::Message& message,
                            const std::vector<v1::ReplayCard>& cards);

// One line of words for an event, as the game of `state` tells it
// (State::DescribeEvent; `state` may be null), else from its fields.
std::string EventText(const State* state, const v1::Event& event,
                      const std::vector<v1::ReplayCard>& cards);

// The game's part of a View, Action or Rules (the member of its oneof that
// is set, unpacked from an Any for a game outside the bundled ones) in
// words, as DescribeMessage says it; empty if none is set.
std::string DescribeGamePart(const google::protobuf::Message& message,
                             const std::vector<v1::ReplayCard>& cards);

// A state of the match that `start` opens (its game, options and seats; any
// deal), for the game's words of a seat's events and legal actions; null if
// the game is unknown here or its rules differ from the ones `start` carries.
std::unique_ptr<State> ReferenceState(const v1::MatchStart& start);

// A request's legal action `index` in the game's words: its label as records
// and replays give it (State::ActionLabelFromRequest of `reference`, which
// may be null), else its fields (DescribeGamePart).
std::string LegalActionText(const State* reference, const v1::DecisionRequest& request,
                            int index, const std::vector<v1::ReplayCard>& cards);

// A request in the game's words: "step 12, decision 9, 2 legal: draw a card |
// play Jack of Hearts, wish Clubs", each legal action by LegalActionText
// with the words of the match `start` opens.
std::string RequestText(const v1::MatchStart& start, const v1::DecisionRequest& request);

// The replay as text, step by step.
void PrintReplayText(const v1::Replay& replay, std::ostream& out);

// The replay as one JSON document (every field, proto field names).
std::string ReplayToJson(const v1::Replay& replay);

// A sink that prints what PrintReplayText prints, as the steps come (it
// holds one step back: whether a step is the last changes its words).
class ReplayTextSink : public ReplaySink {
 public:
  explicit ReplayTextSink(std::ostream& out) : out_(out) {}
  absl::Status Begin(const v1::Replay& head) override;
  absl::Status Step(v1::ReplayStep& step) override;
  absl::Status End(const v1::Replay& tail) override;

 private:
  void Print(const v1::ReplayStep& step, bool last, bool finished);
  std::ostream& out_;
  v1::Replay head_;  // no steps
  std::vector<v1::ReplayCard> cards_;
  v1::ReplayStep pending_;
  bool have_pending_ = false;
  int64_t last_shown_ = -1;  // the last step with actions (or a seat's view)
};

// A sink that writes the document ReplayToJson gives, byte for byte, as the
// steps come (and a newline after it); an error once `out` fails.
class ReplayJsonSink : public ReplaySink {
 public:
  explicit ReplayJsonSink(std::ostream& out) : out_(out) {}
  absl::Status Begin(const v1::Replay& head) override;
  absl::Status Step(v1::ReplayStep& step) override;
  absl::Status End(const v1::Replay& tail) override;

 private:
  std::ostream& out_;
  std::string buffer_;  // written out every 64 KiB
  bool first_step_ = true;
};

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_REPLAY_H_
