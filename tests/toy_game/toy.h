// The toy game (rules.md): a few cards, hidden hands, one card played by
// every seat at once each round, the highest card alone takes the round.
// It exists to prove the path of docs/adding-a-game.md: it lives outside
// referee/games/, is built only when configured with
// -DARENA_EXTRA_GAMES=tests/toy_game, and passes the conformance suite.
// Its messages (toy.proto) travel packed in the protocol's `other` slots.
#ifndef ARENA_TESTS_TOY_GAME_TOY_H_
#define ARENA_TESTS_TOY_GAME_TOY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/game_api/game.h"
#include "referee/game_api/rng.h"
#include "toy.pb.h"

namespace toy {

// The game's messages (toy.proto, package toy.v1).
using v1::Dealt;
using v1::Revealed;
using v1::RoundWon;
using v1::ToyAction;
using v1::ToyEvent;
using v1::ToyRules;
using v1::ToyView;

// What the registry calls (arena_add_game's INFO and CREATE).
const arena::GameInfo& ToyInfo();
absl::StatusOr<std::unique_ptr<arena::Game>> CreateToy(const arena::Options& options,
                                                        int num_seats);

constexpr int kDeckSize = 10;  // card ids 0..9, ranks 1..10

class ToyGame : public arena::Game {
 public:
  ToyGame(int num_seats, int hand_size) : num_seats_(num_seats), hand_size_(hand_size) {}
  const arena::GameInfo& info() const override { return ToyInfo(); }
  int num_seats() const override { return num_seats_; }
  int hand_size() const { return hand_size_; }
  std::unique_ptr<arena::State> NewInitialState(uint64_t seed) const override;

 private:
  int num_seats_;
  int hand_size_;
};

class ToyState : public arena::State {
 public:
  // Deals from the seeded generator: the match is a function of the seed
  // and the actions.
  ToyState(const ToyGame& game, uint64_t seed) : ToyState(game, seed, {}) {}
  // For tests: deals `deck` in this order (seat 0's cards first) instead.
  ToyState(const ToyGame& game, uint64_t seed, std::vector<int> deck);

  bool IsTerminal() const override { return round_ == hand_size_; }
  const std::vector<int>& ActingSeats() const override { return acting_; }
  int NumLegalActions(int seat) const override;
  void FillLegalActions(
      int seat, google::protobuf::RepeatedPtrField<arena::v1::Action>* out) const override;
  std::string ActionLabel(int seat, int action) const override;
  std::string ActionLabelFromRequest(int seat, const arena::v1::View& view,
                                     const arena::v1::Action& action) const override;
  void FillView(int seat, arena::v1::View* view) const override;
  void Apply(absl::Span<const int> actions) override;
  arena::v1::MatchResult Result() const override;
  void FillRules(arena::v1::Rules* rules) const override;
  std::string DescribeEvent(const arena::v1::Event& event) const override;
  std::vector<arena::v1::ReplayCard> CardCatalogue() const override;

  // For tests: a seat's cards, ascending; rounds won by seat.
  const std::vector<int>& Hand(int seat) const { return hands_[seat]; }
  const std::vector<int>& Scores() const { return scores_; }

 private:
  void SetActing();
  // Logs `e` for everyone, or for `seats_mask` only, telling the others
  // `redacted` if given.
  void LogToy(const ToyEvent& e, bool is_public, uint64_t seats_mask,
              const ToyEvent* redacted = nullptr);

  int num_seats_;
  int hand_size_;
  arena::Rng rng_;
  int round_ = 0;
  std::vector<std::vector<int>> hands_;  // ascending
  std::vector<int> played_;              // every card revealed, in order
  std::vector<int> scores_;
  std::vector<int> acting_;
};

// The card's name: its rank, "1" .. "10".
std::string CardName(int card);

}  // namespace toy

#endif  // ARENA_TESTS_TOY_GAME_TOY_H_
