// The conformance suite: one set of properties, run over every registered
// game (GameNames()) and a grid of its options and seat counts derived from
// its GameInfo (tests/conformance_util.h: MakeGrid). A game that registers
// itself is covered without a line here. Per grid point, over many seeded
// random matches through the real match runner:
//   NoLeak           every seat is sent exactly the events it may see, and
//                    no card in its view or legal actions it was not shown;
//                    MatchStart reveals nothing of the deal, MatchStart and
//                    MatchEnd are the same for every seat but for the seat;
//   RecordsVerify    every record re-simulates (VerifyRecord), forfeits and
//                    random moves after faults included;
//   TamperingFails   a changed action, event (of every kind met), header,
//                    result, a cut record or a missing event is refused;
//   DecisionCap      capped matches end at the cap, say so, and verify; a
//                    record that disagrees with its cap is refused;
//   Determinism      same seed and actions: the same record; another seed:
//                    another deal;
//   Simultaneous     a seat deciding at the same time as others is sent the
//                    same request whatever the others choose in that step;
//                    a game has such steps if and only if it declares them
//                    (GameInfo::simultaneous_steps);
//   Labels           the label of each chosen action, from its request alone
//                    (State::ActionLabelFromRequest), is the one recorded.
// ConformanceFaults plants a fault of each kind and shows the checks fail;
// ConformanceEndToEnd runs `arena tournament` and `arena verify` per game.
// A game outside the bundled ones (ARENA_EXTRA_GAMES, e.g. tests/toy_game)
// has its messages packed in google.protobuf.Any (the `other` slots): the
// checks unpack them (Unpacked in conformance_util.h) and look inside.
// How to add a game and what each check asks of it: docs/adding-a-game.md.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "arena/records/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/game_api/rng.h"
#include "tests/conformance_util.h"
#include "tests/e2e_util.h"
#include "tests/test_util.h"

namespace arena::conformance {
namespace {

using ::testing::HasSubstr;

// Matches per property and grid point: until this many decisions are played
// (or kMaxMatches), and never fewer than kMinMatches. Long options (e.g. 100
// winning points) are cut by kMatchCap: such matches end by the cap, which
// every property handles as well.
constexpr int64_t kDecisionBudget = 12000;
constexpr int kMinMatches = 3;
constexpr int kMaxMatches = 24;
constexpr int64_t kMatchCap = 3000;

const std::vector<GridPoint>& Grid() {
  static const auto* grid = new std::vector<GridPoint>(MakeGrid());
  return *grid;
}

std::unique_ptr<Game> MakeGame(const GridPoint& p) {
  auto game = CreateGame(p.game, p.options, p.seats);
  EXPECT_TRUE(game.ok()) << game.status();
  return game.ok() ? std::move(*game) : nullptr;
}

MatchSpec SpecFor(const GridPoint& p, const Game& game, uint64_t seed, int i) {
  MatchSpec spec;
  spec.match_id = absl::StrCat(ParamName(p), "-", i);
  spec.game_name = p.game;
  spec.options = p.options;
  spec.seed = seed;
  spec.auto_moves = i % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
  spec.decision_cap = std::min(game.info().default_decision_cap, kMatchCap);
  return spec;
}

uint64_t SeedOf(const GridPoint& p, int i) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a of the point's name
  for (char c : ParamName(p)) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return DeriveSeed(h, i);
}

// Plays matches of the point until the budget is spent; `each` sees each one.
void ForMatches(const GridPoint& p, const Game& game,
                const std::function<void(int i, const MatchSpec&, int64_t* decisions)>& each) {
  int64_t decisions = 0;
  for (int i = 0; i < kMaxMatches && (i < kMinMatches || decisions < kDecisionBudget); ++i) {
    each(i, SpecFor(p, game, SeedOf(p, i), i), &decisions);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

class Conformance : public ::testing::TestWithParam<GridPoint> {};

// ---------------------------------------------------------------------------

TEST_P(Conformance, NoLeak) {
  const GridPoint& p = GetParam();
  auto game = MakeGame(p);
  ASSERT_NE(game, nullptr);
  LeakStats stats;
  std::string first_start;
  int matches = 0;
  ForMatches(p, *game, [&](int i, const MatchSpec& spec, int64_t* decisions) {
    testing::LocalMatch m;
    auto sent = PlayAndListen(*game, spec, testing::RandomPolicy(spec.seed ^ 5), &m);
    *decisions += m.outcome.result.decisions();
    ++matches;
    CheckNoLeak(*game, p.seats, testing::ParseOrFail(m.record_lines), sent, &stats);
    ASSERT_TRUE(stats.problems.empty())
        << spec.match_id << " (seed " << spec.seed << "): " << stats.problems[0];
    // The MatchStart of another deal is the same: it holds nothing of it.
    for (const SentMessage& s : sent) {
      if (const auto* start = dynamic_cast<const v1::MatchStart*>(s.message.get())) {
        v1::MatchStart c = *start;
        c.clear_seat();
        c.clear_seed_commitment();
        c.clear_match_id();
        if (first_start.empty()) first_start = c.SerializeAsString();
        ASSERT_EQ(c.SerializeAsString(), first_start)
            << spec.match_id << ": MatchStart depends on the deal: " << c.ShortDebugString();
        break;
      }
    }
  });
  std::printf("%s: %d matches, %lld requests, %lld cards checked, %lld private events "
              "(%lld redacted)\n",
              ParamName(p).c_str(), matches, static_cast<long long>(stats.requests),
              static_cast<long long>(stats.card_refs),
              static_cast<long long>(stats.private_events),
              static_cast<long long>(stats.redacted_events));
  // The checks saw real content: requests, cards in them, hidden events.
  EXPECT_GT(stats.requests, 0);
  EXPECT_GT(stats.card_refs, 0);
  EXPECT_GT(stats.private_events, 0);
}

// ---------------------------------------------------------------------------

TEST_P(Conformance, RecordsVerify) {
  const GridPoint& p = GetParam();
  auto game = MakeGame(p);
  ASSERT_NE(game, nullptr);
  int verified = 0;
  ForMatches(p, *game, [&](int i, const MatchSpec& spec, int64_t* decisions) {
    auto m = testing::PlayLocal(*game, spec, testing::RandomPolicy(spec.seed));
    *decisions += m.outcome.result.decisions();
    EXPECT_NE(m.outcome.result.end_reason(), v1::END_REASON_FORFEIT) << spec.match_id;
    absl::Status s = VerifyRecord(testing::ParseOrFail(m.record_lines), spec.match_id);
    ASSERT_TRUE(s.ok()) << s;
    ++verified;
  });
  EXPECT_GE(verified, kMinMatches);
  // Faults: an illegal answer at a seat's first request forfeits the match,
  // or is replaced by a random move; both records verify.
  for (auto policy : {v1::FAULT_POLICY_FORFEIT, v1::FAULT_POLICY_RANDOM_MOVE}) {
    MatchSpec spec = SpecFor(p, *game, SeedOf(p, 1000), 1);
    spec.fault_policy = policy;
    auto requests = std::make_shared<std::map<int, int>>();
    auto random = testing::RandomPolicy(spec.seed);
    auto bad_seat = std::make_shared<int>(-1);  // the first seat asked
    auto m = testing::PlayLocal(
        *game, spec,
        [&](int seat, const v1::MatchStart& st, const v1::DecisionRequest& r) {
          if (*bad_seat < 0) *bad_seat = seat;
          if (seat == *bad_seat && ++(*requests)[seat] == 1) {
            return r.legal_actions_size() + 5;
          }
          return random(seat, st, r);
        });
    auto lines = testing::ParseOrFail(m.record_lines);
    if (policy == v1::FAULT_POLICY_FORFEIT) {
      ASSERT_EQ(m.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
      EXPECT_EQ(m.outcome.result.forfeit_seat(), *bad_seat);
    } else {
      EXPECT_NE(m.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
      EXPECT_FALSE(m.outcome.faults.empty());
    }
    absl::Status s = VerifyRecord(lines, "faults");
    EXPECT_TRUE(s.ok()) << v1::FaultPolicy_Name(policy) << ": " << s;
  }
}

// ---------------------------------------------------------------------------
// Tampering.

// Changes the first scalar field set in `m` (depth first): ints +1, bools
// flipped, enums to another value. False if it holds none.
bool ChangeOneLeaf(google::protobuf::Message* m) {
  using google::protobuf::FieldDescriptor;
  if (auto inner = Unpacked(*m)) {  // a game's message in an Any: change it there
    if (!ChangeOneLeaf(inner.get())) return false;
    static_cast<google::protobuf::Any*>(m)->PackFrom(*inner);
    return true;
  }
  const auto* refl = m->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(*m, &fields);
  for (const FieldDescriptor* f : fields) {
    const bool rep = f->is_repeated();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (rep) {
          for (int k = 0; k < refl->FieldSize(*m, f); ++k) {
            if (ChangeOneLeaf(refl->MutableRepeatedMessage(m, f, k))) return true;
          }
        } else if (ChangeOneLeaf(refl->MutableMessage(m, f))) {
          return true;
        }
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        if (rep) refl->SetRepeatedInt32(m, f, 0, refl->GetRepeatedInt32(*m, f, 0) + 1);
        else refl->SetInt32(m, f, refl->GetInt32(*m, f) + 1);
        return true;
      case FieldDescriptor::CPPTYPE_INT64:
        if (rep) refl->SetRepeatedInt64(m, f, 0, refl->GetRepeatedInt64(*m, f, 0) + 1);
        else refl->SetInt64(m, f, refl->GetInt64(*m, f) + 1);
        return true;
      case FieldDescriptor::CPPTYPE_UINT32:
        if (rep) refl->SetRepeatedUInt32(m, f, 0, refl->GetRepeatedUInt32(*m, f, 0) + 1);
        else refl->SetUInt32(m, f, refl->GetUInt32(*m, f) + 1);
        return true;
      case FieldDescriptor::CPPTYPE_UINT64:
        if (rep) refl->SetRepeatedUInt64(m, f, 0, refl->GetRepeatedUInt64(*m, f, 0) + 1);
        else refl->SetUInt64(m, f, refl->GetUInt64(*m, f) + 1);
        return true;
      case FieldDescriptor::CPPTYPE_BOOL:
        if (rep) refl->SetRepeatedBool(m, f, 0, !refl->GetRepeatedBool(*m, f, 0));
        else refl->SetBool(m, f, !refl->GetBool(*m, f));
        return true;
      case FieldDescriptor::CPPTYPE_ENUM: {
        const auto* e = f->enum_type();
        const int now = rep ? refl->GetRepeatedEnumValue(*m, f, 0) : refl->GetEnumValue(*m, f);
        const int other = e->value(0)->number() == now ? e->value(e->value_count() - 1)->number()
                                                       : e->value(0)->number();
        if (other == now) break;
        if (rep) refl->SetRepeatedEnumValue(m, f, 0, other);
        else refl->SetEnumValue(m, f, other);
        return true;
      }
      default:
        break;
    }
  }
  return false;
}

// The event kind: the name of the set field of the game's event message
// (unpacked from the Any for a game outside the bundled ones).
std::string EventKind(const v1::Event& e) {
  const auto* refl = e.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  refl->ListFields(e, &fields);
  for (const auto* f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const auto unpacked = Unpacked(refl->GetMessage(e, f));
    const auto& game_event = unpacked ? *unpacked : refl->GetMessage(e, f);
    std::vector<const google::protobuf::FieldDescriptor*> inner;
    game_event.GetReflection()->ListFields(game_event, &inner);
    return absl::StrCat(f->name(), ".", inner.empty() ? "empty" : inner[0]->name());
  }
  return "none";
}

TEST_P(Conformance, TamperingFails) {
  const GridPoint& p = GetParam();
  auto game = MakeGame(p);
  ASSERT_NE(game, nullptr);
  std::set<std::string> kinds_tampered;
  int matches = 0;
  ForMatches(p, *game, [&](int i, const MatchSpec& spec, int64_t* decisions) {
    if (i >= 4) return;  // a few matches suffice; every event kind is tried
    auto m = testing::PlayLocal(*game, spec, testing::RandomPolicy(spec.seed));
    *decisions += m.outcome.result.decisions();
    const auto lines = testing::ParseOrFail(m.record_lines);
    ASSERT_TRUE(VerifyRecord(lines, "t").ok());
    ++matches;
    auto refused = [&](const std::vector<v1::RecordLine>& bad, const std::string& what) {
      absl::Status s = VerifyRecord(bad, "t");
      EXPECT_FALSE(s.ok()) << spec.match_id << ": " << what << " was not caught";
      if (!s.ok()) {
        EXPECT_THAT(s.message(), HasSubstr(spec.match_id)) << what;
      }
    };
    // One action: a bot's choice, another index (another label or illegal).
    for (size_t k = 0; k < lines.size(); ++k) {
      if (!lines[k].has_decision()) continue;
      const auto& a = lines[k].decision().actions(0);
      if (a.source() != v1::SeatAction::SOURCE_BOT || lines[k].decision().step() < 2) continue;
      auto bad = lines;
      bad[k].mutable_decision()->mutable_actions(0)->set_action(a.action() + 1);
      refused(bad, absl::StrCat("action at step ", lines[k].decision().step()));
      break;
    }
    // One event of every kind met (its first occurrence).
    for (size_t k = 0; k < lines.size(); ++k) {
      if (!lines[k].has_event()) continue;
      const std::string kind = EventKind(lines[k].event().event());
      if (!kinds_tampered.insert(kind).second) continue;
      auto bad = lines;
      v1::Event* ev = bad[k].mutable_event()->mutable_event();
      const int32_t step = ev->step();
      ev->clear_step();
      const bool changed = ChangeOneLeaf(ev);
      ev->set_step(step);
      if (changed) {
        refused(bad, absl::StrCat("event ", kind, " (line ", k + 1, ")"));
      }
      auto missing = lines;
      missing.erase(missing.begin() + k);
      refused(missing, absl::StrCat("missing event ", kind));
    }
    // The header: seed, options, seats' bots.
    {
      auto bad = lines;
      bad[0].mutable_header()->set_seed(lines[0].header().seed() + 1);
      refused(bad, "header seed");
      bad = lines;
      (*bad[0].mutable_header()->mutable_options())["conformance"] = "x";
      refused(bad, "header options");
      bad = lines;
      bad[0].mutable_header()->set_seat_bots(0, "someone-else");
      refused(bad, "header seat bots");
    }
    // The result, and a record cut short.
    {
      auto bad = lines;
      ASSERT_TRUE(bad.back().has_result());
      auto* r = bad.back().mutable_result();
      r->set_scores(0, r->scores(0) + 1);
      refused(bad, "result score");
      bad = lines;
      bad.resize(lines.size() / 2);
      refused(bad, "a record cut in half");
    }
  });
  std::printf("%s: %d matches, %zu event kinds tampered\n", ParamName(p).c_str(), matches,
              kinds_tampered.size());
  EXPECT_GE(kinds_tampered.size(), 2u);
}

// ---------------------------------------------------------------------------

TEST_P(Conformance, DecisionCap) {
  const GridPoint& p = GetParam();
  auto game = MakeGame(p);
  ASSERT_NE(game, nullptr);
  int capped = 0, played = 0;
  for (int64_t cap : {1, 2, 3, 5, 8, 13, 21, 40}) {
    for (int i = 0; i < 3; ++i) {
      MatchSpec spec = SpecFor(p, *game, SeedOf(p, 100 + cap * 10 + i), i);
      spec.decision_cap = cap;
      auto m = testing::PlayLocal(*game, spec, testing::RandomPolicy(spec.seed));
      const v1::MatchResult& r = m.outcome.result;
      const auto lines = testing::ParseOrFail(m.record_lines);
      ++played;
      int last = -1;
      for (const auto& l : lines) {
        if (l.has_decision()) last = l.decision().step();
      }
      ASSERT_EQ(lines[0].header().decision_cap(), cap);
      if (r.end_reason() == v1::END_REASON_DECISION_CAP) {
        ++capped;
        ASSERT_EQ(r.decisions(), cap) << spec.match_id;
        ASSERT_EQ(last, cap - 1) << spec.match_id;  // the capping step is the last
        ASSERT_EQ(lines.back().result().end_reason(), v1::END_REASON_DECISION_CAP);
      } else {
        ASSERT_EQ(r.end_reason(), v1::END_REASON_NORMAL) << spec.match_id;
        ASSERT_LE(r.decisions(), cap);
      }
      absl::Status st = VerifyRecord(lines, "t");
      ASSERT_TRUE(st.ok()) << spec.match_id << " cap " << cap << ": " << st;
      if (r.end_reason() != v1::END_REASON_DECISION_CAP || i > 0) continue;
      // A record that disagrees with its cap is refused.
      {
        auto bad = lines;
        v1::RecordLine extra;
        for (const auto& l : lines) {
          if (l.has_decision()) extra = l;
        }
        extra.mutable_decision()->set_step(static_cast<int32_t>(cap));
        bad.insert(bad.end() - 1, extra);
        EXPECT_FALSE(VerifyRecord(bad, "t").ok()) << "a decision past the cap";
      }
      for (int64_t other : {cap - 1, cap + 1}) {
        auto bad = lines;
        bad[0].mutable_header()->set_decision_cap(other);
        EXPECT_FALSE(VerifyRecord(bad, "t").ok()) << "header cap " << other << " for " << cap;
      }
    }
  }
  EXPECT_GT(capped, 0) << "no match of " << played << " reached a cap of 1 to 40";
}

// ---------------------------------------------------------------------------

// The record's lines but for the wall clock (started_at and the digest that
// covers it), as strings.
std::vector<std::string> WithoutWallClock(const std::vector<std::string>& record) {
  std::vector<std::string> out;
  for (v1::RecordLine l : testing::ParseOrFail(record)) {
    if (l.has_header()) l.mutable_header()->clear_started_at();
    if (l.has_result()) l.mutable_result()->clear_header_digest();
    out.push_back(RecordLineToJson(l));
  }
  return out;
}

// The first event some seat may not see: the deal, or the first draw.
std::string FirstHiddenEvent(const std::vector<std::string>& record) {
  for (const auto& l : testing::ParseOrFail(record)) {
    if (l.has_event() && !l.event().visibility().is_public()) {
      return l.event().event().SerializeAsString();
    }
  }
  return "";
}

TEST_P(Conformance, Determinism) {
  const GridPoint& p = GetParam();
  auto game = MakeGame(p);
  ASSERT_NE(game, nullptr);
  for (int i = 0; i < 2; ++i) {
    const MatchSpec spec = SpecFor(p, *game, SeedOf(p, 500 + i), i);
    auto a = testing::PlayLocal(*game, spec, testing::RandomPolicy(spec.seed));
    auto again = CreateGame(p.game, p.options, p.seats);  // a fresh game object
    ASSERT_TRUE(again.ok());
    auto b = testing::PlayLocal(**again, spec, testing::RandomPolicy(spec.seed));
    ASSERT_EQ(WithoutWallClock(a.record_lines), WithoutWallClock(b.record_lines))
        << spec.match_id << ": the same match gave another record";
    for (size_t k = 1; k + 1 < a.record_lines.size(); ++k) {
      ASSERT_EQ(a.record_lines[k], b.record_lines[k]) << "line " << k + 1;  // byte for byte
    }
    MatchSpec other = spec;
    other.seed = spec.seed + 1;
    auto c = testing::PlayLocal(*game, other, testing::RandomPolicy(spec.seed));
    const std::string deal_a = FirstHiddenEvent(a.record_lines);
    ASSERT_FALSE(deal_a.empty()) << "no hidden event in " << spec.match_id;
    EXPECT_NE(deal_a, FirstHiddenEvent(c.record_lines))
        << spec.match_id << ": seeds " << spec.seed << " and " << other.seed
        << " dealt the same";
  }
}

// ---------------------------------------------------------------------------
// Labels from a request alone.

TEST_P(Conformance, LabelsFromTheRequestAreTheRecordedOnes) {
  const GridPoint& p = GetParam();
  auto game = MakeGame(p);
  ASSERT_NE(game, nullptr);
  // A state of another deal: only the rules may be used.
  const std::unique_ptr<State> reference = game->NewInitialState(SeedOf(p, 900));
  int64_t compared = 0;
  ForMatches(p, *game, [&](int, const MatchSpec& spec, int64_t* decisions) {
    absl::Mutex mu;
    std::map<std::pair<int, int>, std::string> labels;  // of the chosen action, by (step, seat)
    auto random = testing::RandomPolicy(spec.seed);
    auto m = testing::PlayLocal(
        *game, spec, [&](int seat, const v1::MatchStart& start, const v1::DecisionRequest& r) {
          absl::MutexLock lock(&mu);
          const int a = random(seat, start, r);
          labels[{r.step(), seat}] =
              reference->ActionLabelFromRequest(seat, r.view(), r.legal_actions(a));
          return a;
        });
    auto lines = ParseRecordLines(m.record_lines, spec.match_id);
    ASSERT_TRUE(lines.ok()) << lines.status();
    for (const v1::RecordLine& line : *lines) {
      if (!line.has_decision()) continue;
      ++*decisions;
      for (const v1::SeatAction& a : line.decision().actions()) {
        if (a.source() != v1::SeatAction::SOURCE_BOT) continue;
        auto it = labels.find({static_cast<int>(line.decision().step()), a.seat()});
        ASSERT_NE(it, labels.end()) << spec.match_id << " step " << line.decision().step();
        ASSERT_EQ(it->second, a.label())
            << spec.match_id << " step " << line.decision().step() << " seat " << a.seat();
        ++compared;
      }
    }
  });
  EXPECT_GT(compared, 0);
}

// ---------------------------------------------------------------------------
// Simultaneous decisions.

// A policy that replays chosen indices by (step, seat), else picks at random;
// it notes every choice it makes.
struct Script {
  std::map<std::pair<int, int>, int> chosen;
  std::map<std::pair<int, int>, int> forced;
  Rng rng{1};
  int Choose(int seat, const v1::DecisionRequest& r) {
    const auto key = std::make_pair(static_cast<int>(r.step()), seat);
    const int n = r.legal_actions_size();
    auto it = forced.find(key);
    const int a = it != forced.end() ? it->second % n : static_cast<int>(rng.Uniform(n));
    chosen[key] = a;
    return a;
  }
};

// Requests by (step, seat), serialized.
using Requests = std::map<std::pair<int, int>, std::string>;

// Plays the match with `script`; `leak` plants a transport fault: a seat's
// request in a simultaneous step also carries the choices the others made.
Requests PlayScripted(const Game& game, const MatchSpec& spec, Script* script,
                      bool leak = false, std::vector<std::string>* record = nullptr) {
  Requests requests;
  auto m = testing::PlayLocal(
      game, spec,
      [script](int seat, const v1::MatchStart&, const v1::DecisionRequest& r) {
        return script->Choose(seat, r);
      },
      [&](int seat, const google::protobuf::Message& msg) {
        const auto* r = dynamic_cast<const v1::DecisionRequest*>(&msg);
        if (r == nullptr) return;
        v1::DecisionRequest copy = *r;
        if (leak && r->simultaneous()) {
          for (const auto& [key, a] : script->chosen) {
            if (key.first == r->step() && key.second != seat) {
              copy.mutable_view()->add_events()->set_step(1000000 + a);
            }
          }
        }
        requests[{r->step(), seat}] = copy.SerializeAsString();
      });
  if (record) *record = m.record_lines;
  return requests;
}

struct SimultaneousSteps {
  int met = 0;    // steps with several acting seats, in the matches played
  int tried = 0;  // of those, played again with another choice
};

// Over a few matches, for simultaneous steps: play again with one acting
// seat choosing otherwise in that step; every other acting seat's request
// of that step must be the same. Returns the steps met and tried; reports
// failures.
SimultaneousSteps CheckSimultaneous(const GridPoint& p, const Game& game, bool leak,
                                    std::vector<std::string>* failures) {
  SimultaneousSteps steps;
  for (int i = 0; i < 6 && steps.tried < 6; ++i) {
    const MatchSpec spec = SpecFor(p, game, SeedOf(p, 700 + i), i);
    Script first;
    first.rng = Rng(spec.seed);
    std::vector<std::string> record_a;
    const Requests a = PlayScripted(game, spec, &first, leak, &record_a);
    // Steps with several requests.
    std::map<int, std::vector<int>> by_step;
    for (const auto& [key, bytes] : a) by_step[key.first].push_back(key.second);
    int here = 0;
    for (const auto& [step, seats] : by_step) {
      if (seats.size() >= 2) ++steps.met;
      if (seats.size() < 2 || here >= 2) continue;
      v1::DecisionRequest r0;
      r0.ParseFromString(a.at({step, seats[0]}));
      if (!r0.simultaneous()) {
        failures->push_back(absl::StrCat(spec.match_id, " step ", step,
                                         ": several requests, not marked simultaneous"));
        continue;
      }
      if (r0.legal_actions_size() < 2) continue;
      Script second;
      second.rng = Rng(spec.seed ^ 0x5eed);
      second.forced = first.chosen;
      second.forced[{step, seats[0]}] = first.chosen[{step, seats[0]}] + 1;
      std::vector<std::string> record_b;
      const Requests b = PlayScripted(game, spec, &second, leak, &record_b);
      ++steps.tried;
      ++here;
      if (record_a == record_b) {
        failures->push_back(absl::StrCat(spec.match_id, " step ", step,
                                         ": another choice changed nothing"));
      }
      for (size_t k = 1; k < seats.size(); ++k) {
        auto it = b.find({step, seats[k]});
        if (it == b.end() || it->second != a.at({step, seats[k]})) {
          failures->push_back(absl::StrCat(spec.match_id, " step ", step, ": seat ", seats[k],
                                           "'s request depends on seat ", seats[0],
                                           "'s choice in the same step"));
        }
      }
    }
  }
  return steps;
}

// A game's simultaneous steps against what `info` declares: a game that
// declares them must have had some with a choice in the matches played (a
// check that ran on none would prove nothing), and one that does not must
// have had none. The problem, or "".
std::string SimultaneousDeclarationProblem(const GridPoint& p, const GameInfo& info,
                                           const SimultaneousSteps& steps) {
  if (info.simultaneous_steps && steps.tried == 0) {
    return absl::StrCat(ParamName(p), " declares simultaneous steps (GameInfo::",
                        "simultaneous_steps) but had none with a choice (", steps.met,
                        " with several acting seats)");
  }
  if (!info.simultaneous_steps && steps.met > 0) {
    return absl::StrCat(ParamName(p), " had ", steps.met, " steps with several acting seats ",
                        "but does not declare simultaneous steps (GameInfo::simultaneous_steps)");
  }
  return "";
}

TEST_P(Conformance, SimultaneousChoicesStayHidden) {
  const GridPoint& p = GetParam();
  auto game = MakeGame(p);
  ASSERT_NE(game, nullptr);
  std::vector<std::string> failures;
  const SimultaneousSteps steps = CheckSimultaneous(p, *game, false, &failures);
  for (const auto& f : failures) ADD_FAILURE() << f;
  std::printf("%s: %d simultaneous steps played otherwise\n", ParamName(p).c_str(),
              steps.tried);
  EXPECT_EQ(SimultaneousDeclarationProblem(p, game->info(), steps), "");
  if (!game->info().simultaneous_steps && steps.met == 0) {
    GTEST_SKIP() << p.game << " declares no simultaneous steps and had none";
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, Conformance, ::testing::ValuesIn(Grid()),
                         [](const ::testing::TestParamInfo<GridPoint>& info) {
                           return ParamName(info.param);
                         });

// ---------------------------------------------------------------------------
// Planted faults: each check fails on a fault of its kind, in every game.

class ConformanceFaults : public ::testing::TestWithParam<std::string> {
 protected:
  GridPoint Point() const {
    const GameInfo* info = FindGameInfo(GetParam());
    return {GetParam(), info->default_seats, {}, "defaults"};
  }
};

// Runs the no-leak checks on a few matches of `played`, against the events
// of `reference`; the first problem found, or "".
std::string FirstLeak(const GridPoint& p, const Game& played, const Game& reference) {
  LeakStats stats;
  for (int i = 0; i < 4 && stats.problems.empty(); ++i) {
    const MatchSpec spec = SpecFor(p, played, SeedOf(p, 900 + i), i);
    testing::LocalMatch m;
    auto sent = PlayAndListen(played, spec, testing::RandomPolicy(spec.seed), &m);
    CheckNoLeak(reference, p.seats, testing::ParseOrFail(m.record_lines), sent, &stats);
  }
  return stats.problems.empty() ? "" : stats.problems[0];
}

TEST_P(ConformanceFaults, NoLeakCatchesAViewWithAnotherSeatsView) {
  const GridPoint p = Point();
  PlantedGame leaky(MakeGame(p), Plant::kPeek);
  const std::string leak = FirstLeak(p, leaky, leaky);
  EXPECT_THAT(leak, HasSubstr("was never shown to this seat"));
  std::printf("caught: %s\n", leak.substr(0, 300).c_str());
  // The wrapper alone, without the plant, passes.
  PlantedGame honest(MakeGame(p), Plant::kNone);
  EXPECT_EQ(FirstLeak(p, honest, honest), "");
}

TEST_P(ConformanceFaults, NoLeakCatchesFullEventsSentInsteadOfRedacted) {
  // Played with redaction forgotten, checked against the game's own events:
  // as if the runner sent full events where the game redacted them.
  const GridPoint p = Point();
  PlantedGame leaky(MakeGame(p), Plant::kForgetRedaction);
  auto real = MakeGame(p);
  const std::string leak = FirstLeak(p, leaky, *real);
  EXPECT_THAT(leak, HasSubstr("but the seat may see"));
  std::printf("caught: %s\n", leak.substr(0, 300).c_str());
}

TEST_P(ConformanceFaults, TamperChecksAndDeterminismCompareSomething) {
  // The record comparisons of the Determinism property: a record with one
  // action changed is another record.
  const GridPoint p = Point();
  auto game = MakeGame(p);
  const MatchSpec spec = SpecFor(p, *game, SeedOf(p, 1), 0);
  auto a = testing::PlayLocal(*game, spec, testing::RandomPolicy(1));
  auto b = testing::PlayLocal(*game, spec, testing::RandomPolicy(2));
  EXPECT_NE(WithoutWallClock(a.record_lines), WithoutWallClock(b.record_lines));
  // ChangeOneLeaf changes every event of the record.
  for (const auto& l : testing::ParseOrFail(a.record_lines)) {
    if (!l.has_event()) continue;
    v1::Event e = l.event().event();
    e.clear_step();
    const std::string before = e.SerializeAsString();
    if (ChangeOneLeaf(&e)) {
      EXPECT_NE(e.SerializeAsString(), before);
    }
  }
}

TEST_P(ConformanceFaults, SimultaneousCatchesAForwardedChoiceAndAWrongDeclaration) {
  const GridPoint p = Point();
  auto game = MakeGame(p);
  std::vector<std::string> failures;
  const SimultaneousSteps steps = CheckSimultaneous(p, *game, /*leak=*/true, &failures);
  // The same steps against the opposite declaration: a game that declares
  // simultaneous steps and has none, or has some it does not declare.
  GameInfo misdeclared = game->info();
  misdeclared.simultaneous_steps = !misdeclared.simultaneous_steps;
  EXPECT_THAT(SimultaneousDeclarationProblem(p, misdeclared, steps),
              HasSubstr(misdeclared.simultaneous_steps ? "but had none with a choice"
                                                       : "but does not declare"));
  EXPECT_EQ(SimultaneousDeclarationProblem(p, game->info(), steps), "");
  if (steps.tried == 0) {
    GTEST_SKIP() << p.game << " had no simultaneous step with a choice to forward";
  }
  ASSERT_FALSE(failures.empty());
  EXPECT_THAT(failures[0], HasSubstr("depends on seat"));
}

INSTANTIATE_TEST_SUITE_P(Games, ConformanceFaults, ::testing::ValuesIn(GameNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// ---------------------------------------------------------------------------
// End to end: real processes.

class ConformanceEndToEnd : public ::testing::TestWithParam<std::string> {};

TEST_P(ConformanceEndToEnd, TournamentOfTheGamesBotVerifies) {
  using testing::kBin;
  const std::string game = GetParam();
  const GameInfo* info = FindGameInfo(game);
  std::string bot = absl::StrCat(kBin, "/", game, "_bot");
  if (!std::filesystem::exists(bot)) bot = kBin + "/random_bot";
  const int games = 4;
  const std::string dir = testing::FreshTempDir(absl::StrCat("conformance-", game));
  testing::Cmd r = testing::Sh(absl::StrCat(
      kBin, "/arena tournament --game ", game, " --seats ", info->default_seats,
      " --bot random=", kBin, "/random_bot --bot own=", bot, " --games ", games,
      " --jobs 2 --seed 7 --decision_cap ", std::min<int64_t>(info->default_decision_cap, 3000),
      " --records ", dir));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(absl::StrCat(games, "/", games, " matches"))) << r.output;
  testing::Cmd v = testing::Sh(absl::StrCat(kBin, "/arena verify ", dir));
  EXPECT_EQ(v.code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr(absl::StrCat(games, " of ", games, " records verified")));
  testing::Sh("rm -rf " + dir);
}

INSTANTIATE_TEST_SUITE_P(Games, ConformanceEndToEnd, ::testing::ValuesIn(GameNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace arena::conformance
