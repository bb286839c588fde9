// Quabble: every ruling pinned by a test. End positions are set up with the
// test hooks and their scores worked out by hand, written literally below
// (card ids of the shipped list: Snorkel Pigs 0-7, Bearded Hoppers 8-14,
// Magic Carrots 15-21, Doom Snails 22-26, Royal Poofins 27-32, Very Rare
// Eggs 33-37, Grungles 38-44, Deathslayers 45-49, Cursed Sushi 50-53, Red
// Snatcher 54-56, Misdirection 57-59).
#include <unistd.h>

#include <cstdio>
#include <numeric>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "arena/records/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/games/quabble/quabble.h"
#include "tests/test_util.h"
#include "referee/games/registry.h"
#include "tests/test_util.h"

namespace arena {
namespace quabble {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Position = QuabbleState::Position;

// Card ids of the shipped list.
constexpr int kPig = 0, kHopper = 8, kCarrot = 15, kSnail = 22, kPoofin = 27,
              kEgg = 33, kGrungle = 38, kSlayer = 45, kSushi = 50,
              kSnatcher = 54, kMisdirection = 57;

std::unique_ptr<QuabbleGame> MakeGame(int seats, Options o = {}) {
  auto g = QuabbleGame::Create(o, seats);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : nullptr;
}

std::unique_ptr<QuabbleState> At(const QuabbleGame& g, Position p) {
  if (p.hands.empty()) p.hands.assign(g.num_seats(), {});
  if (p.treasuries.empty()) p.treasuries.assign(g.num_seats(), {});
  auto s = QuabbleState::FromPositionForTest(g, p, 1);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

std::vector<double> Scores(const QuabbleState& s) {
  v1::MatchResult r = s.Result();
  std::vector<double> out(r.scores().begin(), r.scores().end());
  // The score lines of each seat add up to its score.
  std::vector<double> sum(out.size(), 0);
  for (const auto& l : r.score_lines()) sum[l.seat()] += l.points();
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_DOUBLE_EQ(sum[i], out[i]) << "score lines of seat " << i;
  }
  return out;
}

// Scores of an end position: the given treasuries, no hands, no deck.
std::vector<double> EndScores(int seats,
                              std::vector<std::vector<int>> treasuries,
                              std::vector<QuabbleState::Shared> shared = {},
                              std::vector<int> king = {}) {
  auto g = MakeGame(seats);
  Position p;
  p.treasuries = std::move(treasuries);
  p.shared = std::move(shared);
  p.king = std::move(king);
  auto s = At(*g, p);
  EXPECT_TRUE(s->IsTerminal());
  return Scores(*s);
}

// ---------------------------------------------------------------------------
// The asset list

TEST(QuabbleSetUp, TestHooksRefuseABadDeckOrPositionSayingWhy) {
  auto g = MakeGame(2);
  std::vector<int> deck(g->num_cards());
  std::iota(deck.begin(), deck.end(), 0);
  deck[3] = g->num_cards();  // no such card
  EXPECT_EQ(QuabbleState::FromDeckOrderForTest(*g, deck, 1).status().message(),
            absl::StrCat("deck order: bad or repeated card ", g->num_cards()));
  Position p;
  p.hands = {{kPig}, {kHopper}};
  p.treasuries = {{kCarrot}, {kPig}};  // the Pig is in a hand already
  EXPECT_EQ(QuabbleState::FromPositionForTest(*g, p, 1).status().message(),
            "position: bad or repeated card 0");
  p.treasuries = {{kCarrot}, {}};
  p.shared = {{kSnail, 0, 0}};
  EXPECT_EQ(QuabbleState::FromPositionForTest(*g, p, 1).status().message(),
            "position: bad seats of a shared card");
}

TEST(QuabbleAssets, ShippedListIsTheRulingsList) {
  auto g = MakeGame(4);
  const Catalogue& c = g->catalogue();
  EXPECT_EQ(c.num_cards(), 60);
  ASSERT_EQ(c.assets.size(), 11u);
  std::vector<std::string> names;
  std::vector<int> counts, values;
  for (const auto& a : c.assets) {
    names.push_back(a.name);
    counts.push_back(a.count);
    values.push_back(a.value);
  }
  EXPECT_THAT(names,
              ElementsAre("Snorkel Pigs", "Bearded Hoppers", "Magic Carrots",
                          "Doom Snails", "Royal Poofins", "Very Rare Eggs",
                          "Grungles", "Deathslayers", "Cursed Sushi",
                          "Red Snatcher", "Misdirection"));
  EXPECT_THAT(counts, ElementsAre(8, 7, 7, 5, 6, 5, 7, 5, 4, 3, 3));
  EXPECT_THAT(values, ElementsAre(1, 2, 1, 3, 2, 0, -3, 1, 5, 2, 1));
  EXPECT_EQ(g->CardId("Bearded Hoppers"), kHopper);
  EXPECT_EQ(g->CardId("Misdirection", 2), 59);
  EXPECT_EQ(c.source, "default");
}

TEST(QuabbleAssets, CompiledInListIsTheShippedFile) {
  const std::string path =
      std::string(ARENA_SOURCE_DIR) + "/referee/games/quabble/assets.textproto";
  const std::string text = arena::testing::ReadFile(path);
  ASSERT_FALSE(text.empty()) << path << " not found";
  EXPECT_EQ(text, std::string(DefaultAssetListText()));
}

TEST(QuabbleAssets, RulesCarryTheListAndTheCardKinds) {
  auto g = MakeGame(3);
  auto s = g->NewInitialState(1);
  v1::Rules rules;
  s->FillRules(&rules);
  const v1::QuabbleRules& q = rules.quabble();
  EXPECT_EQ(q.assets_size(), 11);
  EXPECT_EQ(q.card_assets_size(), 60);
  EXPECT_EQ(q.card_assets(kHopper), 1);
  EXPECT_EQ(q.card_assets(59), 10);
  EXPECT_EQ(q.hand_size(), 5);
  EXPECT_EQ(q.asset_list_source(), "default");
  EXPECT_EQ(q.assets(2).target(), "Bearded Hoppers");
}

// ---------------------------------------------------------------------------
// Bad configuration and rejected card files

TEST(QuabbleOptions, SeatCountAndUnknownOptionsAreRejected) {
  for (int seats : {1, 7}) {
    auto g = CreateGame("quabble", {}, seats);
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(g.status().message(), HasSubstr("seats is not allowed (2 to 6)"));
  }
  auto g = CreateGame("quabble", {{"asset", "x"}}, 3);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("unknown option 'asset'"));
  for (int seats = 2; seats <= 6; ++seats) {
    EXPECT_TRUE(CreateGame("quabble", {}, seats).ok()) << seats;
  }
  EXPECT_EQ(QuabbleInfo().default_seats, 4);
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/quabble-" +
                           std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  testing::RemoveAtExit(path);
  return path;
}

// The error for `text` as the asset file of a `seats`-seat game.
std::string Rejection(const std::string& name, const std::string& text,
                      int seats = 4) {
  const std::string path = WriteTemp(name, text);
  auto g = CreateGame("quabble", {{"assets", path}}, seats);
  if (g.ok()) return "accepted";
  const std::string m(g.status().message());
  EXPECT_THAT(m, HasSubstr(path)) << "the error names the file";
  return m;
}

// A valid asset entry of 30 cards, to pad lists to a playable size.
const char kPad[] =
    "assets { name: \"Pad\" count: 30 value: 1 power: QUABBLE_POWER_NONE }\n";

TEST(QuabbleAssetFile, AGoodFileIsLoadedAndUsed) {
  const std::string path = WriteTemp(
      "good.textproto",
      std::string("# two kinds\n") + kPad +
          "assets { name: \"Gems\" count: 4 value: 3 "
          "power: QUABBLE_POWER_SET_SQUARE }\n");
  auto g = QuabbleGame::Create({{"assets", path}}, 6);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)->num_cards(), 34);
  EXPECT_EQ((*g)->catalogue().source, path);
  EXPECT_EQ((*g)->CardId("Gems"), 30);
}

TEST(QuabbleAssetFile, ParseErrorNamesLineAndColumn) {
  EXPECT_THAT(Rejection("syntax.textproto",
                        std::string(kPad) + "assets {\n  name: \"X\"\n  count 3\n}\n"),
              HasSubstr("line 4, column 9: Expected \":\""));
  EXPECT_THAT(Rejection("field.textproto",
                        std::string(kPad) + "assets { name: \"X\" colour: 3 }\n"),
              HasSubstr("line 2, column 20: Message type "
                        "\"arena.v1.QuabbleAsset\" has no field named "
                        "\"colour\""));
  EXPECT_THAT(Rejection("open.textproto", std::string(kPad) + "assets {\n"),
              HasSubstr("line 3"));
}

TEST(QuabbleAssetFile, UnknownPowerIsRejected) {
  EXPECT_THAT(
      Rejection("power.textproto",
                std::string(kPad) +
                    "assets {\n  name: \"X\"\n  count: 1\n  power: "
                    "QUABBLE_POWER_FLY\n}\n"),
      HasSubstr("line 5, column 10: Unknown enumeration value of "
                "\"QUABBLE_POWER_FLY\" for field \"power\""));
  EXPECT_THAT(Rejection("power42.textproto",
                        std::string(kPad) +
                            "assets {\n  name: \"X\"\n  count: 1\n  power: 42\n}\n"),
              HasSubstr("line 5, column 3: asset 'X': unknown power 42"));
  EXPECT_THAT(Rejection("nopower.textproto",
                        std::string(kPad) + "assets { name: \"X\" count: 1 }\n"),
              HasSubstr("line 2, column 1: asset 'X': no power given"));
}

TEST(QuabbleAssetFile, CountAndValueOutOfRangeAreRejected) {
  EXPECT_THAT(
      Rejection("count0.textproto",
                std::string(kPad) +
                    "assets { name: \"X\" count: 0 power: QUABBLE_POWER_NONE }\n"),
      HasSubstr("line 2, column 20: asset 'X': count 0 is out of range (1 to 60)"));
  EXPECT_THAT(
      Rejection("count61.textproto",
                std::string(kPad) +
                    "assets { name: \"X\" count: 61 power: QUABBLE_POWER_NONE }\n"),
      HasSubstr("line 2, column 20: asset 'X': count 61 is out of range"));
  EXPECT_THAT(Rejection("value.textproto",
                        std::string(kPad) +
                            "assets {\n  name: \"X\"\n  count: 2\n  value: -21\n"
                            "  power: QUABBLE_POWER_NONE\n}\n"),
              HasSubstr("line 5, column 3: asset 'X': value -21 is out of "
                        "range (-20 to 20)"));
}

TEST(QuabbleAssetFile, DuplicateAndMissingNamesAreRejected) {
  EXPECT_THAT(Rejection("dup.textproto",
                        std::string(kPad) + "\n" + kPad),
              HasSubstr("line 3, column 10: duplicate name 'Pad' (also asset 1)"));
  EXPECT_THAT(
      Rejection("noname.textproto",
                std::string(kPad) +
                    "assets { count: 2 power: QUABBLE_POWER_NONE }\n"),
      HasSubstr("line 2, column 1: asset 2 has no name"));
}

TEST(QuabbleAssetFile, PowerParametersAreChecked) {
  const std::string base = std::string(kPad) +
                           "assets { name: \"H\" count: 2 value: 2 "
                           "power: QUABBLE_POWER_NEIGHBOUR_BONUS amount: 1 }\n";
  // A bonus of 0 is no bonus (left out, the amount is the table's 1).
  EXPECT_THAT(Rejection("amount0.textproto",
                        std::string(kPad) +
                            "assets { name: \"H\" count: 2 power: "
                            "QUABBLE_POWER_NEIGHBOUR_BONUS amount: 0 }\n"),
              HasSubstr("line 2, column 66: asset 'H': amount 0 is out of "
                        "range for QUABBLE_POWER_NEIGHBOUR_BONUS (1 to 20)"));
  EXPECT_THAT(Rejection("amount-none.textproto",
                        std::string(kPad) +
                            "assets { name: \"G\" count: 2 power: "
                            "QUABBLE_POWER_NONE amount: 4 }\n"),
              HasSubstr("line 2, column 55: asset 'G': QUABBLE_POWER_NONE "
                        "takes no amount"));
  EXPECT_THAT(Rejection("threshold.textproto",
                        std::string(kPad) +
                            "assets { name: \"S\" count: 2 power: "
                            "QUABBLE_POWER_CURSE amount: -5 threshold: 0 }\n"),
              HasSubstr("line 2, column 67: asset 'S': threshold 0 is out of "
                        "range (1 to 60)"));
  EXPECT_THAT(Rejection("notarget.textproto",
                        base + "assets { name: \"C\" count: 2 power: "
                               "QUABBLE_POWER_DOUBLE_TARGET }\n"),
              HasSubstr("line 3, column 1: asset 'C': "
                        "QUABBLE_POWER_DOUBLE_TARGET needs a target asset"));
  EXPECT_THAT(Rejection("badtarget.textproto",
                        base + "assets { name: \"C\" count: 2 power: "
                               "QUABBLE_POWER_DOUBLE_TARGET target: \"Hop\" }\n"),
              HasSubstr("line 3, column 64: asset 'C': unknown target 'Hop'"));
  EXPECT_THAT(Rejection("selftarget.textproto",
                        base + "assets { name: \"C\" count: 2 power: "
                               "QUABBLE_POWER_DOUBLE_TARGET target: \"C\" }\n"),
              HasSubstr("asset 'C': the target is the asset itself"));
}

TEST(QuabbleAssetFile, TargetMustComeEarlierBecausePowersActInListOrder) {
  // Carrots listed before the Hoppers they double: refused.
  EXPECT_THAT(
      Rejection("order.textproto",
                std::string(kPad) +
                    "assets {\n  name: \"C\"\n  count: 2\n"
                    "  power: QUABBLE_POWER_DOUBLE_TARGET\n  target: \"H\"\n}\n"
                    "assets { name: \"H\" count: 2 value: 2 power: "
                    "QUABBLE_POWER_NEIGHBOUR_BONUS amount: 1 }\n"),
      HasSubstr("line 6, column 3: asset 'C': target 'H' comes later in the "
                "list"));
}

TEST(QuabbleAssetFile, DeckTooSmallForTheDealIsRejected) {
  const std::string small =
      "assets { name: \"A\" count: 9 power: QUABBLE_POWER_NONE }\n";
  EXPECT_THAT(Rejection("small.textproto", small, 2),
              HasSubstr("the deck has 9 cards in all, too few to deal 5 to "
                        "each of 2 seats (10 needed)"));
  // The default list deals 6 seats (30 of 60 cards); a 30-card list too.
  EXPECT_EQ(Rejection("pad.textproto", kPad, 6), "accepted");
  EXPECT_THAT(Rejection("empty.textproto", "# nothing\n"),
              HasSubstr("no assets"));
}

TEST(QuabbleAssetFile, MissingFileIsRejected) {
  auto g = CreateGame("quabble", {{"assets", "/nonexistent/quabble.textproto"}}, 3);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(),
              HasSubstr("cannot read the asset file '/nonexistent/quabble.textproto'"));
}

// Every number a power uses is a field of its card; left out, it is the
// shipped table's number; a power that uses none needs none.
TEST(QuabbleAssetFile, NumbersLeftOutAreTheTablesNumbers) {
  // The shipped list with every `amount:` and `threshold:` line removed.
  std::istringstream in{std::string(DefaultAssetListText())};
  std::string text, line;
  int removed = 0;
  while (std::getline(in, line)) {
    if (line.find("amount:") != std::string::npos ||
        line.find("threshold:") != std::string::npos) {
      ++removed;
      continue;
    }
    text += line + "\n";
  }
  EXPECT_EQ(removed, 7);  // 6 amounts and the Sushi's threshold
  auto cat = ParseAssetList(text, "bare", 4);
  ASSERT_TRUE(cat.ok()) << cat.status();
  std::vector<int> amounts, thresholds;
  for (const auto& a : (*cat)->assets) {
    amounts.push_back(a.amount);
    thresholds.push_back(a.threshold);
  }
  // Pigs 1 (n*n), Hoppers 1, Carrots -, Snails 2, Poofins 6, Eggs 8,
  // Grungles -, Deathslayers 2, Sushi -5 from 2, Snatcher -, Misdirection -.
  EXPECT_THAT(amounts, ElementsAre(1, 1, 0, 2, 6, 8, 0, 2, -5, 0, 0));
  EXPECT_THAT(thresholds, ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0));
  // The list sent to bots carries the numbers in force.
  const auto& sent = (*cat)->list;
  EXPECT_TRUE(sent.assets(0).has_amount());
  EXPECT_EQ(sent.assets(0).amount(), 1);
  EXPECT_EQ(sent.assets(4).amount(), 6);
  EXPECT_EQ(sent.assets(8).threshold(), 2);
  EXPECT_FALSE(sent.assets(2).has_amount());  // Carrots use no number
  EXPECT_FALSE(sent.assets(9).has_amount());  // nor does the Red Snatcher
}

TEST(QuabbleAssetFile, MalformedNumbersNameTheCardAndTheField) {
  const std::string eggs =
      "assets {\n  name: \"Very Rare Eggs\"\n  count: 5\n"
      "  power: QUABBLE_POWER_SINGLETON\n  amount: ";
  EXPECT_THAT(Rejection("float.textproto", std::string(kPad) + eggs + "1.5\n}\n"),
              HasSubstr("line 6, column 11: Expected integer, got: 1.5 (in "
                        "asset 'Very Rare Eggs', field amount)"));
  EXPECT_THAT(Rejection("word.textproto", std::string(kPad) + eggs + "\"8\"\n}\n"),
              HasSubstr("(in asset 'Very Rare Eggs', field amount)"));
  EXPECT_THAT(
      Rejection("huge.textproto", std::string(kPad) + eggs + "99999999999\n}\n"),
      HasSubstr("(in asset 'Very Rare Eggs', field amount)"));
  // The name may come after the bad number.
  EXPECT_THAT(Rejection("late.textproto",
                        std::string(kPad) +
                            "assets { count: 2 threshold: x name: \"Sushi\" "
                            "power: QUABBLE_POWER_CURSE }\n"),
              HasSubstr("(in asset 'Sushi', field threshold)"));
  // In range but out of the power's range: the card and the field.
  EXPECT_THAT(Rejection("poofins.textproto",
                        std::string(kPad) +
                            "assets { name: \"Royal Poofins\" count: 6 power: "
                            "QUABBLE_POWER_MAJORITY amount: 21 }\n"),
              HasSubstr("asset 'Royal Poofins': amount 21 is out of range for "
                        "QUABBLE_POWER_MAJORITY (1 to 20)"));
  EXPECT_THAT(Rejection("pigs.textproto",
                        std::string(kPad) +
                            "assets { name: \"Snorkel Pigs\" count: 8 power: "
                            "QUABBLE_POWER_SET_SQUARE amount: -21 }\n"),
              HasSubstr("asset 'Snorkel Pigs': amount -21 is out of range for "
                        "QUABBLE_POWER_SET_SQUARE (-20 to 20)"));
  EXPECT_THAT(Rejection("carrots.textproto",
                        std::string(kPad) +
                            "assets { name: \"H\" count: 2 value: 2 power: "
                            "QUABBLE_POWER_NEIGHBOUR_BONUS }\n"
                            "assets { name: \"Magic Carrots\" count: 2 power: "
                            "QUABBLE_POWER_DOUBLE_TARGET target: \"H\" "
                            "amount: 2 }\n"),
              HasSubstr("asset 'Magic Carrots': QUABBLE_POWER_DOUBLE_TARGET "
                        "takes no amount"));
}

// The shipped list with every number changed (counts and values kept, so
// the card ids are those of the shipped list).
const char kChangedNumbers[] = R"(
assets { name: "Snorkel Pigs" count: 8 value: 1 power: QUABBLE_POWER_SET_SQUARE amount: 2 }
assets { name: "Bearded Hoppers" count: 7 value: 2 power: QUABBLE_POWER_NEIGHBOUR_BONUS amount: 3 }
assets { name: "Magic Carrots" count: 7 value: 1 power: QUABBLE_POWER_DOUBLE_TARGET target: "Bearded Hoppers" }
assets { name: "Doom Snails" count: 5 value: 3 power: QUABBLE_POWER_NEIGHBOUR_PENALTY amount: 1 }
assets { name: "Royal Poofins" count: 6 value: 2 power: QUABBLE_POWER_MAJORITY amount: 10 }
assets { name: "Very Rare Eggs" count: 5 value: 0 power: QUABBLE_POWER_SINGLETON amount: 5 }
assets { name: "Grungles" count: 7 value: -3 power: QUABBLE_POWER_NONE }
assets { name: "Deathslayers" count: 5 value: 1 power: QUABBLE_POWER_SLAY_TARGET target: "Grungles" amount: 4 }
assets { name: "Cursed Sushi" count: 4 value: 5 power: QUABBLE_POWER_CURSE amount: -1 threshold: 3 }
assets { name: "Red Snatcher" count: 3 value: 2 power: QUABBLE_POWER_SNATCH }
assets { name: "Misdirection" count: 3 value: 1 power: QUABBLE_POWER_MISDIRECTION }
)";

TEST(QuabbleAssetFile, ChangedNumbersScoreAsTheDataSays) {
  const std::string path = WriteTemp("changed.textproto", kChangedNumbers);
  auto g = MakeGame(4, {{"assets", path}});
  ASSERT_NE(g, nullptr);
  // The table of QuabblePowers.EveryPowerInOrderOnOneTable, scored with the
  // changed numbers (pigs 2*n*n, hoppers +3, snails -1, poofins 10, a lone
  // egg 5, slayers +4, sushi -1 each from 3), worked out by hand:
  // seat 0: shared pig 0.5 + sushi 2.5; pigs x2 = 2*4 = 8; hopper 2 + 3 x 3
  //   (seats 1 and 3 hold 2 + 1) = 11; carrot 1 + doubling 11; snail 3
  //   (no snail beside); poofins 4 + 10 split 2 ways 5; egg alone 5;
  //   grungle slain 0, slayer 1 + 4; sushi 5 (1 held, under 3); snatcher 2;
  //   misdirection 1 -> 64.
  // seat 1: shared pig 0.5; hoppers 2 x (2 + 3 x 1) = 10; snails of seats 0
  //   and 2 -1 each -> -2; poofins 4 + 5; grungles -6; sushi x2 still 5
  //   each = 10 -> 21.5.
  // seat 2: pigs x3 = 2*9 = 18; eggs x2 = 0; snail 3 -> 21.
  // seat 3: shared sushi 2.5; hopper 2 + 3 x 1 = 5; carrots 2 + doubling 5;
  //   slayers 2 + 4 (one grungle slain, 0); snails of seats 2 and 0 -2
  //   -> 18.5.
  Position p;
  p.treasuries = {
      {0, 1, kHopper, kCarrot, kSnail, kPoofin, kPoofin + 1, kEgg, kGrungle,
       kSlayer, kSushi, kSnatcher, kMisdirection},
      {kHopper + 1, kHopper + 2, kPoofin + 2, kPoofin + 3, kGrungle + 1,
       kGrungle + 2, kSushi + 1, kSushi + 2},
      {2, 3, 4, kEgg + 1, kEgg + 2, kSnail + 1},
      {kHopper + 3, kCarrot + 1, kCarrot + 2, kSlayer + 1, kSlayer + 2,
       kGrungle + 3}};
  p.shared = {{5, 0, 1}, {kSushi + 3, 3, 0}};
  p.king = {6};
  auto s = At(*g, p);
  EXPECT_THAT(Scores(*s), ElementsAre(64, 21.5, 21, 18.5));
  // Three sushi reach the changed threshold: -1 each. A lone pig: 2*1*1.
  auto g3 = MakeGame(3, {{"assets", path}});
  Position q;
  q.treasuries = {{kSushi, kSushi + 1, kSushi + 2}, {kEgg, kEgg + 1}, {kPig}};
  EXPECT_THAT(Scores(*At(*g3, q)), ElementsAre(-3, 0, 2));
  // The rules the bots get carry the changed numbers.
  v1::Rules rules;
  s->FillRules(&rules);
  EXPECT_EQ(rules.quabble().assets(0).amount(), 2);
  EXPECT_EQ(rules.quabble().assets(8).threshold(), 3);
}

// ---------------------------------------------------------------------------
// Powers on hand-worked end positions

TEST(QuabblePowers, SnorkelPigsScoreNSquared) {
  // 3 pigs: 9; 1 pig: 1; none: 0.
  EXPECT_THAT(EndScores(3, {{kPig, kPig + 1, kPig + 2}, {kPig + 3}, {}}),
              ElementsAre(9, 1, 0));
}

TEST(QuabblePowers, BeardedHoppersCountBothNeighbours) {
  // Seat 0: 1 hopper, neighbours 1 and 3 hold 2 + 1 -> 2 + 3 = 5.
  // Seat 1: 2 hoppers, neighbours 0 and 2 hold 1 + 0 -> 2 x 3 = 6.
  // Seat 2: none. Seat 3: 1 hopper, neighbours 2 and 0 hold 0 + 1 -> 3.
  EXPECT_THAT(EndScores(4, {{kHopper}, {kHopper + 1, kHopper + 2}, {},
                            {kHopper + 3}}),
              ElementsAre(5, 6, 0, 3));
}

TEST(QuabblePowers, WithTwoSeatsTheOtherSeatIsOneNeighbourCountedOnce) {
  // Seat 0: a hopper (+2 for seat 1's two) = 4, a snail = 3 -> 7.
  // Seat 1: two hoppers (+1 each for seat 0's one) = 6, seat 0's snail -2
  // once (not twice) -> 4.
  EXPECT_THAT(EndScores(2, {{kHopper, kSnail}, {kHopper + 1, kHopper + 2}}),
              ElementsAre(7, 4));
}

TEST(QuabblePowers, MagicCarrotsDoubleHoppersAfterTheHopperPower) {
  // Seat 0: hopper 2 + 3 (neighbours hold 3) = 5, doubled by one carrot
  // (+5), two carrots worth 1 each (the second has no hopper) -> 12. Were
  // the carrot applied before the hopper power: 4 + 3 + 2 = 9.
  // Seat 1: two hoppers, neighbours hold 1 + 1 -> 2 x 4 = 8.
  // Seat 2: hopper 2 + 3 = 5, doubled +5, carrot 1 -> 11.
  EXPECT_THAT(EndScores(3, {{kHopper, kCarrot, kCarrot + 1},
                            {kHopper + 1, kHopper + 2},
                            {kHopper + 3, kCarrot + 2}}),
              ElementsAre(12, 8, 11));
}

TEST(QuabblePowers, DoomSnailsHitEachNeighbour) {
  // Seat 1's two snails: 6 for seat 1, -4 for seats 0 and 2. Seat 3's snail:
  // 3 for seat 3, -2 for seats 2 and 0.
  EXPECT_THAT(EndScores(4, {{}, {kSnail, kSnail + 1}, {}, {kSnail + 2}}),
              ElementsAre(-6, 6, -6, 3));
}

TEST(QuabblePowers, RoyalPoofinsMajorityAlone) {
  // Seat 0 holds the most (2): 4 + 6 = 10; seat 1: 2.
  EXPECT_THAT(EndScores(3, {{kPoofin, kPoofin + 1}, {kPoofin + 2}, {}}),
              ElementsAre(10, 2, 0));
}

TEST(QuabblePowers, RoyalPoofinsSplitRoundedDownToAHalfPoint) {
  // Four seats tie with one each: 6 / 4 = 1.5 each, + 2 -> 3.5.
  EXPECT_THAT(EndScores(4, {{kPoofin}, {kPoofin + 1}, {kPoofin + 2},
                            {kPoofin + 3}}),
              ElementsAre(3.5, 3.5, 3.5, 3.5));
  // Five seats tie: 6 / 5 = 1.2, rounded down to 1 -> 3 each; seat 5 has
  // none.
  EXPECT_THAT(EndScores(6, {{kPoofin}, {kPoofin + 1}, {kPoofin + 2},
                            {kPoofin + 3}, {kPoofin + 4}, {}}),
              ElementsAre(3, 3, 3, 3, 3, 0));
  // Nobody holds one: nobody gains.
  EXPECT_THAT(EndScores(2, {{kPig}, {}}), ElementsAre(1, 0));
}

TEST(QuabblePowers, VeryRareEggsWorthEightOnlyAlone) {
  EXPECT_THAT(EndScores(3, {{kEgg}, {kEgg + 1, kEgg + 2}, {}}),
              ElementsAre(8, 0, 0));
}

TEST(QuabblePowers, GrunglesAreDebtsThatDeathslayersSlay) {
  // Seat 0: grungles -6, a slayer 1 slays one (+3) and gains 2 -> 0.
  // Seat 1: grungle -3, slayers 2, one slays (+3, +2), one idle -> 4.
  // Seat 2: a slayer with nothing to slay -> 1.
  EXPECT_THAT(EndScores(3, {{kGrungle, kGrungle + 1, kSlayer},
                            {kGrungle + 2, kSlayer + 1, kSlayer + 2},
                            {kSlayer + 3}}),
              ElementsAre(0, 4, 1));
}

TEST(QuabblePowers, CursedSushiTurnsNegativeFromTwo) {
  EXPECT_THAT(EndScores(3, {{kSushi}, {kSushi + 1, kSushi + 2}, {kSushi + 3}}),
              ElementsAre(5, -10, 5));
}

TEST(QuabblePowers, SharedCardsGiveHalfTheirValueAndNoPower) {
  // Seat 0: a pig in treasury (1; the shared pig is not part of the set),
  // half a pig (0.5), half a grungle (-1.5) -> 0.
  // Seat 1: half a pig 0.5 + half a sushi 2.5 -> 3.
  // Seat 2: half a sushi 2.5 + half a grungle -1.5 -> 1.
  // The King's sushi counts for nobody.
  EXPECT_THAT(EndScores(3, {{kPig}, {}, {}},
                        {{kPig + 1, 0, 1}, {kSushi, 1, 2}, {kGrungle, 2, 0}},
                        {kSushi + 1}),
              ElementsAre(0, 3, 1));
}

TEST(QuabblePowers, EveryPowerInOrderOnOneTable) {
  // Worked out by hand:
  // seat 0: shared 0.5 (pig) + 2.5 (sushi); pigs x2 = 4; hopper 2 + 3 = 5;
  //   carrot doubles it +5, carrot 1; snail 3; poofins 4 + majority split 2
  //   ways 3; egg alone 8; grungle -3; slayer 1 + 3 + 2; sushi 5; snatcher 2;
  //   misdirection 1 -> 47.
  // seat 1: shared pig 0.5; hoppers 2 x (2 + 1) = 6; snails of seats 0 and 2
  //   -4; poofins 4 + 3; grungles -6; sushi x2 -10 -> -6.5.
  // seat 2: pigs x3 = 9; eggs x2 = 0; snail 3 -> 12.
  // seat 3: shared sushi 2.5; hopper 2 + 1 = 3; carrots 2 + doubling 3;
  //   snails -4; grungle -3; slayers 2 + 3 + 2 -> 10.5.
  auto g = MakeGame(4);
  Position p;
  p.treasuries = {
      {0, 1, kHopper, kCarrot, kSnail, kPoofin, kPoofin + 1, kEgg, kGrungle,
       kSlayer, kSushi, kSnatcher, kMisdirection},
      {kHopper + 1, kHopper + 2, kPoofin + 2, kPoofin + 3, kGrungle + 1,
       kGrungle + 2, kSushi + 1, kSushi + 2},
      {2, 3, 4, kEgg + 1, kEgg + 2, kSnail + 1},
      {kHopper + 3, kCarrot + 1, kCarrot + 2, kSlayer + 1, kSlayer + 2,
       kGrungle + 3}};
  p.shared = {{5, 0, 1}, {kSushi + 3, 3, 0}};
  p.king = {6};
  auto s = At(*g, p);
  EXPECT_THAT(Scores(*s), ElementsAre(47, -6.5, 12, 10.5));
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.placements(), ElementsAre(1, 4, 2, 3));
  EXPECT_TRUE(r.higher_score_wins());
  // Seat 0's explanation: per asset and per power, in the rules' order.
  std::vector<std::string> items;
  std::vector<double> points;
  for (const auto& l : r.score_lines()) {
    if (l.seat() != 0) continue;
    items.push_back(l.item());
    points.push_back(l.points());
  }
  EXPECT_THAT(items,
              ElementsAre("Snorkel Pigs x1 shared: half value",
                          "Cursed Sushi x1 shared: half value",
                          "Snorkel Pigs x2: value",
                          "Snorkel Pigs: set of 2, 4 in all",
                          "Bearded Hoppers x1: value",
                          "Bearded Hoppers: +1 each for 3 in neighbours' "
                          "treasuries",
                          "Magic Carrots x1: value",
                          "Magic Carrots: doubles 1 Bearded Hoppers",
                          "Doom Snails x1: value",
                          "Royal Poofins x2: value",
                          "Royal Poofins: most (2), 6 split 2 ways",
                          "Very Rare Eggs x1: value",
                          "Very Rare Eggs: exactly one, worth 8",
                          "Grungles x1: value", "Deathslayers x1: value",
                          "Deathslayers: slay 1 Grungles (they score 0)",
                          "Deathslayers: +2 per slaying",
                          "Cursed Sushi x1: value", "Red Snatcher x1: value",
                          "Misdirection x1: value"));
  EXPECT_THAT(points, ElementsAre(0.5, 2.5, 2, 2, 2, 3, 1, 5, 3, 4, 3, 0, 8,
                                  -3, 1, 3, 2, 5, 2, 1));
}

// ---------------------------------------------------------------------------
// Play: offers, claims, the reveal

// Applies `action` for the single acting seat, checking who it is.
void Act(QuabbleState& s, int seat, int action) {
  ASSERT_EQ(s.ActingSeats(), std::vector<int>{seat});
  s.Apply({action});
}

TEST(QuabblePlay, DealIsFiveEachRoundRobinFromSeatZero) {
  auto g = MakeGame(3);
  std::vector<int> deck;
  for (int c = 59; c >= 0; --c) deck.push_back(c);
  auto s = QuabbleState::FromDeckOrderForTest(*g, deck, 1);
  ASSERT_TRUE(s.ok());
  EXPECT_THAT((*s)->Hand(0), ElementsAre(47, 50, 53, 56, 59));
  EXPECT_THAT((*s)->Hand(1), ElementsAre(46, 49, 52, 55, 58));
  EXPECT_THAT((*s)->Hand(2), ElementsAre(45, 48, 51, 54, 57));
  EXPECT_EQ((*s)->deck_size(), 45);
  EXPECT_EQ((*s)->active_seat(), 0);
  EXPECT_EQ((*s)->direction(), 1);
  EXPECT_EQ((*s)->round(), 1);
  EXPECT_EQ((*s)->ActingSeats(), std::vector<int>{0});
}

TEST(QuabblePlay, OffersGoInOrderOfPlayFromTheActiveSeat) {
  auto g = MakeGame(4);
  for (bool right : {false, true}) {
    Position p;
    p.hands = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
    p.active_seat = 2;
    p.direction_right = right;
    auto s = At(*g, p);
    const std::vector<int> order =
        right ? std::vector<int>{2, 1, 0, 3} : std::vector<int>{2, 3, 0, 1};
    for (int seat : order) {
      ASSERT_EQ(s->ActingSeats(), std::vector<int>{seat});
      EXPECT_EQ(s->NumLegalActions(seat), 2);
      const int to = (seat + (right ? 3 : 1)) % 4;
      EXPECT_EQ(s->ActionLabel(seat, 1),
                "offer Snorkel Pigs #" + std::to_string(2 * seat + 1) +
                    " to seat " + std::to_string(to));
      s->Apply({1});
      EXPECT_EQ(s->Offer(seat), 2 * seat + 1);
    }
    // Then every seat claims at once.
    EXPECT_EQ(s->ActingSeats(), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(s->phase(), v1::QUABBLE_PHASE_CLAIM);
  }
}

TEST(QuabblePlay, LaterSeatsSeeEarlierOffers) {
  auto g = MakeGame(3);
  Position p;
  p.hands = {{0}, {kHopper}, {kGrungle}};
  auto s = At(*g, p);
  s->Apply({0});  // seat 0 offers the pig to seat 1
  v1::View view;
  s->FillView(1, &view);
  ASSERT_EQ(view.quabble().offers_size(), 1);
  EXPECT_EQ(view.quabble().offers(0).from_seat(), 0);
  EXPECT_EQ(view.quabble().offers(0).to_seat(), 1);
  EXPECT_EQ(view.quabble().offers(0).card(), 0);
}

TEST(QuabblePlay, RevealSharesGivesOrReturnsToTheKing) {
  // 3 seats, last round: seat 0 offers the pig to 1, seat 1 the hopper to
  // 2, seat 2 the grungle to 0. Claims: seat 0 its own pig, seat 1 the pig
  // offered to it -> shared by 0 and 1; seat 2 its own grungle (seat 0 did
  // not claim it) -> seat 2's treasury; nobody claims the hopper -> King.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{0}, {kHopper}, {kGrungle}};
  auto s = At(*g, p);
  for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
  ASSERT_EQ(s->phase(), v1::QUABBLE_PHASE_CLAIM);
  EXPECT_EQ(s->ActionLabel(0, 0), "claim Snorkel Pigs #0 (own offer)");
  EXPECT_EQ(s->ActionLabel(0, 1), "claim Grungles #38 (offered by seat 2)");
  s->Apply({0, 1, 0});
  ASSERT_TRUE(s->IsTerminal());
  ASSERT_EQ(s->SharedCards().size(), 1u);
  EXPECT_EQ(s->SharedCards()[0].card, 0);
  EXPECT_EQ(s->SharedCards()[0].seat_a, 0);
  EXPECT_EQ(s->SharedCards()[0].seat_b, 1);
  EXPECT_THAT(s->Treasury(2), ElementsAre(kGrungle));
  EXPECT_THAT(s->King(), ElementsAre(kHopper));
  EXPECT_THAT(Scores(*s), ElementsAre(0.5, 0.5, -3));
  // The reveal event names every claim and every fate.
  const v1::QuabbleEvent* reveal = nullptr;
  for (const auto& e : s->events()) {
    if (e.event.quabble().has_reveal()) reveal = &e.event.quabble();
  }
  ASSERT_NE(reveal, nullptr);
  ASSERT_EQ(reveal->reveal().outcomes_size(), 3);
  EXPECT_EQ(reveal->reveal().outcomes(0).fate(), v1::QUABBLE_FATE_SHARED);
  EXPECT_EQ(reveal->reveal().outcomes(1).fate(), v1::QUABBLE_FATE_KING);
  EXPECT_EQ(reveal->reveal().outcomes(2).fate(), v1::QUABBLE_FATE_TREASURY);
  EXPECT_EQ(reveal->reveal().outcomes(2).owner(), 2);
  EXPECT_EQ(reveal->reveal().claims(1).card(), 0);
  EXPECT_FALSE(reveal->reveal().claims(1).own_offer());
}

TEST(QuabblePlay, TwoSeatsEachSeatsTwoCardsAreTheTwoOffers) {
  // Seat 0 offers the pig to seat 1, seat 1 the hopper to seat 0. Seat 0
  // claims the hopper, seat 1 its own hopper -> shared; the pig -> King.
  auto g = MakeGame(2);
  Position p;
  p.hands = {{0}, {kHopper}};
  auto s = At(*g, p);
  Act(*s, 0, 0);
  Act(*s, 1, 0);
  EXPECT_EQ(s->ActionLabel(0, 1), "claim Bearded Hoppers #8 (offered by seat 1)");
  EXPECT_EQ(s->ActionLabel(1, 1), "claim Snorkel Pigs #0 (offered by seat 0)");
  s->Apply({1, 0});
  ASSERT_TRUE(s->IsTerminal());
  ASSERT_EQ(s->SharedCards().size(), 1u);
  EXPECT_EQ(s->SharedCards()[0].card, kHopper);
  EXPECT_THAT(s->King(), ElementsAre(0));
  EXPECT_THAT(Scores(*s), ElementsAre(1, 1));
}

TEST(QuabblePlay, ClaimsAreOneSimultaneousDecisionHiddenUntilTheReveal) {
  auto g = MakeGame(3);
  Position p;
  p.hands = {{0, 1}, {2, 3}, {4, 5}};
  p.deck = {};
  auto s = At(*g, p);
  for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
  const size_t events_before = s->events().size();
  // Nothing is logged (nobody learns anything) until every claim is in.
  EXPECT_EQ(s->ActingSeats(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(s->events().size(), events_before);
  v1::View view;
  s->FillView(1, &view);
  EXPECT_EQ(view.quabble().last_claims_size(), 0);
  s->Apply({1, 0, 1});
  ASSERT_TRUE(s->events()[events_before].event.quabble().has_reveal());
  EXPECT_TRUE(s->events()[events_before].is_public);
  s->FillView(1, &view);
  ASSERT_EQ(view.quabble().last_claims_size(), 3);
  EXPECT_FALSE(view.quabble().last_claims(0).own_offer());
  EXPECT_TRUE(view.quabble().last_claims(1).own_offer());
}

// ---------------------------------------------------------------------------
// Immediate powers

TEST(QuabbleImmediate, RedSnatcherIsADecisionOfItsOwner) {
  // Seat 0 claims its Red Snatcher; its neighbours hold a sushi (seat 1)
  // and an egg (seat 2). It takes the egg: 2 + 8 = 10. Seat 1: sushi 5 +
  // half a pig 0.5; seat 2: half a pig 0.5 (the egg is gone).
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher}, {0}, {1}};
  p.treasuries = {{}, {kSushi}, {kEgg}};
  auto s = At(*g, p);
  for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
  s->Apply({0, 0, 1});  // snatcher -> seat 0; pig 0 shared by 1, 2; pig 1 King
  ASSERT_EQ(s->phase(), v1::QUABBLE_PHASE_SNATCH);
  ASSERT_EQ(s->ActingSeats(), std::vector<int>{0});
  ASSERT_EQ(s->NumLegalActions(0), 3);
  EXPECT_EQ(s->ActionLabel(0, 0), "snatch Cursed Sushi #50 from seat 1");
  EXPECT_EQ(s->ActionLabel(0, 1), "snatch Very Rare Eggs #33 from seat 2");
  EXPECT_EQ(s->ActionLabel(0, 2), "take nothing");
  s->Apply({1});
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_THAT(s->Treasury(0), ElementsAre(kSnatcher, kEgg));
  EXPECT_TRUE(s->Treasury(2).empty());
  EXPECT_THAT(Scores(*s), ElementsAre(10, 5.5, 0.5));
}

TEST(QuabbleImmediate, RedSnatcherWithNothingToTakeIsNoDecision) {
  // Seat 0 claims its Red Snatcher; seats 1 and 2 share the pig 0 and the
  // pig 1 goes to the King: no neighbour holds a treasury card.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher}, {0}, {1}};
  auto s = At(*g, p);
  for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
  s->Apply({0, 0, 1});
  EXPECT_TRUE(s->IsTerminal());
  const auto& last = s->events()[s->events().size() - 2].event.quabble();
  ASSERT_TRUE(last.has_snatched());
  EXPECT_TRUE(last.snatched().nothing_to_take());
  EXPECT_EQ(last.snatched().seat(), 0);
  EXPECT_THAT(Scores(*s), ElementsAre(2, 0.5, 0.5));
}

TEST(QuabbleImmediate, WithTwoSeatsTheSnatcherLooksAtTheOneNeighbourOnce) {
  // Seat 1 holds sushi, egg and (after the claims) pig 0: three cards to
  // take, listed once, and "take nothing".
  auto g = MakeGame(2);
  Position p;
  p.hands = {{kSnatcher}, {0}};
  p.treasuries = {{}, {kSushi, kEgg}};
  auto s = At(*g, p);
  Act(*s, 0, 0);
  Act(*s, 1, 0);
  s->Apply({0, 0});
  ASSERT_EQ(s->NumLegalActions(0), 4);
  EXPECT_EQ(s->ActionLabel(0, 2), "snatch Snorkel Pigs #0 from seat 1");
  s->Apply({3});
  EXPECT_THAT(s->Treasury(1), ElementsAre(kSushi, kEgg, 0));
  EXPECT_THAT(Scores(*s), ElementsAre(2, 14));
}

TEST(QuabbleImmediate, MisdirectionReversesFromTheNextRound) {
  // Round 1 (active 0, left): each seat claims its own offer; seat 1's
  // Misdirection acts. Round 2: active seat 1 (always left), direction
  // right: offers by 1, 0, 2.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{0, 1}, {kMisdirection, 2}, {3, 4}};
  auto s = At(*g, p);
  Act(*s, 0, 0);  // pig 0 to seat 1
  Act(*s, 1, 1);  // Misdirection #57 to seat 2
  Act(*s, 2, 0);  // pig 3 to seat 0
  EXPECT_EQ(s->direction(), 1);
  s->Apply({0, 0, 0});
  EXPECT_EQ(s->round(), 2);
  EXPECT_EQ(s->active_seat(), 1);
  EXPECT_EQ(s->direction(), -1);
  Act(*s, 1, 0);
  EXPECT_EQ(s->Offer(1), 2);
  Act(*s, 0, 0);
  Act(*s, 2, 0);
  s->Apply({0, 0, 0});
  EXPECT_TRUE(s->IsTerminal());
}

TEST(QuabbleImmediate, TwoMisdirectionsInOneRoundCancel) {
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kMisdirection, 0}, {kMisdirection + 1, 1}, {2, 3}};
  auto s = At(*g, p);
  Act(*s, 0, 1);
  Act(*s, 1, 1);
  Act(*s, 2, 0);
  s->Apply({0, 0, 0});  // seats 0 and 1 each take a Misdirection
  int misdirected = 0;
  for (const auto& e : s->events()) misdirected += e.event.quabble().has_misdirected();
  EXPECT_EQ(misdirected, 2);
  EXPECT_EQ(s->round(), 2);
  EXPECT_EQ(s->active_seat(), 1);
  EXPECT_EQ(s->direction(), 1);
  EXPECT_EQ(s->ActingSeats(), std::vector<int>{1});
}

TEST(QuabbleImmediate, ASnatchedCardDoesNotActAgainNorLater) {
  // Seat 0's Red Snatcher resolves first (seat order from the active seat)
  // and takes seat 1's Misdirection before it acted: it never acts.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher, 0}, {kMisdirection, 1}, {2, 3}};
  auto s = At(*g, p);
  Act(*s, 0, 1);
  Act(*s, 1, 1);
  Act(*s, 2, 0);
  s->Apply({0, 0, 0});
  ASSERT_EQ(s->phase(), v1::QUABBLE_PHASE_SNATCH);
  ASSERT_EQ(s->ActionLabel(0, 0), "snatch Misdirection #57 from seat 1");
  s->Apply({0});
  EXPECT_THAT(s->Treasury(0), ElementsAre(kSnatcher, kMisdirection));
  for (const auto& e : s->events()) {
    EXPECT_FALSE(e.event.quabble().has_misdirected());
  }
  EXPECT_EQ(s->round(), 2);
  EXPECT_EQ(s->direction(), 1);
}

TEST(QuabbleImmediate, PowersResolveInSeatOrderFromTheActiveSeat) {
  // Active seat 2: seat 2's Misdirection acts before seat 0's Red Snatcher,
  // so the snatcher can take it only after it reversed the direction.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher, 0}, {1, 2}, {kMisdirection, 3}};
  p.active_seat = 2;
  auto s = At(*g, p);
  Act(*s, 2, 1);  // Misdirection to seat 0
  Act(*s, 0, 1);  // Red Snatcher to seat 1
  Act(*s, 1, 0);  // pig 1 to seat 2
  s->Apply({0, 0, 0});
  ASSERT_EQ(s->phase(), v1::QUABBLE_PHASE_SNATCH);
  EXPECT_TRUE(s->reversal_pending());
  s->Apply({s->NumLegalActions(0) - 1});  // take nothing
  EXPECT_EQ(s->round(), 2);
  EXPECT_EQ(s->active_seat(), 0);
  EXPECT_EQ(s->direction(), -1);
}

TEST(QuabbleImmediate, RedSnatcherSnatchedAwayBeforeItsPowerNeverActs) {
  // Seats 0 and 1 each claim a Red Snatcher. Seat 0's resolves first (seat
  // order from the active seat 0) and takes seat 1's before it came up:
  // seat 1 gets no decision although seat 2's treasury holds an egg, and
  // the snatched card does not act for its new owner either.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher, 0}, {kSnatcher + 1, 1}, {2, 3}};
  p.treasuries = {{}, {}, {kEgg}};
  auto s = At(*g, p);
  Act(*s, 0, 1);  // Red Snatcher #54 to seat 1
  Act(*s, 1, 1);  // Red Snatcher #55 to seat 2
  Act(*s, 2, 0);  // pig 2 to seat 0
  s->Apply({0, 0, 0});  // each claims its own offer
  ASSERT_EQ(s->phase(), v1::QUABBLE_PHASE_SNATCH);
  ASSERT_EQ(s->ActingSeats(), std::vector<int>{0});
  ASSERT_EQ(s->ActionLabel(0, 0), "snatch Red Snatcher #55 from seat 1");
  s->Apply({0});
  EXPECT_THAT(s->Treasury(0), ElementsAre(kSnatcher, kSnatcher + 1));
  EXPECT_TRUE(s->Treasury(1).empty());
  int snatches = 0;
  for (const auto& e : s->events()) snatches += e.event.quabble().has_snatched();
  EXPECT_EQ(snatches, 1);
  // The round is over: round 2's first offer, by seat 1.
  EXPECT_EQ(s->round(), 2);
  EXPECT_EQ(s->phase(), v1::QUABBLE_PHASE_OFFER);
  EXPECT_EQ(s->ActingSeats(), std::vector<int>{1});
}

TEST(QuabbleImmediate, AMisdirectionSnatchedAfterItActedDoesNotActAgain) {
  // Active seat 2: its Misdirection acts first, then seat 0's Red Snatcher
  // takes it. It reversed the direction once and does not act again for
  // seat 0 (two would cancel).
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher, 0}, {1, 2}, {kMisdirection, 3}};
  p.active_seat = 2;
  auto s = At(*g, p);
  Act(*s, 2, 1);  // Misdirection to seat 0
  Act(*s, 0, 1);  // Red Snatcher to seat 1
  Act(*s, 1, 0);  // pig 1 to seat 2
  s->Apply({0, 0, 0});
  ASSERT_EQ(s->phase(), v1::QUABBLE_PHASE_SNATCH);
  ASSERT_EQ(s->ActionLabel(0, 1), "snatch Misdirection #57 from seat 2");
  s->Apply({1});
  EXPECT_THAT(s->Treasury(0), ElementsAre(kSnatcher, kMisdirection));
  int misdirected = 0;
  for (const auto& e : s->events()) misdirected += e.event.quabble().has_misdirected();
  EXPECT_EQ(misdirected, 1);
  EXPECT_EQ(s->round(), 2);
  EXPECT_EQ(s->direction(), -1);
}

TEST(QuabbleImmediate, NothingToTakeIsAnEventAndNoStep) {
  // As RedSnatcherWithNothingToTakeIsNoDecision: 3 offers and 1 claim are
  // the match's 4 steps; the Snatcher with nothing to take adds none.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher}, {0}, {1}};
  auto s = At(*g, p);
  for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
  s->Apply({0, 0, 1});
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->step(), 4);
  EXPECT_EQ(s->Result().decisions(), 4);
}

// ---------------------------------------------------------------------------
// The decision cap

TEST(QuabbleCap, ClaimAtTheCapWithASnatchPendingEndsBeforeTheSnatch) {
  // The setting of RedSnatcherIsADecisionOfItsOwner with a deck of 3 and a
  // cap of 4: the claims are step 4. The reveal resolves (snatcher to seat
  // 0, pig 0 shared by 1 and 2, pig 1 to the King); the snatch would be a
  // step past the cap, so it never comes, nor does the draw after it.
  // Scores as held: seat 0 snatcher 2; seat 1 sushi 5 + half pig 0.5 = 5.5;
  // seat 2 egg 8 + half pig 0.5 = 8.5 -> placements 3, 2, 1.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{kSnatcher}, {0}, {1}};
  p.treasuries = {{}, {kSushi}, {kEgg}};
  p.deck = {2, 3, 4};
  auto s = At(*g, p);
  s->set_decision_cap(4);
  for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
  s->Apply({0, 0, 1});
  EXPECT_EQ(s->step(), 4);
  EXPECT_FALSE(s->IsTerminal());
  EXPECT_TRUE(s->ActingSeats().empty());
  EXPECT_EQ(s->NumLegalActions(0), 0);
  EXPECT_EQ(s->deck_size(), 3);
  EXPECT_THAT(s->Treasury(0), ElementsAre(kSnatcher));
  EXPECT_TRUE(s->events().back().event.quabble().has_reveal());
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(2, 5.5, 8.5));
  EXPECT_THAT(r.placements(), ElementsAre(3, 2, 1));
}

TEST(QuabbleCap, ClaimAtTheCapEndsTheRoundWithItsDrawButNoNextRound) {
  // Active seat 1, a deck of 3: the claims (step 4 = the cap) end the
  // round, whose draw resolves (1, 2, 0 draw 10, 11, 12); round 2 never
  // starts. Each seat claimed its own pig: 1 point each, all placed 1.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{0}, {1}, {2}};
  p.deck = {10, 11, 12};
  p.active_seat = 1;
  auto s = At(*g, p);
  s->set_decision_cap(4);
  Act(*s, 1, 0);
  Act(*s, 2, 0);
  Act(*s, 0, 0);
  s->Apply({0, 0, 0});
  EXPECT_THAT(s->Hand(1), ElementsAre(10));
  EXPECT_THAT(s->Hand(0), ElementsAre(12));
  EXPECT_EQ(s->round(), 1);
  EXPECT_EQ(s->active_seat(), 1);
  EXPECT_TRUE(s->ActingSeats().empty());
  EXPECT_FALSE(s->IsTerminal());
  for (const auto& e : s->events()) {
    EXPECT_FALSE(e.event.quabble().has_round_start() &&
                 e.event.quabble().round_start().round() == 2);
  }
  EXPECT_THAT(s->Result().scores(), ElementsAre(1, 1, 1));
  EXPECT_THAT(s->Result().placements(), ElementsAre(1, 1, 1));
}

TEST(QuabbleCap, AnOfferAtTheCapEndsBeforeTheNextOffer) {
  // Cap 2: seats 0 and 1 offer; seat 2's offer never comes. Treasuries as
  // given: seat 0 an egg 8, seat 1 two sushi -10, seat 2 nothing.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{0}, {1}, {2}};
  p.treasuries = {{kEgg}, {kSushi, kSushi + 1}, {}};
  auto s = At(*g, p);
  s->set_decision_cap(2);
  Act(*s, 0, 0);
  Act(*s, 1, 0);
  EXPECT_TRUE(s->ActingSeats().empty());
  EXPECT_EQ(s->Offer(2), -1);
  EXPECT_EQ(s->phase(), v1::QUABBLE_PHASE_OFFER);
  EXPECT_THAT(s->Result().scores(), ElementsAre(8, -10, 0));
  EXPECT_THAT(s->Result().placements(), ElementsAre(1, 3, 2));
}

TEST(QuabbleCap, AStepThatEndsTheGameEndsItNormally) {
  // The last claims at the cap empty the hands: the game is over by the
  // rules, not stopped by the cap.
  auto g = MakeGame(3);
  Position p;
  p.hands = {{0}, {1}, {2}};
  auto s = At(*g, p);
  s->set_decision_cap(4);
  for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
  s->Apply({0, 0, 0});
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->Result().end_reason(), v1::END_REASON_NORMAL);
}

// ---------------------------------------------------------------------------
// Drawing and the end

TEST(QuabbleEnd, EachDrawsOnlyIfTheDeckHoldsACardForEverySeat) {
  auto g = MakeGame(3);
  {
    Position p;
    p.hands = {{0}, {1}, {2}};
    p.deck = {10, 11, 12};
    p.active_seat = 1;
    auto s = At(*g, p);
    Act(*s, 1, 0);
    Act(*s, 2, 0);
    Act(*s, 0, 0);
    s->Apply({0, 0, 0});
    // Draws in seat order from the active seat: 1, 2, 0.
    EXPECT_THAT(s->Hand(1), ElementsAre(10));
    EXPECT_THAT(s->Hand(2), ElementsAre(11));
    EXPECT_THAT(s->Hand(0), ElementsAre(12));
    EXPECT_FALSE(s->IsTerminal());
    EXPECT_EQ(s->active_seat(), 2);
  }
  {
    Position p;
    p.hands = {{0}, {1}, {2}};
    p.deck = {10, 11};  // two cards for three seats: nobody draws
    auto s = At(*g, p);
    for (int seat = 0; seat < 3; ++seat) Act(*s, seat, 0);
    s->Apply({0, 0, 0});
    EXPECT_TRUE(s->IsTerminal());
    EXPECT_EQ(s->deck_size(), 2);
    EXPECT_THAT(Scores(*s), ElementsAre(1, 1, 1));
  }
}

TEST(QuabbleEnd, GameLastsFiveRoundsPlusOnePerFullDraw) {
  // 60 cards: 2 seats 5 + 25 rounds, 3: 5 + 15, 4: 5 + 10, 5: 5 + 7, 6: 5 + 5.
  const int expected[] = {0, 0, 30, 20, 15, 12, 10};
  for (int seats = 2; seats <= 6; ++seats) {
    auto g = MakeGame(seats);
    Rng rng(seats);
    auto s = g->NewInitialState(100 + seats);
    int decisions = 0;
    while (!s->IsTerminal()) {
      std::vector<int> a;
      for (int seat : s->ActingSeats()) {
        a.push_back(static_cast<int>(rng.Uniform(s->NumLegalActions(seat))));
      }
      s->Apply(a);
      ASSERT_LT(++decisions, 1000);
    }
    auto* q = static_cast<QuabbleState*>(s.get());
    EXPECT_EQ(q->round(), expected[seats]) << seats;
    const auto& over = s->events().back().event.quabble();
    ASSERT_TRUE(over.has_game_over());
    EXPECT_EQ(over.game_over().rounds(), expected[seats]);
    EXPECT_EQ(over.game_over().unreleased_left(), 0);
    // Every card is somewhere: treasuries, shared, King.
    size_t placed = q->King().size() + q->SharedCards().size();
    for (int seat = 0; seat < seats; ++seat) placed += q->Treasury(seat).size();
    EXPECT_EQ(placed, 60u);
  }
}

TEST(QuabbleEnd, UnfinishedMatchIsRankedOnWhatIsHeld) {
  auto g = MakeGame(2);
  Position p;
  p.hands = {{0}, {1}};
  p.treasuries = {{kSushi}, {kEgg}};
  auto s = At(*g, p);
  v1::MatchResult r = s->Result();
  EXPECT_THAT(r.scores(), ElementsAre(5, 8));
  EXPECT_THAT(r.placements(), ElementsAre(2, 1));
  EXPECT_THAT(r.detail(), HasSubstr("unfinished"));
}

}  // namespace
}  // namespace quabble
}  // namespace arena

// Game-specific record checks moved from the former quabble_record_test.cc;
// the generic ones run for every game in tests/conformance_test.cc.
namespace arena {
namespace {

using ::testing::HasSubstr;

MatchSpec RecordSpec(uint64_t seed, Options o = {}) {
  MatchSpec spec;
  spec.match_id = "q" + std::to_string(seed);
  spec.game_name = "quabble";
  spec.options = std::move(o);
  spec.seed = seed;
  return spec;
}

// Every seat's score is explained line by line in the recorded result.
TEST(QuabbleRecords, ScoreLinesExplainTheScores) {
  for (int seats = 2; seats <= 6; ++seats) {
    auto game = CreateGame("quabble", {}, seats);
    ASSERT_TRUE(game.ok()) << game.status();
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      auto m = testing::PlayLocal(**game, RecordSpec(seed * 7919 + seats),
                                  testing::RandomPolicy(seed));
      ASSERT_EQ(m.outcome.result.end_reason(), v1::END_REASON_NORMAL);
      std::vector<double> sum(seats, 0);
      for (const auto& l : m.outcome.result.score_lines()) sum[l.seat()] += l.points();
      for (int s = 0; s < seats; ++s) {
        ASSERT_DOUBLE_EQ(sum[s], m.outcome.result.scores(s));
      }
      auto lines = testing::ParseOrFail(m.record_lines);
      ASSERT_TRUE(lines.back().has_result());
      EXPECT_TRUE(lines.back().result().higher_score_wins());
    }
  }
}

TEST(QuabbleRecords, AssetFileMatchesVerifyAndAChangedFileIsCaught) {
  const std::string path = ::testing::TempDir() + "/quabble-rec-" +
                           std::to_string(::getpid()) + ".textproto";
  const std::string list =
      "assets { name: \"Pigs\" count: 20 value: 1 power: "
      "QUABBLE_POWER_SET_SQUARE }\n"
      "assets { name: \"Snatchers\" count: 10 value: 2 power: "
      "QUABBLE_POWER_SNATCH }\n"
      "assets { name: \"Turns\" count: 6 value: 1 power: "
      "QUABBLE_POWER_MISDIRECTION }\n";
  std::ofstream(path) << list;
  Options o{{"assets", path}};
  auto game = CreateGame("quabble", o, 3);
  ASSERT_TRUE(game.ok()) << game.status();
  auto m = testing::PlayLocal(**game, RecordSpec(5, o), testing::RandomPolicy(5));
  auto lines = testing::ParseOrFail(m.record_lines);
  ASSERT_TRUE(VerifyRecord(lines, "t").ok());
  // 36 cards, 3 seats: 5 rounds + 7 with draws.
  int rounds = 0;
  for (const auto& l : lines) {
    if (l.has_event() && l.event().event().quabble().has_round_start()) ++rounds;
  }
  EXPECT_EQ(rounds, 12);

  // The organiser edits the file afterwards: the record no longer matches.
  std::ofstream(path) << "# edited\n" << list << "assets { name: \"More\" count: 1 "
                      << "power: QUABBLE_POWER_NONE }\n";
  absl::Status s = VerifyRecord(lines, "t");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("event differs"));
  EXPECT_THAT(s.message(), HasSubstr("asset_list_fingerprint"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace arena
