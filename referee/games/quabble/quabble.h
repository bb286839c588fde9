// Quabble, the engine: QuabbleGame (one configuration: seat count and asset
// list) and QuabbleState (one match), as the referee's Game and State. The
// asset list is read and checked in assets.h.
// Rules as implemented: referee/games/quabble/rules.md
//
// A QuabbleGame is immutable and may be shared by threads; each QuabbleState
// keeps the catalogue alive (shared_ptr) and is used by one thread at a time.
// All chance comes from the state's arena::Rng, seeded by NewInitialState.
// Apply must get exactly one legal index per acting seat (it aborts
// otherwise: the runner checks first). FillLegalActions and FillView replace
// what `out` / `view->quabble()` held; a seat that is not acting has no legal
// actions. At the decision cap (State::set_decision_cap) the state stops
// after the capping step's own consequences and sets up no further decision.
#ifndef ARENA_REFEREE_GAMES_QUABBLE_QUABBLE_H_
#define ARENA_REFEREE_GAMES_QUABBLE_QUABBLE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "arena/v1/quabble.pb.h"
#include "referee/game_api/game.h"
#include "referee/game_api/rng.h"
#include "referee/games/quabble/assets.h"

namespace arena {
namespace quabble {

inline constexpr int kMinSeats = 2;
inline constexpr int kMaxSeats = 6;

// The game's static description (name "quabble", 2..6 seats, options).
const GameInfo& QuabbleInfo();

// Parses `options`, loads the asset list and checks that the deal fits.
absl::StatusOr<std::unique_ptr<Game>> CreateQuabble(const Options& options,
                                                    int num_seats);

// One line of a score explanation, in half points.
struct ScoreItem {
  int seat = 0;
  std::string item;
  int half_points = 0;
};

class QuabbleGame : public Game {
 public:
  // As CreateQuabble, typed (for tests and tools).
  static absl::StatusOr<std::unique_ptr<QuabbleGame>> Create(
      const Options& options, int num_seats);

  const GameInfo& info() const override { return QuabbleInfo(); }
  int num_seats() const override { return num_seats_; }
  std::unique_ptr<State> NewInitialState(uint64_t seed) const override;

  const Catalogue& catalogue() const { return *catalogue_; }
  int num_cards() const { return catalogue_->num_cards(); }
  // The lowest card id of asset `name` plus `copy` (0-based), or -1.
  int CardId(absl::string_view name, int copy = 0) const;
  void FillRules(v1::QuabbleRules* rules) const;

 private:
  QuabbleGame(int num_seats, std::shared_ptr<const Catalogue> catalogue)
      : num_seats_(num_seats), catalogue_(std::move(catalogue)) {}
  friend class QuabbleState;

  int num_seats_;
  std::shared_ptr<const Catalogue> catalogue_;
};

class QuabbleState : public State {
 public:
  // --- Test hooks: set up a chosen position. Not used by the referee. ---
  struct Shared {
    int card = 0;
    int seat_a = 0;
    int seat_b = 0;
  };
  struct Position {
    std::vector<std::vector<int>> hands;       // by seat, all the same size
    std::vector<std::vector<int>> treasuries;  // by seat
    std::vector<Shared> shared;
    std::vector<int> king;
    std::vector<int> deck;                     // next card to draw first
    int active_seat = 0;
    bool direction_right = false;
    int round = 1;
  };
  // A state at the start of a round's offers at `position` (or its end, when
  // the hands are empty). Cards the position does not mention are out of play.
  static absl::StatusOr<std::unique_ptr<QuabbleState>> FromPositionForTest(
      const QuabbleGame& game, const Position& position, uint64_t seed);
  // A new match dealt from `deck` (a permutation of every card id, the first
  // card dealt first, round-robin from seat 0) instead of a shuffled deck.
  static absl::StatusOr<std::unique_ptr<QuabbleState>> FromDeckOrderForTest(
      const QuabbleGame& game, const std::vector<int>& deck, uint64_t seed);

  // --- State ---
  bool IsTerminal() const override { return phase_ == kGameOver; }
  const std::vector<int>& ActingSeats() const override { return acting_; }
  int NumLegalActions(int seat) const override;
  void FillLegalActions(
      int seat,
      google::protobuf::RepeatedPtrField<v1::Action>* out) const override;
  std::string ActionLabel(int seat, int action) const override;
  std::string ActionLabelFromRequest(int seat, const v1::View& view,
                                     const v1::Action& action) const override;
  void FillView(int seat, v1::View* view) const override;
  void Apply(absl::Span<const int> actions) override;
  v1::MatchResult Result() const override;
  void FillRules(v1::Rules* rules) const override;
  std::vector<v1::ReplayCard> CardCatalogue() const override;

  // --- Inspection (tests, tools) ---
  int num_seats() const { return num_seats_; }
  v1::QuabblePhase phase() const;
  int round() const { return round_; }
  int active_seat() const { return active_; }
  int direction() const { return dir_; }  // +1 (LEFT) or -1 (RIGHT)
  bool reversal_pending() const { return reverse_pending_; }
  std::vector<int> Hand(int seat) const;  // sorted ids
  const std::vector<uint8_t>& Treasury(int seat) const {
    return treasury_[seat];
  }
  std::vector<Shared> SharedCards() const;
  const std::vector<uint8_t>& King() const { return king_; }
  int deck_size() const { return static_cast<int>(deck_.size()) - deck_pos_; }
  // The card `seat` offered this round, or -1.
  int Offer(int seat) const { return offer_[seat]; }
  // Score of every seat now, in half points, and its explanation.
  std::vector<int> ScoresHalfPoints(std::vector<ScoreItem>* items) const;

 private:
  friend class QuabbleGame;
  enum Phase : uint8_t { kOffer, kClaim, kSnatch, kGameOver };
  QuabbleState(const QuabbleGame& game, uint64_t seed);

  void LogSetup();
  void Deal(const std::vector<uint8_t>& order);
  void StartRound(bool first);
  void NextOffer();       // sets up the next offer decision, or the claims
  void Reveal(absl::Span<const int> claims);
  void ResolveImmediate();  // from immediate_next_; may stop for a snatch
  void FinishRound();     // draws, then the next round or the end
  void SetSnatchOptions(int seat);
  // At the decision cap (the step just applied reached it): clears the
  // acting seats and returns true; no further decision is set up.
  bool StopAtCap();
  int Next(int seat, int step) const {
    return ((seat + step) % num_seats_ + num_seats_) % num_seats_;
  }
  // Neighbours of `seat`: 1 with 2 seats, else left then right.
  int Neighbours(int seat, std::array<int, 2>* out) const;
  bool TreasuryHas(int seat, int card) const;
  void RemoveFromTreasury(int seat, int card);

  std::shared_ptr<const Catalogue> catalogue_;
  int num_seats_;
  Rng rng_;
  Phase phase_ = kOffer;
  int round_ = 0;
  int active_ = 0;
  int dir_ = 1;
  bool reverse_pending_ = false;
  std::array<std::vector<uint8_t>, kMaxSeats> hands_;
  std::array<std::vector<uint8_t>, kMaxSeats> treasury_;
  std::vector<Shared> shared_;
  std::vector<uint8_t> king_;
  std::vector<uint8_t> deck_;  // deck_[deck_pos_] is drawn next
  int deck_pos_ = 0;
  std::array<int, kMaxSeats> offer_{};   // card offered this round, or -1
  std::array<int, kMaxSeats> claimed_{};  // card entered by claim, or -1
  int offers_made_ = 0;
  int offer_seat_ = 0;        // seat to offer next
  int immediate_next_ = 0;    // seats of the immediate-power sweep done
  std::vector<v1::QuabbleClaim> last_claims_;
  int snatch_seat_ = -1;
  int snatch_card_ = -1;
  std::vector<int> acting_;
  // Legal actions of the single acting seat (offer / snatch): card ids, and
  // for a snatch the seat taken from; -1 card = take nothing.
  std::vector<int16_t> legal_card_;
  std::vector<int8_t> legal_seat_;
};

}  // namespace quabble
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_QUABBLE_QUABBLE_H_
