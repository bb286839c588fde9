// Pesten, the engine: PestenGame (one configuration: seats, Jokers, winning
// points) and PestenState (one match of rounds), as the referee's Game and
// State, plus test hooks that set up a chosen position.
// Rules as implemented: referee/games/pesten/rules.md
//
// A PestenGame is immutable and may be shared by threads; a PestenState is
// used by one thread at a time. All chance comes from the state's arena::Rng,
// seeded by NewInitialState, so a match is a function of (options, seats,
// seed, actions). Apply must get one legal index per acting seat (it aborts
// otherwise: the runner checks first); during a 10's pass every seat with
// cards acts at once. FillLegalActions and FillView replace what `out` /
// `view->pesten()` held (view->events is left to the runner); a seat that is
// not acting has no legal actions.
#ifndef ARENA_REFEREE_GAMES_PESTEN_PESTEN_H_
#define ARENA_REFEREE_GAMES_PESTEN_PESTEN_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "arena/v1/pesten.pb.h"
#include "referee/game_api/game.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace pesten {

inline constexpr int kNumSuits = 4;
inline constexpr int kMinSeats = 2;
inline constexpr int kMaxSeats = 6;
inline constexpr int kMaxJokers = 4;
inline constexpr int kFrenchCards = 52;
inline constexpr int kMaxCards = kFrenchCards + kMaxJokers;
inline constexpr int kHandSize = 5;
inline constexpr int kTwoDraw = 2;
inline constexpr int kJokerDraw = 5;
inline constexpr int kAnnouncementPenalty = 2;

// Ranks as PestenRank values.
inline constexpr int kTwo = 2;
inline constexpr int kSeven = 7;
inline constexpr int kEight = 8;
inline constexpr int kTen = 10;
inline constexpr int kJack = 11;
inline constexpr int kQueen = 12;
inline constexpr int kKing = 13;
inline constexpr int kAce = 14;
inline constexpr int kJoker = 15;

// Card ids and their properties: id (suit - 1) * 13 + (rank - 2) for suit
// 1..4 (Clubs..Spades) and rank 2..14, so 0 is the 2 of Clubs and 51 the Ace
// of Spades; Jokers are 52, 53, ... (rules.md, "The cards").
constexpr int CardId(int suit, int rank) { return (suit - 1) * 13 + rank - 2; }
constexpr int JokerId(int index) { return kFrenchCards + index; }
constexpr bool IsJoker(int card) { return card >= kFrenchCards; }
constexpr int RankOf(int card) { return IsJoker(card) ? kJoker : card % 13 + 2; }
constexpr int SuitOf(int card) { return IsJoker(card) ? 0 : card / 13 + 1; }
constexpr bool IsSpecialRank(int rank) {
  return rank == kTwo || rank == kSeven || rank == kEight || rank == kTen ||
         rank == kJack || rank == kKing || rank == kAce || rank == kJoker;
}
constexpr bool IsSpecial(int card) { return IsSpecialRank(RankOf(card)); }
std::string CardName(int card);   // "Queen of Hearts", "Joker 1"
const char* SuitName(int suit);  // "Clubs".."Spades"; "?" otherwise

struct PestenConfig {
  int num_seats = 4;
  int jokers = 2;
  int winning_points = 2;
};

// The game's static description (name "pesten", 2..6 seats, options).
const GameInfo& PestenInfo();

// Parses `options` (jokers 0..4, winning_points 1..100) for 2..6 seats.
absl::StatusOr<std::unique_ptr<Game>> CreatePesten(const Options& options,
                                                   int num_seats);

class PestenGame : public Game {
 public:
  // As CreatePesten, typed (for tests and tools).
  static absl::StatusOr<std::unique_ptr<PestenGame>> Create(
      const Options& options, int num_seats);

  const GameInfo& info() const override { return PestenInfo(); }
  int num_seats() const override { return config_.num_seats; }
  std::unique_ptr<State> NewInitialState(uint64_t seed) const override;

  const PestenConfig& config() const { return config_; }
  int num_cards() const { return kFrenchCards + config_.jokers; }
  void FillRules(v1::PestenRules* rules) const;

 private:
  explicit PestenGame(const PestenConfig& config) : config_(config) {}
  PestenConfig config_;
};

class PestenState : public State {
 public:
  // One decoded legal action.
  struct Move {
    int kind = 0;  // PestenActionKind
    int card = -1;
    int wish = 0;  // PestenSuit
    bool announce = false;
  };

  // --- Test hooks: set up a chosen position. Not used by the referee. ---
  struct Position {
    std::vector<std::vector<int>> hands;  // by seat; none empty
    std::vector<int> pile;                // bottom first, top last; not empty
    std::vector<int> deck;                // next card to draw first
    int current_seat = 0;                 // whose turn it is
    bool follow_up = false;               // the seat continues after a 7/King
    int direction = 1;                    // +1 clockwise, -1 counterclockwise
    int wish = 0;                         // PestenSuit in force (top is a Jack)
    int obligation = 0;                   // pending draw obligation
    int round = 0;                        // dealer = round mod n
    std::vector<int> winning_points;      // by seat; empty: all 0
  };
  // A state at `position` with `current_seat` to act. Cards the position does
  // not mention are out of play until the next round's deal. Each card once.
  static absl::StatusOr<std::unique_ptr<PestenState>> FromPositionForTest(
      const PestenGame& game, const Position& position, uint64_t seed);
  // A new match whose first round is dealt from `deck` (a permutation of
  // every card id; dealt one at a time from the seat left of the dealer, so
  // the first card goes to seat 1, and card 5n is the start card); `seed`
  // drives later chance (reshuffles, later rounds).
  static absl::StatusOr<std::unique_ptr<PestenState>> FromDeckOrderForTest(
      const PestenGame& game, const std::vector<int>& deck, uint64_t seed);

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
  // A one-line description of a Pesten event with card names, for replays.
  std::string DescribeEvent(const v1::Event& event) const override;

  // --- Inspection (tests, tools) ---
  int num_seats() const { return num_seats_; }
  int current_seat() const { return current_; }  // -1 during a pass, at the end
  v1::PestenPhase phase() const { return phase_; }
  int direction() const { return direction_; }
  int wish() const { return wish_; }
  int obligation() const { return obligation_; }
  int top_card() const { return pile_.back(); }
  int round() const { return round_; }
  int dealer() const { return round_ % num_seats_; }
  int winner() const { return winner_; }  // the match winner; -1: none (yet)
  int winning_points(int seat) const { return points_[seat]; }
  std::vector<int> Hand(int seat) const;  // ascending ids
  int HandSize(int seat) const;
  std::vector<int> Pile() const;  // bottom first
  std::vector<int> Deck() const;  // next card to draw first
  int deck_size() const { return static_cast<int>(deck_.size()) - deck_pos_; }
  // The legal action `action` of acting seat `seat`, decoded.
  Move LegalMove(int seat, int action) const;
  // Index of the legal move equal to `m` for `seat`, or -1.
  int FindMove(int seat, const Move& m) const;

 private:
  // The label of a move, with the draw obligation it would take.
  static std::string MoveLabel(const Move& move, int obligation);
  friend class PestenGame;
  PestenState(const PestenGame& game, uint64_t seed);

  // Shuffles every card and deals round `round_`.
  void StartRound();
  void Deal(const std::vector<uint8_t>& order);
  // The effect of `card`, just played (or turned up as the start card) by
  // `seat`; then whoever acts next gets the decision.
  void Effect(int seat, int card);
  void BeginTurn(int seat, bool follow_up);
  void BeginPass(int next_seat);
  void ComputeLegal();
  // Draws up to `count` cards for `seat`, reshuffling as needed.
  void DrawCards(int seat, int count, v1::PestenDrawReason reason);
  bool Reshuffle();
  // Logs the cards in scratch_ as drawn by `seat`.
  void LogDrew(int seat, v1::PestenDrawReason reason);
  void WinRound(int seat);
  // At the decision cap (the step just applied reached it): clears the
  // acting seats and returns true; the next turn or round never starts.
  bool StopAtCap();
  int Next(int seat) const {
    return (seat + direction_ + num_seats_) % num_seats_;
  }
  uint64_t PlayableMask() const;

  PestenConfig config_;
  int num_seats_;
  Rng rng_;
  std::array<uint64_t, kMaxSeats> hands_{};
  std::array<int, kMaxSeats> points_{};
  std::vector<uint8_t> deck_;  // deck_[deck_pos_] is drawn next
  int deck_pos_ = 0;
  std::vector<uint8_t> pile_;  // bottom first
  v1::PestenPhase phase_ = v1::PESTEN_PHASE_PLAY;
  int current_ = 0;
  int direction_ = 1;
  int wish_ = 0;
  int obligation_ = 0;
  int round_ = 0;
  int pass_next_ = 0;  // who moves after the 10's pass
  int winner_ = -1;
  bool terminal_ = false;
  std::vector<int> round_winners_;
  std::vector<int> acting_;
  std::vector<uint16_t> legal_;  // the single acting seat's moves, encoded
  std::vector<int> scratch_;     // cards drawn in one batch
};

}  // namespace pesten
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_PESTEN_PESTEN_H_
