// Quäsenbö, the engine: QuasenboGame (one configuration: seats and options,
// with its card catalogue) and QuasenboState (one match), as the referee's
// Game and State, plus test hooks that set up a chosen position.
// Rules as implemented: referee/games/quasenbo/rules.md
//
// A QuasenboGame is immutable and may be shared by threads; each
// QuasenboState keeps the card catalogue alive (shared_ptr) and is used by one
// thread at a time. All chance comes from the state's arena::Rng, seeded by
// NewInitialState, so a match is a function of (options, seats, seed, actions).
// Apply must get exactly one legal index for the acting seat (it aborts
// otherwise: the runner checks first). FillLegalActions and FillView replace
// what `out` / `view->quasenbo()` held (view->events is left to the runner);
// a seat that is not acting has no legal actions. The state draws and passes
// by itself (no draw or pass action) and logs what happened.
#ifndef ARENA_REFEREE_GAMES_QUASENBO_QUASENBO_H_
#define ARENA_REFEREE_GAMES_QUASENBO_QUASENBO_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "arena/v1/quasenbo.pb.h"
#include "referee/game_api/game.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace quasenbo {

inline constexpr int kNumSuits = 6;  // suit values 1..6 (QuasenboSuit)
inline constexpr int kMaxSeats = 5;
inline constexpr int kMaxCards = 45;  // 36 + 4 Pawns + 4 Courts + Excuse
// Pile cards a seat sees; an Excuse keeps its decree while this high.
inline constexpr int kTopVisible = 3;

// Everything fixed about the cards of one configuration. Ids are dense, in
// the fixed order of rules.md ("The cards"): Aces, numbered cards 2..9,
// Crowns, then the enabled Pawns, Courts and Excuse, each group taking the
// next free ids; so the Excuse, when present, has the highest id.
struct Catalogue {
  struct Card {
    std::string name;
    int rank = 0;       // QuasenboRank value; 0 for the Excuse
    uint8_t suits = 0;  // bit (s - 1) for QuasenboSuit s
    bool excuse = false;
  };
  std::vector<Card> cards;  // indexed by id
  int excuse_id = -1;       // -1 without the Excuse
  uint64_t excuse_mask = 0;
  // Cards that may be played on card c as the top of the pile (c not the
  // Excuse), and on an Excuse decreeing suit s (index s, 1..6).
  std::vector<uint64_t> playable_on;
  std::array<uint64_t, kNumSuits + 1> playable_on_decree{};
};

struct QuasenboConfig {
  int num_seats = 2;
  int hand_size = 7;
  bool excuse = false;
  bool pawns = false;
  bool courts = false;
  bool double_quasenbo = false;
};

// The game's static description (name "quasenbo", 2..5 seats, options).
const GameInfo& QuasenboInfo();

// Parses `options` and checks that the deal fits the deck.
absl::StatusOr<std::unique_ptr<Game>> CreateQuasenbo(const Options& options,
                                                     int num_seats);

class QuasenboState;

class QuasenboGame : public Game {
 public:
  // As CreateQuasenbo, typed (for tests and tools).
  static absl::StatusOr<std::unique_ptr<QuasenboGame>> Create(
      const Options& options, int num_seats);

  const GameInfo& info() const override { return QuasenboInfo(); }
  int num_seats() const override { return config_.num_seats; }
  std::unique_ptr<State> NewInitialState(uint64_t seed) const override;

  const QuasenboConfig& config() const { return config_; }
  const Catalogue& catalogue() const { return *catalogue_; }
  int num_cards() const { return static_cast<int>(catalogue_->cards.size()); }
  // The id of the card named `name` ("Ace of Moons", "Forest", "Excuse"), or
  // -1 if this configuration has no such card.
  int CardId(absl::string_view name) const;
  // Fills QuasenboRules (same for every seed of this configuration).
  void FillRules(v1::QuasenboRules* rules) const;

 private:
  QuasenboGame(const QuasenboConfig& config,
               std::shared_ptr<const Catalogue> catalogue)
      : config_(config), catalogue_(std::move(catalogue)) {}
  friend class QuasenboState;

  QuasenboConfig config_;
  std::shared_ptr<const Catalogue> catalogue_;
};

class QuasenboState : public State {
 public:
  // --- Test hooks: set up a chosen position. Not used by the referee. ---
  struct PileCard {
    int card = 0;
    int decree = 0;  // QuasenboSuit; required for an Excuse in the top three
  };
  struct Position {
    std::vector<std::vector<int>> hands;  // by seat
    std::vector<PileCard> pile;           // bottom first, top last; not empty
    std::vector<int> deck;                // next card to draw first
    int current_seat = 0;
    int passes_in_row = 0;
  };
  // A state at `position` with `current_seat` to move (its turn starts now:
  // forced draws and passes happen at once, as in play). Cards the position
  // does not mention are out of play. Each card may appear once.
  static absl::StatusOr<std::unique_ptr<QuasenboState>> FromPositionForTest(
      const QuasenboGame& game, const Position& position, uint64_t seed);
  // A new match dealt from `deck` (a permutation of every card id, the first
  // card dealt first) instead of a shuffled deck; `seed` drives the later
  // chance (start-card reshuffles, deck reshuffles).
  static absl::StatusOr<std::unique_ptr<QuasenboState>> FromDeckOrderForTest(
      const QuasenboGame& game, const std::vector<int>& deck, uint64_t seed);

  // --- State ---
  bool IsTerminal() const override { return terminal_; }
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
  std::string DescribeEvent(const v1::Event& event) const override;

  // --- Inspection (tests, tools) ---
  int num_seats() const { return num_seats_; }
  int current_seat() const { return current_; }  // -1 when terminal
  int passes_in_row() const { return passes_; }
  int winner() const { return winner_; }  // -1: none (yet)
  std::vector<int> Hand(int seat) const;  // sorted ids
  int HandSize(int seat) const;
  std::vector<PileCard> Pile() const;  // bottom first; decree only in top three
  std::vector<int> Deck() const;       // next card to draw first
  int deck_size() const { return static_cast<int>(deck_.size()) - deck_pos_; }
  int pile_size() const { return static_cast<int>(pile_.size()); }
  int cards_in_play() const { return cards_in_play_; }
  // The legal action `action` of the acting seat as (card, decree).
  int LegalCard(int action) const { return legal_[action] & 0xff; }
  int LegalDecree(int action) const { return legal_[action] >> 8; }

 private:
  // "play CARD", with ", decree SUIT" for a decree.
  std::string PlayLabel(int card, int decree) const;
  friend class QuasenboGame;
  QuasenboState(const QuasenboGame& game, uint64_t seed);

  void Deal(const std::vector<uint8_t>& order);
  // Starts `seat`'s turn: draws until playable or passes, moving on to the
  // next seat after a pass, until some seat has a decision or the match ends.
  void StartTurn(int seat);
  // Draws up to `count` penalty cards for `seat`, reshuffling as needed;
  // returns the number drawn (fewer when nothing is left to draw).
  int DrawPenalty(int seat, int count);
  // Draws for `seat` one card at a time until a playable one, reshuffling as
  // needed; returns it, or -1 when nothing is left to draw.
  int DrawUntilPlayable(int seat);
  // Shuffles all but the top two pile cards into the (empty) deck; returns
  // false when that yields no card.
  bool Reshuffle();
  void LogDrew(int seat, const std::vector<int>& cards, bool penalty);
  void SetLegalFromMask(uint64_t mask);
  // Suits (bitmask) of the pile card at `depth` (0 = top) as rules see them.
  uint8_t EffectiveSuits(int depth) const;
  uint64_t PlayableMask() const;
  int PenaltyFor() const;  // after the played card went onto the pile

  std::shared_ptr<const Catalogue> catalogue_;
  QuasenboConfig config_;
  int num_seats_;
  Rng rng_;
  std::array<uint64_t, kMaxSeats> hands_{};
  std::vector<uint8_t> deck_;  // deck_[deck_pos_] is drawn next
  int deck_pos_ = 0;
  std::vector<uint8_t> pile_;    // bottom first
  std::vector<uint8_t> decree_;  // parallel to pile_: an Excuse's decree
  int current_ = 0;
  int passes_ = 0;
  int winner_ = -1;
  bool terminal_ = false;
  int cards_in_play_ = 0;
  std::vector<int> acting_;
  std::vector<uint16_t> legal_;  // card | decree << 8
  std::vector<int> scratch_;     // cards drawn in one batch
};

}  // namespace quasenbo
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_QUASENBO_QUASENBO_H_
