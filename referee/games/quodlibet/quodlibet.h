// Quodlibet, the engine: QuodlibetGame (one configuration: ruleset,
// kingdoms, fixed contract) and QuodlibetState (one partie), as the
// referee's Game and State, plus a test hook that fixes the first deals.
// Rules as implemented: referee/games/quodlibet/rules.md
//
// A QuodlibetGame is immutable and may be shared by threads; a
// QuodlibetState is used by one thread at a time. All chance comes from the
// state's arena::Rng, seeded by NewInitialState (deals, Open Trousers slot
// orders), so a match is a function of (options, seed, actions). Apply must
// get one legal index for the acting seat (it aborts otherwise: the runner
// checks first). FillLegalActions and FillView replace what they fill.
// Forced moves (a contract that is the only one left, Quadrature's
// additions, Snack's Unters and single-possibility steps) are made by the
// state itself and logged as events, never offered as decisions.
#ifndef ARENA_REFEREE_GAMES_QUODLIBET_QUODLIBET_H_
#define ARENA_REFEREE_GAMES_QUODLIBET_QUODLIBET_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "arena/v1/quodlibet.pb.h"
#include "referee/game_api/game.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace quodlibet {

inline constexpr int kNumSeats = 4;
inline constexpr int kNumCards = 32;
inline constexpr int kDealsPerKingdom = 12;

// Card helpers: id = 8 * suit + rank, suit 0..3 = Hearts, Bells, Leaves,
// Acorns, rank 0..7 = 7, 8, 9, 10, Unter, Ober, King, Ace (rules.md, "Cards").
inline constexpr int CardId(int suit, int rank) { return suit * 8 + rank; }
inline constexpr int SuitOf(int card) { return card >> 3; }
inline constexpr int RankOf(int card) { return card & 7; }
inline constexpr int kHearts = 0, kBells = 1, kLeaves = 2, kAcorns = 3;
inline constexpr int kSeven = 0, kEight = 1, kNine = 2, kTen = 3, kUnter = 4,
                     kOber = 5, kKing = 6, kAce = 7;
std::string CardName(int card);  // "Hearts King"

using Contract = v1::QuodlibetContract;
using Ruleset = v1::QuodlibetRuleset;

struct QuodlibetConfig {
  Ruleset ruleset = v1::QUODLIBET_RULESET_BADENIA;
  int kingdoms = 4;
  Contract fixed_contract = v1::QUODLIBET_CONTRACT_UNSPECIFIED;
  int deals_per_kingdom() const {
    return fixed_contract == v1::QUODLIBET_CONTRACT_UNSPECIFIED
               ? kDealsPerKingdom
               : 1;
  }
};

// The ruleset's twelve contracts, in the order of the docs.
const std::vector<Contract>& ContractsOf(Ruleset ruleset);
// Encyclopedia wheel (1..3) of a contract; 0 if none.
int WheelOf(Contract contract);
// "minus", "first_three_and_last", ... (option values) and display names.
std::string ContractOptionName(Contract contract);
std::string ContractDisplayName(Contract contract);

// The game's static description (name "quodlibet", 4 seats, options).
const GameInfo& QuodlibetInfo();

absl::StatusOr<std::unique_ptr<Game>> CreateQuodlibet(const Options& options,
                                                      int num_seats);

class QuodlibetGame : public Game {
 public:
  static absl::StatusOr<std::unique_ptr<QuodlibetGame>> Create(
      const Options& options, int num_seats);
  const GameInfo& info() const override { return QuodlibetInfo(); }
  int num_seats() const override { return kNumSeats; }
  std::unique_ptr<State> NewInitialState(uint64_t seed) const override;
  const QuodlibetConfig& config() const { return config_; }
  void FillRules(v1::QuodlibetRules* rules) const;

 private:
  explicit QuodlibetGame(const QuodlibetConfig& config) : config_(config) {}
  QuodlibetConfig config_;
};

class QuodlibetState : public State {
 public:
  // --- Test hook: a partie whose first deals use the given deck orders
  // (each a permutation of 0..31; seat s is dealt cards [8s, 8s+8), in Snack
  // [4s, 4s+4) with the packets after them). Later deals are shuffled.
  static absl::StatusOr<std::unique_ptr<QuodlibetState>> FromDeckOrdersForTest(
      const QuodlibetGame& game, const std::vector<std::vector<int>>& decks,
      uint64_t seed);

  // --- State ---
  bool IsTerminal() const override { return phase_ == kPhaseOver; }
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
  Contract contract() const { return static_cast<Contract>(contract_); }
  int current_seat() const { return current_; }  // -1 when terminal
  int kingdom() const { return kingdom_; }
  int deal() const { return deal_; }
  std::vector<int> Hand(int seat) const;        // sorted ids
  std::vector<int> Slots(int seat) const;       // Open Trousers slot order
  int total(int seat) const { return totals_[seat]; }
  // Penalties of the last scored deal, by seat.
  const std::array<int, kNumSeats>& last_penalties() const {
    return last_penalties_;
  }
  int censuses() const { return censuses_; }
  int packets_left() const;
  // The card (or slot, contract, ...) behind a legal action: encoded as
  // kActCard + card, kActSlot + slot, kActContract + contract, kActPickUp,
  // kActEndTurn.
  int LegalAt(int action) const { return legal_[action]; }
  static constexpr int kActCard = 0;
  static constexpr int kActSlot = 100;
  static constexpr int kActContract = 200;
  static constexpr int kActPickUp = 300;
  static constexpr int kActEndTurn = 301;

 private:
  // The label of an encoded legal action (kAct*) in a phase (kPhase*).
  static std::string LegalLabel(int action, int phase);
  enum Phase {
    kPhaseChoose,
    kPhaseTricks,
    kPhaseQuadrature,
    kPhaseSnack,
    kPhaseOver
  };
  friend class QuodlibetGame;
  QuodlibetState(const QuodlibetGame& game, uint64_t seed);

  void StartDeal();
  void DealCards();        // shuffles (or uses the test deck) and deals
  void ShowHands();        // after the contract is known and cards dealt
  void BeginPlay();
  void SetChoice();
  void ChooseContract(int contract, bool forced);
  uint32_t ContractsLeftMask() const;  // bit c: contract c may be chosen now
  // Tricks.
  void SetTrickLegal();
  void PlayToTrick(int seat, int card, int slot);
  void ScoreTricks(std::array<int, kNumSeats>* pen) const;
  // Quadrature.
  void QuadratureLead(int card);
  void SetQuadratureLegal();
  // Snack: runs forced steps from current_ until a decision or the end.
  void SnackRun();
  uint32_t SnackLayable(int seat) const;
  // Lays out `card`; returns true if the seat went out (its turn is over).
  bool SnackLay(int seat, int card, bool forced);
  void SnackPickUp(int seat, bool forced);
  void EndSnackTurn();
  // Censuses: returns true if the deal ended (third census).
  bool Census(int went_out);
  void EndDeal();
  int NextSeat(int s) const { return (s + 1) & 3; }
  void SetActing(int seat) { current_ = seat; acting_.assign(1, seat); }
  // At the decision cap (the step just applied reached it): clears the
  // acting seat and returns true; nothing of the next turn, trick or deal
  // happens.
  bool StopAtCap();

  QuodlibetConfig config_;
  Rng rng_;
  std::vector<std::vector<int>> test_decks_;
  // Partie.
  int kingdom_ = 0;
  int deal_ = 0;
  std::array<uint32_t, kNumSeats> played_contracts_{};  // by beer king
  std::array<int, kNumSeats> totals_{};
  std::array<int, kNumSeats> last_penalties_{};
  struct DealLine {
    int kingdom;
    int deal;
    int contract;
    std::array<int, kNumSeats> penalties;
  };
  std::vector<DealLine> history_;
  // Deal.
  Phase phase_ = kPhaseChoose;
  int contract_ = 0;
  bool dealt_ = false;
  int current_ = -1;
  std::array<uint32_t, kNumSeats> hands_{};
  std::array<std::vector<uint8_t>, kNumSeats> slots_;  // Open Trousers
  uint32_t played_ = 0;  // cards played / laid out this deal
  std::vector<uint8_t> played_order_;
  // Tricks.
  int leader_ = 0;
  int trick_number_ = 1;
  std::array<uint8_t, kNumSeats> trick_cards_{};
  int trick_size_ = 0;
  std::array<int, kNumSeats> tricks_taken_{};
  struct TrickDone {
    std::array<uint8_t, kNumSeats> cards;  // in order of play
    int leader;
    int winner;
  };
  std::vector<TrickDone> tricks_;
  // Quadrature and Snack.
  int censuses_ = 0;
  std::array<int, kNumSeats> census_pen_{};
  std::vector<uint8_t> packets_;  // Snack: packet cards, next first
  int packet_pos_ = 0;
  std::array<int8_t, 4> row_low_{};   // Snack: lowest rank laid, -1 none
  std::array<int8_t, 4> row_high_{};
  bool laid_this_turn_ = false;
  bool turn_fresh_ = false;  // Snack: current_'s turn has not begun
  int passes_in_row_ = 0;
  int deal_serial_ = 0;
  std::array<bool, kNumSeats> hand_known_{};  // seat was shown its own hand
  std::vector<int> acting_;
  std::vector<int16_t> legal_;
};

}  // namespace quodlibet
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_QUODLIBET_QUODLIBET_H_
