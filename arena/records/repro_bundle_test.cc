// Seat transcripts and repro bundles (arena/records/seat_transcript.h,
// arena/records/repro_bundle.h).
//
// The no-leak property, over many random matches of every registered game
// (the conformance grid) with seats that fault at random (no answer, an
// index out of range), under both fault policies: what a record's transcript
// says a seat was sent is exactly what the seat was sent, as captured live at
// the link; each bundle is exactly that seat's messages up to its first
// fault, with its answers, and holds nothing else (no MatchEnd, seed, salt
// or reveal); a seat without a fault gets no bundle. Then the hostile
// reading of bundles, and a record that does not play again is refused.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/records/repro_bundle.h"
#include "arena/records/seat_transcript.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/conformance_util.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using conformance::GridPoint;
using google::protobuf::util::MessageDifferencer;

constexpr int kMatchesPerPoint = 6;
constexpr int64_t kMatchCap = 600;

// What a seat was sent, captured at the link, with what it answered.
struct LiveSeat {
  std::vector<v1::RefereeMessage> messages;
  // Per request, in order: the index it gave (kNoAnswer: none).
  std::vector<int> answers;
  std::vector<int> num_legal;
};

struct LiveMatch {
  std::vector<LiveSeat> seats;
  std::vector<std::string> record;
  MatchOutcome outcome;
};

// Seats in `faulty` fault on about one request in 8: no answer or an index
// out of range, at random; every other answer is a random legal index.
LiveMatch PlayWithFaults(const Game& game, const MatchSpec& spec, uint64_t seed,
                         const std::vector<bool>& faulty) {
  LiveMatch live;
  live.seats.resize(game.num_seats());
  auto rng = std::make_shared<Rng>(seed);
  auto policy = [&, rng](int seat, const v1::MatchStart&, const v1::DecisionRequest& r) {
    const int n = r.legal_actions_size();
    int a = static_cast<int>(rng->Uniform(n));
    if (faulty[seat] && rng->Uniform(8) == 0) {
      a = rng->Uniform(2) == 0 ? LocalSeatLink::kNoAnswer
                               : n + static_cast<int>(rng->Uniform(3));
    }
    live.seats[seat].answers.push_back(a);
    live.seats[seat].num_legal.push_back(n);
    return a;
  };
  auto tap = [&](int seat, const google::protobuf::Message& m) {
    v1::RefereeMessage out;
    if (auto* s = dynamic_cast<const v1::MatchStart*>(&m)) *out.mutable_match_start() = *s;
    if (auto* r = dynamic_cast<const v1::DecisionRequest*>(&m)) *out.mutable_decision_request() = *r;
    if (auto* e = dynamic_cast<const v1::MatchEnd*>(&m)) *out.mutable_match_end() = *e;
    live.seats[seat].messages.push_back(std::move(out));
  };
  LocalSeatLink link(policy, tap);
  auto writer = RecordWriter::Open("", spec.match_id);
  EXPECT_TRUE(writer.ok());
  live.outcome = RunMatch(game, spec, link, **writer);
  live.record = (*writer)->lines();
  return live;
}

bool IsFault(int answer, int num_legal) {
  return answer == LocalSeatLink::kNoAnswer || answer < 0 || answer >= num_legal;
}

std::string JsonOf(const google::protobuf::Message& m) {
  std::string s;
  google::protobuf::util::JsonPrintOptions po;
  po.preserve_proto_field_names = true;
  po.always_print_primitive_fields = true;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &s, po).ok());
  return s;
}

// The full names of every message type held in `m`, each between spaces.
std::string TypesIn(const google::protobuf::Message& m) {
  std::string out = absl::StrCat(" ", m.GetDescriptor()->full_name(), " ");
  const google::protobuf::Reflection* r = m.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const auto* f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(m, f); ++i) {
        absl::StrAppend(&out, TypesIn(r->GetRepeatedMessage(m, f, i)));
      }
    } else {
      absl::StrAppend(&out, TypesIn(r->GetMessage(m, f)));
    }
  }
  return out;
}

class ReproNoLeak : public ::testing::TestWithParam<GridPoint> {};

TEST_P(ReproNoLeak, BundlesAreWhatTheSeatWasSentUpToItsFault) {
  const GridPoint& p = GetParam();
  auto game = CreateGame(p.game, p.options, p.seats);
  ASSERT_TRUE(game.ok()) << game.status();
  const testing::TestDir tmp = testing::FreshTempDir(absl::StrCat("repro-", ::getpid()));
  int bundles = 0, requests_checked = 0;
  for (int i = 0; i < kMatchesPerPoint; ++i) {
    MatchSpec spec;
    spec.match_id = absl::StrCat(conformance::ParamName(p), "-", i);
    spec.game_name = p.game;
    spec.options = p.options;
    spec.seed = DeriveSeed(0x5eed + i, p.seats * 131 + static_cast<int>(p.label.size()));
    spec.seed_salt = std::string(64, 'a' + i);
    spec.tournament_id = "t1";
    spec.fault_policy = i % 2 ? v1::FAULT_POLICY_RANDOM_MOVE : v1::FAULT_POLICY_FORFEIT;
    spec.auto_moves = i % 3 == 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE;
    spec.decision_cap = std::min<int64_t>((*game)->info().default_decision_cap, kMatchCap);
    spec.time_control.set_decision_ms(i % 2 ? 1500 : 0);  // 0: the default
    for (int s = 0; s < p.seats; ++s) spec.seat_bots.push_back(absl::StrCat("bot", s % 2));
    Rng pick(spec.seed ^ 77);
    std::vector<bool> faulty(p.seats);
    for (int s = 0; s < p.seats; ++s) faulty[s] = pick.Uniform(2) == 0;
    faulty[pick.Uniform(p.seats)] = true;
    LiveMatch live = PlayWithFaults(**game, spec, spec.seed ^ 99, faulty);
    auto lines = testing::ParseOrFail(live.record);
    const std::string where = absl::StrCat(spec.match_id, " (seed ", spec.seed, ")");

    auto transcripts = SeatTranscripts(lines, spec.match_id);
    ASSERT_TRUE(transcripts.ok()) << where << ": " << transcripts.status();
    ASSERT_EQ(transcripts->size(), static_cast<size_t>(p.seats));
    // The request of the forfeited step that another seat never saw taken.
    const v1::MatchResult& result = live.outcome.result;
    const bool forfeit = result.end_reason() == v1::END_REASON_FORFEIT;
    for (int s = 0; s < p.seats; ++s) {
      const LiveSeat& ls = live.seats[s];
      const SeatTranscript& t = (*transcripts)[s];
      const std::vector<v1::RefereeMessage> got = t.Messages();
      ASSERT_EQ(got.size(), ls.messages.size()) << where << " seat " << s;
      for (size_t k = 0; k < got.size(); ++k) {
        ASSERT_TRUE(MessageDifferencer::Equals(got[k], ls.messages[k]))
            << where << " seat " << s << " message " << k << ": rebuilt "
            << got[k].ShortDebugString().substr(0, 400) << "\nsent "
            << ls.messages[k].ShortDebugString().substr(0, 400);
      }
      ASSERT_EQ(t.requests.size(), ls.answers.size());
      // The seat's first counted fault: a fault in a step that was taken,
      // or the one that forfeited the match.
      int first_fault = -1;
      for (size_t k = 0; k < t.requests.size(); ++k) {
        const v1::SeatAction& a = t.requests[k].answer;
        const int step = t.requests[k].request.step();
        const bool untaken = forfeit && step == static_cast<int>(result.decisions()) &&
                             result.forfeit_seat() != s;
        ++requests_checked;
        if (untaken) {
          EXPECT_EQ(a.source(), v1::SeatAction::SOURCE_UNSPECIFIED) << where;
          continue;
        }
        if (IsFault(ls.answers[k], ls.num_legal[k])) {
          EXPECT_EQ(a.source(), v1::SeatAction::SOURCE_REFEREE_FAULT) << where;
          EXPECT_EQ(a.fault(), ls.answers[k] == LocalSeatLink::kNoAnswer
                                   ? v1::FAULT_KIND_TIMEOUT
                                   : v1::FAULT_KIND_ILLEGAL)
              << where;
          if (first_fault < 0) first_fault = static_cast<int>(k);
        } else {
          EXPECT_EQ(a.source(), v1::SeatAction::SOURCE_BOT) << where;
          EXPECT_EQ(a.action(), ls.answers[k]) << where;
        }
      }
      auto all = MakeReproBundles(lines, spec.match_id);
      ASSERT_TRUE(all.ok()) << all.status();
      const v1::ReproBundle* b = nullptr;
      for (const auto& x : *all) {
        if (x.seat() == s) b = &x;
      }
      if (first_fault < 0) {
        EXPECT_EQ(b, nullptr) << where << ": seat " << s << " had no fault, but a bundle";
        continue;
      }
      ASSERT_NE(b, nullptr) << where << ": seat " << s << " faulted, but no bundle";
      ++bundles;
      EXPECT_TRUE(CheckReproBundle(*b).ok()) << CheckReproBundle(*b);
      EXPECT_EQ(b->match_id(), spec.match_id);
      EXPECT_EQ(b->tournament_id(), "t1");
      EXPECT_EQ(b->game(), p.game);
      EXPECT_EQ(b->bot(), spec.seat_bots[s]);
      ASSERT_TRUE(MessageDifferencer::Equals(b->match_start(), ls.messages[0].match_start()));
      ASSERT_EQ(b->exchanges_size(), first_fault + 1) << where << " seat " << s;
      for (int k = 0; k <= first_fault; ++k) {
        const v1::ReproExchange& x = b->exchanges(k);
        ASSERT_TRUE(MessageDifferencer::Equals(x.request(),
                                               ls.messages[1 + k].decision_request()))
            << where << " seat " << s << " request " << k;
        EXPECT_EQ(x.answer().decision_id(), x.request().decision_id());
        if (k < first_fault) {
          EXPECT_EQ(x.answer().fault(), v1::FAULT_KIND_UNSPECIFIED);
          EXPECT_EQ(x.answer().action(), ls.answers[k]);
        }
      }
      const int last = ls.answers[first_fault];
      EXPECT_EQ(b->fault().kind(), last == LocalSeatLink::kNoAnswer ? v1::FAULT_KIND_TIMEOUT
                                                                     : v1::FAULT_KIND_ILLEGAL);
      EXPECT_EQ(b->fault().decision_id(), b->exchanges(first_fault).request().decision_id());
      EXPECT_EQ(b->exchanges(first_fault).answer().fault(), b->fault().kind());
      // The referee's random move in its place was never the bot's to see.
      EXPECT_EQ(b->exchanges(first_fault).answer().action(), 0);
      // Nothing but what the seat was sent: no end, no seed, salt or reveal.
      const std::string json = JsonOf(*b);
      const std::string kinds = TypesIn(*b);
      for (const char* banned : {"arena.v1.MatchEnd", "arena.v1.MatchResult",
                                 "arena.v1.SeedReveal", "arena.v1.RecordHeader",
                                 "arena.v1.RecordLine"}) {
        EXPECT_FALSE(absl::StrContains(kinds, absl::StrCat(" ", banned, " "))) << where;
      }
      EXPECT_FALSE(absl::StrContains(json, spec.seed_salt)) << where;
      EXPECT_FALSE(absl::StrContains(json, absl::StrCat(spec.seed))) << where;
      // Written 0600 (its folder 0700) and read back the same.
      const std::string path = ReproBundlePath(tmp.path(), b->match_id(), b->bot(), s);
      ASSERT_TRUE(WriteReproBundle(path, *b).ok());
      struct stat st;
      ASSERT_EQ(::stat(path.c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, 0600u);
      ASSERT_EQ(::stat(path.substr(0, path.rfind('/')).c_str(), &st), 0);
      EXPECT_EQ(st.st_mode & 0777, 0700u);
      auto back = ReadReproBundle(path);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_TRUE(MessageDifferencer::Equals(*back, *b));
    }
  }
  std::printf("%s: %d bundles, %d requests checked\n", conformance::ParamName(p).c_str(),
              bundles, requests_checked);
  EXPECT_GT(requests_checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Grid, ReproNoLeak, ::testing::ValuesIn(conformance::MakeGrid()),
                         [](const ::testing::TestParamInfo<GridPoint>& info) {
                           return conformance::ParamName(info.param);
                         });

// One quasenbo match with a timeout of seat 1 at its third request.
std::vector<v1::RecordLine> FaultyRecord() {
  auto game = CreateGame("quasenbo", {}, 2);
  EXPECT_TRUE(game.ok());
  MatchSpec spec;
  spec.match_id = "m1";
  spec.game_name = "quasenbo";
  spec.seed = 42;
  spec.seat_bots = {"a", "b"};
  auto asked = std::make_shared<int>(0);
  auto m = testing::PlayLocal(**game, spec,
                              [asked](int seat, const v1::MatchStart&, const v1::DecisionRequest&) {
                                return seat == 1 && ++*asked == 3 ? LocalSeatLink::kNoAnswer : 0;
                              });
  return testing::ParseOrFail(m.record_lines);
}

TEST(SeatTranscript, ARecordThatDoesNotPlayAgainIsRefusedNamingTheLine) {
  std::vector<v1::RecordLine> lines = FaultyRecord();
  ASSERT_TRUE(SeatTranscripts(lines, "m1").ok());
  // The first bot decision answered otherwise than recorded: the label no
  // longer matches (and what follows differs).
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].has_decision()) continue;
    v1::SeatAction* a = lines[i].mutable_decision()->mutable_actions(0);
    if (a->source() != v1::SeatAction::SOURCE_BOT) continue;
    a->set_label("something else");
    auto t = SeatTranscripts(lines, "m1");
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(absl::StrContains(t.status().message(),
                                  absl::StrCat("differs at line ", i + 1, " (step ",
                                               lines[i].decision().step(), ")")))
        << t.status();
    break;
  }
  lines.pop_back();  // no result
  EXPECT_FALSE(SeatTranscripts(lines, "m1").ok());
}

TEST(SeatTranscript, TheForfeitedRequestIsTheBundlesLast) {
  const std::vector<v1::RecordLine> lines = FaultyRecord();
  auto bundles = MakeReproBundles(lines, "m1");
  ASSERT_TRUE(bundles.ok()) << bundles.status();
  ASSERT_EQ(bundles->size(), 1u);
  const v1::ReproBundle& b = (*bundles)[0];
  EXPECT_EQ(b.seat(), 1);
  EXPECT_EQ(b.bot(), "b");
  ASSERT_EQ(b.exchanges_size(), 3);  // its third request timed out
  EXPECT_EQ(b.fault().kind(), v1::FAULT_KIND_TIMEOUT);
  EXPECT_EQ(b.fault().detail(), "timeout: no answer (local policy)");
  EXPECT_EQ(b.exchanges(0).answer().action(), 0);
  EXPECT_TRUE(b.exchanges(0).answer().recorded());
  EXPECT_EQ(ReproBundlePath("R", "m/1", "../x", 1), "R/repro/.._x/m_1-seat1.json");
}

// A bot that faults in every match gets bundles for its first
// kMaxMatchesPerBot matches only; another bot still gets its own. (The
// folder holds no records, so every queued match is counted as failed: what
// is checked here is which matches are queued.)
TEST(ReproBundleWriter, ABotThatFaultsEveryMatchGetsItsFirstMatchesBundledOnly) {
  const testing::TestDir dir = testing::FreshTempDir(absl::StrCat("bundlecap-", ::getpid()));
  ReproBundleWriter writer(dir.path());
  const int cap = ReproBundleWriter::kMaxMatchesPerBot;
  auto faulty = [](const std::string& id, int seat) {
    MatchSummary m;
    m.match_id = id;
    m.seat_bots = {"hog", "fine"};
    m.faults.push_back({seat, v1::FAULT_KIND_TIMEOUT});
    return m;
  };
  for (int i = 0; i < cap + 8; ++i) writer.Add(faulty(absl::StrCat("h", i), 0));
  writer.Add(faulty("f0", 1));  // the other bot's first fault: bundled
  MatchSummary no_show = faulty("n0", 1);
  no_show.faults[0].kind = v1::FAULT_KIND_NO_SHOW;  // never bundled, never counted
  writer.Add(no_show);
  const ReproBundleWriter::Totals t = writer.Finish();
  EXPECT_EQ(t.written, 0);
  EXPECT_EQ(t.failed, cap + 1);
  EXPECT_EQ(t.capped, 8);
  EXPECT_EQ(t.no_show, 1);
}

// A bot withdrawn after a few crashes has a few bundles and many matches
// forfeited as no-shows: those are counted as such, apart from the cap, so
// that the report says why they have none.
TEST(ReproBundleWriter, NoShowsAreCountedApartFromTheCap) {
  const testing::TestDir dir = testing::FreshTempDir(absl::StrCat("bundlenoshow-", ::getpid()));
  ReproBundleWriter writer(dir.path());
  auto match = [](const std::string& id, v1::FaultKind kind) {
    MatchSummary m;
    m.match_id = id;
    m.seat_bots = {"gone", "fine"};
    m.faults.push_back({0, kind});
    return m;
  };
  for (int i = 0; i < 8; ++i) writer.Add(match(absl::StrCat("c", i), v1::FAULT_KIND_CRASHED));
  for (int i = 0; i < 362; ++i) writer.Add(match(absl::StrCat("n", i), v1::FAULT_KIND_NO_SHOW));
  MatchSummary clean = match("ok", v1::FAULT_KIND_NO_SHOW);
  clean.faults.clear();
  writer.Add(clean);
  const ReproBundleWriter::Totals t = writer.Finish();
  EXPECT_EQ(t.failed, 8);  // no records in the folder: queued, then failed
  EXPECT_EQ(t.capped, 0);
  EXPECT_EQ(t.no_show, 362);
}

class ReadBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bundles = MakeReproBundles(FaultyRecord(), "m1");
    ASSERT_TRUE(bundles.ok());
    good_ = (*bundles)[0];
  }
  // Reads `text` as a bundle file; the error, or "" if it reads.
  std::string Read(const std::string& text) {
    const std::string path = absl::StrCat(dir_.path(), "/b.json");
    std::ofstream(path) << text;
    auto b = ReadReproBundle(path);
    return b.ok() ? "" : std::string(b.status().message());
  }
  std::string ReadMessage(const v1::ReproBundle& b) { return Read(JsonOf(b)); }

  testing::TestDir dir_ = testing::FreshTempDir(absl::StrCat("readbundle-", ::getpid()));
  v1::ReproBundle good_;
};

TEST_F(ReadBundle, HostileFilesAreRefusedNamingWhatIsWrong) {
  EXPECT_EQ(ReadMessage(good_), "");
  EXPECT_TRUE(absl::StrContains(Read(""), "not a repro bundle")) << Read("");
  EXPECT_TRUE(absl::StrContains(Read("[1,2]"), "not a repro bundle"));
  EXPECT_TRUE(absl::StrContains(Read("{\"seat\": \"two\"}"), "not a repro bundle"));
  EXPECT_TRUE(absl::StrContains(Read("{\"secret\": 1}"), "secret")) << Read("{\"secret\": 1}");
  EXPECT_TRUE(absl::StrContains(Read("{}"), "format_version"));
  v1::ReproBundle b = good_;
  b.mutable_exchanges(1)->mutable_request()->set_match_id("other");
  EXPECT_TRUE(absl::StrContains(ReadMessage(b), "exchanges[1].request.match_id"));
  b = good_;
  b.mutable_match_start()->set_seat(0);
  EXPECT_TRUE(absl::StrContains(ReadMessage(b), "match_start.seat"));
  b = good_;
  b.clear_exchanges();
  EXPECT_TRUE(absl::StrContains(ReadMessage(b), "exchanges is empty"));
  b = good_;
  b.mutable_exchanges(2)->mutable_request()->clear_legal_actions();
  EXPECT_TRUE(absl::StrContains(ReadMessage(b), "exchanges[2].request.legal_actions"));
  b = good_;
  b.mutable_exchanges(0)->mutable_request()->set_deadline_ms(-5);
  EXPECT_TRUE(absl::StrContains(ReadMessage(b), "deadline_ms"));
  b = good_;
  b.mutable_fault()->set_decision_id(1);
  EXPECT_TRUE(absl::StrContains(ReadMessage(b), "fault.decision_id"));
  b = good_;
  b.set_seat(7);
  EXPECT_TRUE(absl::StrContains(ReadMessage(b), "seat 7"));
  // Too large: refused before it is parsed.
  const std::string huge(kMaxReproBundleBytes + 1, ' ');
  EXPECT_TRUE(absl::StrContains(Read(huge), "more than a bundle's")) << Read(huge).substr(0, 200);
  // Not a regular file: never opened.
  const std::string fifo = absl::StrCat(dir_.path(), "/fifo.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto f = ReadReproBundle(fifo);
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(absl::StrContains(f.status().message(), "FIFO")) << f.status();
  EXPECT_FALSE(ReadReproBundle(absl::StrCat(dir_.path(), "/missing.json")).ok());
}

}  // namespace
}  // namespace arena
