// Quäsenbö: a Decktet shedding game of the Crazy Eights family, by Jens Alfke
// and Ricci Adams. The rules as implemented are in referee/games/quasenbo/rules.md;
// in short:
//
// Rules. The deck is the 36-card basic Decktet (6 Aces, 24 numbered cards 2..9
// with two suits each, 6 Crowns), plus the Excuse, the 4 Pawns and the 4 Courts
// when the options `excuse`, `pawns`, `courts` say so. It is shuffled with the
// match Rng and dealt round-robin from seat 0, `hand_size` cards each (default
// 7); the next card starts the pile (an Excuse turned up goes back into the
// deck, the deck is reshuffled and another card is turned up). Seat 0 plays
// first, then seat+1 mod n. On a turn a seat plays one card that shares a suit
// or a rank with the top of the pile; the Excuse may be played on anything and
// its player decrees one suit for it. A seat that cannot play draws one card at
// a time until it draws a playable card, which it must play at once. When the
// deck is empty, all but the top two pile cards are shuffled into a new deck;
// if that gives nothing, a seat that cannot play passes, and if every seat
// passes in a row the match ends. A play whose card shares one suit with both
// cards below it is a quäsenbö: its player draws 1 card (`double_quasenbo`:
// the length of the longest same-suit run ending at the played card, minus 2).
// A penalty that finds nothing to draw is not taken. The first seat to end a
// turn with no cards wins. Score: cards left (lower is better); placements by
// score, ties share. The same ranking is the tie-break for an unfinished match;
// at the decision cap the capping play's penalty is drawn and the next turn
// (its forced draws and passes) never starts.
//
// Cards. Ids are dense, 0..N-1, in this fixed order: the Aces (Moons, Suns,
// Waves, Leaves, Wyrms, Knots: 0..5), the numbered cards 2..9 in the order of
// the rulings' listing (2 Author, Desert, Origin = 6..8; 3 Journey, Painter,
// Savage = 9..11; ... 9 Pact, Darkness, Merchant = 27..29), the Crowns
// (Huntress, Bard, Sea, End, Calamity, Windfall = 30..35), then when enabled
// the Pawns (Harvest, Watchman, Light Keeper, Borderland), the Courts (Consul,
// Rite, Island, Window) and the Excuse, each group taking the next free ids.
// The catalogue (name, rank, suits, excuse flag) is in QuasenboRules.
//
// Actions. A decision's legal actions are "play card c" for every playable
// card in hand in ascending id order; the Excuse, having the highest id, comes
// last as six actions, one per decreed suit (Moons..Knots). After a forced
// draw the only legal actions are plays of the drawn card (1, or 6 for the
// Excuse). There is no draw or pass action: the state draws and passes by
// itself and logs what happened.
//
// Observation. A seat sees its own hand (sorted ids), the top three pile cards
// (with the decree of an Excuse among them), every seat's hand size, the deck
// and pile sizes, whose turn it is and the passes in a row; and the events it
// may see: its own deal and draws, everyone's plays and passes, the start
// card, the number of cards others draw and the size of a reshuffled deck.
// Never another seat's cards or the order of the deck, which go to the record
// only.
//
// Contract. A QuasenboGame is immutable and may be shared by threads; each
// QuasenboState keeps the card catalogue alive (shared_ptr) and is used by one
// thread at a time. All chance comes from the state's arena::Rng, seeded by
// NewInitialState, so a match is a function of (options, seats, seed, actions).
// Apply must get exactly one legal index for the acting seat (it aborts
// otherwise: the runner checks first). FillLegalActions and FillView replace
// what `out` / `view->quasenbo()` held (view->events is left to the runner);
// a seat that is not acting has no legal actions.
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

// Everything fixed about the cards of one configuration.
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
