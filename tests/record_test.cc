// Records: fault records, broken lines, the writer, the JSON mapping, edited
// records, the formats (compact, JSON lines, compressed JSON lines) and
// their dictionaries. (Every game's records re-simulating, and
// tampered ones refused: tests/conformance_test.cc.)
#include <malloc.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/str_format.h"
#include "arena/records/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "google/protobuf/util/json_util.h"
#include "referee/records/json_writer.h"
#include "referee/records/record.h"
#include "referee/records/record_dictionaries.h"
#include "zstd.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

MatchSpec Spec(uint64_t seed, Options o = {}) {
  MatchSpec spec;
  spec.match_id = "m" + std::to_string(seed);
  spec.game_name = "quasenbo";
  spec.options = std::move(o);
  spec.seed = seed;
  return spec;
}

// Re-simulation over many seeds, same seed same record, the decision cap and
// tampered records (a changed action, seed, event, result; a cut record; a
// missing event) are checked for every game and option grid by
// tests/conformance_test.cc. What follows is what records do beyond that.

// Seat 1 answers with an illegal index from its third decision on.
int Seat1IllegalFromStep5(int seat, const v1::MatchStart&, const v1::DecisionRequest& r) {
  return seat == 1 && r.step() >= 5 ? 99 : 0;
}

TEST(Records, ForfeitAndRandomMoveRecordsVerify) {
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok());
  const auto bad = Seat1IllegalFromStep5;
  MatchSpec spec = Spec(5);
  spec.auto_moves = v1::AUTO_MOVES_NONE;
  auto forfeit = testing::PlayLocal(**game, spec, bad);
  EXPECT_EQ(forfeit.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  EXPECT_EQ(forfeit.outcome.result.forfeit_seat(), 1);
  EXPECT_EQ(forfeit.outcome.result.placements(1), 2);
  EXPECT_THAT(forfeit.outcome.result.detail(), HasSubstr("illegal action"));
  EXPECT_TRUE(VerifyRecord(testing::ParseOrFail(forfeit.record_lines), "t").ok());

  spec.fault_policy = v1::FAULT_POLICY_RANDOM_MOVE;
  auto random = testing::PlayLocal(**game, spec, bad);
  EXPECT_NE(random.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  bool saw_fault = false;
  for (const auto& l : testing::ParseOrFail(random.record_lines)) {
    for (const auto& a : l.decision().actions()) {
      if (a.source() == v1::SeatAction::SOURCE_REFEREE_FAULT) {
        saw_fault = true;
        EXPECT_EQ(a.fault(), v1::FAULT_KIND_ILLEGAL);
      }
    }
  }
  EXPECT_TRUE(saw_fault);
  EXPECT_TRUE(VerifyRecord(testing::ParseOrFail(random.record_lines), "t").ok());
}

// A writer with a finished-hook hands over, once the record is whole under
// its name, its header, forfeit and result lines and of its decisions only
// the referee's faults, as they are in the file; nothing before Finish.
TEST(RecordWriterTest, TheFinishedHookGetsTheSummaryLinesOnceTheRecordIsWhole) {
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok());
  MatchSpec spec = Spec(5);
  spec.auto_moves = v1::AUTO_MOVES_NONE;
  spec.fault_policy = v1::FAULT_POLICY_RANDOM_MOVE;
  const auto played = testing::ParseOrFail(
      testing::PlayLocal(**game, spec, Seat1IllegalFromStep5).record_lines);
  for (RecordFormat f : {RecordFormat::kCompact, RecordFormat::kJsonl}) {
    const testing::TestDir tmp = testing::FreshTempDir("hook");
    auto w = RecordWriter::Open(tmp.path(), "m", f);
    ASSERT_TRUE(w.ok()) << w.status();
    int calls = 0;
    std::string path;
    std::vector<v1::RecordLine> got;
    (*w)->set_on_finished([&](const std::string& p, std::vector<v1::RecordLine> lines) {
      ++calls;
      path = p;
      got = std::move(lines);
      EXPECT_TRUE(std::filesystem::exists(p)) << "called before the record is in place";
    });
    ASSERT_TRUE((*w)->AppendAll(played).ok());
    EXPECT_EQ(calls, 0);
    ASSERT_TRUE((*w)->Finish().ok());
    ASSERT_EQ(calls, 1);
    EXPECT_EQ(path, (*w)->final_path());
    // Expected: from the file read back, kept by hand.
    auto file = ReadRecordFile(path);
    ASSERT_TRUE(file.ok()) << file.status();
    std::vector<v1::RecordLine> want;
    int fault_actions = 0;
    for (const auto& l : *file) {
      if (l.has_decision()) {
        v1::RecordLine kept;
        for (const auto& a : l.decision().actions()) {
          if (a.source() != v1::SeatAction::SOURCE_REFEREE_FAULT) continue;
          kept.mutable_decision()->set_step(l.decision().step());
          *kept.mutable_decision()->add_actions() = a;
          ++fault_actions;
        }
        if (kept.has_decision()) want.push_back(kept);
      } else if (!l.has_event()) {
        want.push_back(l);
      }
    }
    ASSERT_GT(fault_actions, 0) << "no fault in the match: the test could not fail";
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].SerializeAsString(), want[i].SerializeAsString()) << "line " << i;
    }
    EXPECT_TRUE(got.front().has_header());
    EXPECT_TRUE(got.back().has_result());
  }
}

TEST(Records, BrokenLineIsNamed) {
  auto s = ParseRecordLines({"{\"header\":{}}", "{not json"}, "x.jsonl");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("x.jsonl: line 2"));
  auto u = ParseRecordLines({"{\"bogus_field\":1}"}, "y.jsonl");
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(u.status().message(), HasSubstr("y.jsonl: line 1"));
}

TEST(Records, UnknownGameInHeaderIsNamed) {
  v1::RecordLine h;
  h.mutable_header()->set_format_version(kRecordFormatVersion);
  h.mutable_header()->set_seed_commitment(std::string(64, '0'));
  h.mutable_header()->set_match_id("m1");
  h.mutable_header()->set_game("chess");
  EXPECT_THAT(VerifyRecord({h}, "t").message(), HasSubstr("unknown game 'chess'"));
}

// A record appears under its final name only when finished; until then a
// short one is in memory only (no file: the unfinished .part appears when it
// spills, see RecordWriterTest below), beside a hidden folder (0700).
TEST(Records, WriterRenamesOnlyWhenFinished) {
  const testing::TestDir tmp = testing::FreshTempDir("records");
  const std::string& dir = tmp.path();
  auto w = RecordWriter::Open(dir, "finish-me");
  ASSERT_TRUE(w.ok());
  v1::RecordLine l;
  l.mutable_header()->set_match_id("finish-me");
  ASSERT_TRUE((*w)->Append(l).ok());
  EXPECT_FALSE(ReadRecordFile(dir + "/finish-me.rec").ok());
  EXPECT_EQ((*w)->part_path(), dir + "/.inprogress/finish-me.rec.part");
  struct stat st;
  EXPECT_NE(::stat((*w)->part_path().c_str(), &st), 0);
  ASSERT_EQ(::stat((dir + "/.inprogress").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_TRUE((*w)->Finish().ok());
  ASSERT_EQ(::stat((dir + "/finish-me.rec").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/.inprogress"));
  auto back = ReadRecordFile(dir + "/finish-me.rec");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].header().match_id(), "finish-me");
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// The record writer's JSON is protobuf's JSON mapping: over thousands of real
// record lines (every event kind, decisions with faults, results, headers),
// protobuf's own parser reads it back to the same message, and apart from
// the header (whose options map protobuf may order differently) it is
// byte for byte what MessageToJsonString writes.
TEST(RecordJson, WriterMatchesProtobufsJsonMapping) {
  int lines = 0, compared_bytes = 0;
  for (int seats = 2; seats <= 5; ++seats) {
    Options o{{"excuse", "true"}, {"pawns", "true"}, {"courts", "true"},
              {"double_quasenbo", "true"}};
    auto game = CreateGame("quasenbo", o, seats);
    ASSERT_TRUE(game.ok());
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      MatchSpec spec = Spec(seed * 31 + seats, o);
      spec.fault_policy = seed % 2 ? v1::FAULT_POLICY_RANDOM_MOVE
                                   : v1::FAULT_POLICY_FORFEIT;
      auto policy = [seed](int seat, const v1::MatchStart&,
                           const v1::DecisionRequest& r) {
        return r.step() == static_cast<int>(seed % 9) ? -3 : 0;  // one fault
      };
      auto m = testing::PlayLocal(**game, spec, policy);
      for (const std::string& json : m.record_lines) {
        v1::RecordLine back;
        google::protobuf::util::JsonParseOptions po;
        ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &back, po).ok())
            << json;
        std::string again;
        AppendJson(back, &again);
        EXPECT_EQ(again, json);
        if (!back.has_header()) {
          std::string lib;
          google::protobuf::util::JsonPrintOptions opts;
          opts.preserve_proto_field_names = true;
          ASSERT_TRUE(google::protobuf::util::MessageToJsonString(back, &lib, opts).ok());
          EXPECT_EQ(json, lib);
          ++compared_bytes;
        }
        ++lines;
      }
    }
  }
  EXPECT_GT(lines, 5000);
  EXPECT_GT(compared_bytes, 4000);
}

TEST(RecordJson, StringsAndSpecialDoublesFollowTheMapping) {
  v1::RecordLine l;
  v1::MatchResult* r = l.mutable_result();
  r->set_detail("a \"quote\", a \\ backslash, <tags>, a\ttab, \x01, Quäsenbö");
  r->add_scores(0.5);
  r->add_scores(-3);
  r->add_scores(1e21);
  r->add_scores(0.1);
  std::string mine;
  AppendJson(l, &mine);
  std::string lib;
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(l, &lib, opts).ok());
  EXPECT_EQ(mine, lib);
  r->add_scores(std::nan(""));
  r->add_scores(-INFINITY);
  mine.clear();
  AppendJson(l, &mine);
  EXPECT_THAT(mine, HasSubstr("\"NaN\",\"-Infinity\""));
  v1::RecordLine back;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(mine, &back).ok());
  EXPECT_TRUE(std::isinf(back.result().scores(5)));
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// verify checks everything a record holds, not only that its actions
// re-simulate: every edit below must be caught.
class Edited : public ::testing::Test {
 protected:
  // A 3-seat match with random moves after faults (so that every source and
  // fault kind appears) and a forfeit-policy match.
  void SetUp() override {
    auto game = CreateGame("quasenbo", {{"excuse", "true"}}, 3);
    ASSERT_TRUE(game.ok());
    MatchSpec spec;
    spec.match_id = "edit-me";
    spec.game_name = "quasenbo";
    spec.options = {{"excuse", "true"}};
    spec.seed = 77;
    spec.seed_salt = std::string(64, 'a');
    spec.seat_bots = {"alice", "bob", "carol"};
    spec.time_control.set_decision_ms(2000);
    spec.fault_policy = v1::FAULT_POLICY_RANDOM_MOVE;
    auto policy = [rng = std::make_shared<Rng>(5)](
                      int seat, const v1::MatchStart&, const v1::DecisionRequest& r) {
      if (seat == 2 && r.step() % 4 == 2) return 1000;  // an illegal index
      return static_cast<int>(rng->Uniform(r.legal_actions_size()));
    };
    lines_ = testing::ParseOrFail(testing::PlayLocal(**game, spec, policy).record_lines);
    ASSERT_TRUE(VerifyRecord(lines_, "t").ok()) << VerifyRecord(lines_, "t");
  }
  // The first action of `source` in the record: {line index, action index}.
  std::pair<int, int> Find(v1::SeatAction::Source source) {
    for (size_t i = 0; i < lines_.size(); ++i) {
      for (int k = 0; k < lines_[i].decision().actions_size(); ++k) {
        if (lines_[i].decision().actions(k).source() == source) return {i, k};
      }
    }
    return {-1, -1};
  }
  void ExpectFails(const std::string& what, const std::string& says) {
    absl::Status s = VerifyRecord(lines_, "t");
    EXPECT_FALSE(s.ok()) << what;
    EXPECT_THAT(std::string(s.message()), ::testing::ContainsRegex("match edit-me[0-9]*: line [0-9]+")) << what;
    EXPECT_THAT(s.message(), HasSubstr(says)) << what << ": " << s.message();
  }
  std::vector<v1::RecordLine> lines_;
};

TEST_F(Edited, EveryHeaderFieldIsCovered) {
  using google::protobuf::FieldDescriptor;
  const auto* desc = v1::RecordHeader::descriptor();
  const std::vector<v1::RecordLine> original = lines_;
  int edited = 0;
  for (int i = 0; i < desc->field_count(); ++i) {
    const FieldDescriptor* f = desc->field(i);
    lines_ = original;
    v1::RecordHeader* h = lines_[0].mutable_header();
    const auto* refl = h->GetReflection();
    if (f->is_map()) {
      (*h->mutable_options())["courts"] = "true";
    } else if (f->is_repeated()) {
      // seat_bots: swap two seats' bots.
      ASSERT_EQ(f->name(), "seat_bots");
      h->mutable_seat_bots()->SwapElements(0, 1);
    } else {
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_STRING:
          refl->SetString(h, f, refl->GetString(*h, f) + "0");
          break;
        case FieldDescriptor::CPPTYPE_INT32:
          refl->SetInt32(h, f, refl->GetInt32(*h, f) + 1);
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          refl->SetInt64(h, f, refl->GetInt64(*h, f) + 1);
          break;
        case FieldDescriptor::CPPTYPE_UINT64:
          refl->SetUInt64(h, f, refl->GetUInt64(*h, f) + 1);
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          refl->SetBool(h, f, !refl->GetBool(*h, f));
          break;
        case FieldDescriptor::CPPTYPE_ENUM:
          refl->SetEnumValue(h, f, refl->GetEnumValue(*h, f) == 1 ? 2 : 1);
          break;
        case FieldDescriptor::CPPTYPE_MESSAGE:  // time_control
          h->mutable_time_control()->set_decision_ms(100);
          break;
        default:
          FAIL() << "field " << f->name() << " is not edited by this test";
      }
    }
    ExpectFails(absl::StrCat("header field ", f->name()), "");
    ++edited;
  }
  EXPECT_EQ(edited, desc->field_count());
}

TEST_F(Edited, SwappedSeatBotsNameTheHeader) {
  lines_[0].mutable_header()->mutable_seat_bots()->SwapElements(0, 2);
  ExpectFails("seat bots", "the header (line 1) was changed");
}

TEST_F(Edited, RevealThatDoesNotOpenTheCommitment) {
  lines_.back().mutable_result()->mutable_reveal()->set_salt(std::string(64, 'b'));
  ExpectFails("salt", "commitment does not open");
  lines_.back().mutable_result()->clear_reveal();
  ExpectFails("no reveal", "reveals no seed");
}

TEST_F(Edited, RelabelledDecisionSources) {
  const std::vector<v1::RecordLine> original = lines_;
  auto [bl, ba] = Find(v1::SeatAction::SOURCE_BOT);
  auto [fl, fa] = Find(v1::SeatAction::SOURCE_REFEREE_FAULT);
  auto [ol, oa] = Find(v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE);
  ASSERT_GE(bl, 0);
  ASSERT_GE(fl, 0);
  ASSERT_GE(ol, 0);
  auto action = [&](int l, int a) { return lines_[l].mutable_decision()->mutable_actions(a); };

  action(bl, ba)->set_source(v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE);
  ExpectFails("bot -> only move", "");
  lines_ = original;
  action(bl, ba)->set_source(v1::SeatAction::SOURCE_REFEREE_FAULT);
  action(bl, ba)->set_fault(v1::FAULT_KIND_TIMEOUT);
  action(bl, ba)->set_fault_detail("timeout: no answer within 2s");
  ExpectFails("bot -> fault", "timeout after");
  lines_ = original;
  action(fl, fa)->set_source(v1::SeatAction::SOURCE_BOT);
  ExpectFails("fault -> bot", "carries a fault");
  lines_ = original;
  action(ol, oa)->set_source(v1::SeatAction::SOURCE_BOT);
  ExpectFails("only move -> bot", "answers decision 0");
  lines_ = original;
  action(fl, fa)->set_action((action(fl, fa)->action() + 1) % 2);
  ExpectFails("another random move", "");
}

TEST_F(Edited, RelabelledFaultKinds) {
  auto [fl, fa] = Find(v1::SeatAction::SOURCE_REFEREE_FAULT);
  ASSERT_GE(fl, 0);
  auto* a = lines_[fl].mutable_decision()->mutable_actions(fa);
  ASSERT_EQ(a->fault(), v1::FAULT_KIND_ILLEGAL);
  a->set_fault(v1::FAULT_KIND_DISCONNECTED);
  ExpectFails("illegal -> disconnected", "DISCONNECTED fault but its detail reads");
}

TEST_F(Edited, FaultPolicyAndTimeControlAgainstTheEvents) {
  const std::vector<v1::RecordLine> original = lines_;
  // Only the commitment and digest would tell without these checks: make
  // them agree with the edit, as a forger who recomputes them would.
  auto reseal = [&] {
    v1::RecordHeader* h = lines_[0].mutable_header();
    h->set_seed_commitment(SeedCommitment(h->match_id(), h->seed(),
                                          lines_.back().result().reveal().salt()));
    lines_.back().mutable_result()->set_header_digest(HeaderDigest(*h));
  };
  lines_[0].mutable_header()->set_fault_policy(v1::FAULT_POLICY_FORFEIT);
  reseal();
  ExpectFails("policy", "the header's fault policy forfeits");
  lines_ = original;
  lines_[0].mutable_header()->set_auto_moves(v1::AUTO_MOVES_NONE);
  reseal();
  ExpectFails("auto moves", "sends every decision to the bots");
  lines_ = original;
  // A bot that took longer than the (edited) time control allows.
  int64_t longest = 0;
  for (const auto& l : lines_) {
    for (const auto& a : l.decision().actions()) {
      if (a.source() == v1::SeatAction::SOURCE_BOT) longest = std::max(longest, a.think_us());
    }
  }
  for (auto& l : lines_) {
    if (!l.has_decision()) continue;
    for (auto& a : *l.mutable_decision()->mutable_actions()) {
      if (a.source() == v1::SeatAction::SOURCE_BOT) a.set_think_us(5000000);
    }
  }
  reseal();
  ExpectFails("time control", "over the time control's 2000000 us");
  (void)longest;
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// Every format reads back line for line as the others, and verifies; a
// Quodlibet partie (the longest match) is under 100 KB compressed either
// way, and the compact record is the smallest.
TEST(RecordFormats, EveryFormatReadsBackLineForLineAndVerifies) {
  auto game = CreateGame("quodlibet", {}, 4);
  ASSERT_TRUE(game.ok()) << game.status();
  MatchSpec spec;
  spec.match_id = "partie";
  spec.game_name = "quodlibet";
  spec.seed = 4242;
  spec.seat_bots = {"a", "b", "c", "d"};
  const testing::TestDir tmp = testing::FreshTempDir("formats");
  const std::string& templ = tmp.path();
  const std::vector<RecordFormat> formats = {RecordFormat::kJsonl, RecordFormat::kJsonlZstd,
                                             RecordFormat::kCompact};
  std::map<RecordFormat, std::string> path;
  std::map<RecordFormat, std::vector<v1::RecordLine>> read;
  std::map<RecordFormat, off_t> size;
  for (RecordFormat f : formats) {
    const std::string dir = absl::StrCat(templ, "/", RecordSuffix(f));
    ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
    auto w = RecordWriter::Open(dir, spec.match_id, f);
    ASSERT_TRUE(w.ok());
    LocalSeatLink link(testing::RandomPolicy(7));
    MatchOutcome o = RunMatch(**game, spec, link, **w);
    ASSERT_TRUE(o.record_status.ok()) << o.record_status;
    EXPECT_EQ(o.record_path, absl::StrCat(dir, "/partie", RecordSuffix(f)));
    path[f] = o.record_path;
    auto lines = ReadRecordFile(o.record_path);
    ASSERT_TRUE(lines.ok()) << lines.status();
    EXPECT_TRUE(VerifyRecord(*lines, o.record_path).ok());
    read[f] = *lines;
    // Without its events: the same lines, the event lines left out.
    auto summary = ReadRecordFileWithoutEvents(o.record_path);
    ASSERT_TRUE(summary.ok()) << summary.status();
    std::vector<std::string> expected, got;
    int events = 0;
    for (const auto& l : *lines) {
      if (l.has_event()) {
        ++events;
      } else {
        expected.push_back(l.SerializeAsString());
      }
    }
    for (const auto& l : *summary) got.push_back(l.SerializeAsString());
    EXPECT_GT(events, 0);
    EXPECT_EQ(got, expected) << RecordSuffix(f);
    // Nothing is left in progress: no spilled part, no compressed part.
    const std::string hidden = absl::StrCat(dir, "/", kInProgressDir);
    EXPECT_TRUE(std::filesystem::is_empty(hidden)) << hidden;
    struct stat st;
    ASSERT_EQ(::stat(o.record_path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    size[f] = st.st_size;
  }
  for (RecordFormat f : formats) {
    ASSERT_EQ(read[f].size(), read[RecordFormat::kJsonl].size());
    read[f].front().mutable_header()->clear_started_at();  // wall clock
    read[f].back().mutable_result()->clear_header_digest();
    for (size_t i = 0; i < read[f].size(); ++i) {
      if (read[f][i].has_decision()) {
        for (auto& a : *read[f][i].mutable_decision()->mutable_actions()) a.clear_think_us();
      }
      EXPECT_EQ(read[f][i].SerializeAsString(),
                read[RecordFormat::kJsonl][i].SerializeAsString())
          << RecordSuffix(f) << " line " << i + 1;
    }
  }
  EXPECT_LT(size[RecordFormat::kJsonlZstd], 100 * 1000);
  EXPECT_LT(size[RecordFormat::kCompact], size[RecordFormat::kJsonlZstd]);
  std::cout << "Quodlibet partie record: " << size[RecordFormat::kJsonl] << " bytes plain, "
            << size[RecordFormat::kJsonlZstd] << " zstd, " << size[RecordFormat::kCompact]
            << " compact\n";

  // A cut or corrupted compressed record is refused with the file named.
  for (RecordFormat f : {RecordFormat::kJsonlZstd, RecordFormat::kCompact}) {
    std::ifstream in(path[f], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = absl::StrCat(templ, "/cut", RecordSuffix(f));
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    auto c = ReadRecordFile(cut);
    ASSERT_FALSE(c.ok()) << cut;
    EXPECT_THAT(c.status().message(), HasSubstr(cut));
    bytes[bytes.size() / 2] ^= 0x5a;
    const std::string bad = absl::StrCat(templ, "/bad", RecordSuffix(f));
    std::ofstream(bad, std::ios::binary) << bytes;
    auto b = ReadRecordFile(bad);
    ASSERT_FALSE(b.ok()) << bad;  // the compact frame's checksum
    EXPECT_THAT(b.status().message(), HasSubstr(bad));
    auto bs = ReadRecordFileWithoutEvents(bad);
    ASSERT_FALSE(bs.ok()) << bad;
    EXPECT_THAT(bs.status().message(), HasSubstr(bad));
  }
}

// Open file descriptors of this process.
int OpenDescriptors() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)e;
    ++n;
  }
  return n;
}

// A live match's record holds no file and no compressor: 256 records open
// at once, each with a few lines written, hold no descriptor, take well
// under 16 KiB of heap each (a zstd context at level 3 is 0.8 to 1.7 MiB),
// and each still finishes as a valid record of its format.
TEST(RecordWriterTest, ALiveRecordHoldsNoDescriptorAndNoCompressor) {
  for (RecordFormat f : {RecordFormat::kCompact, RecordFormat::kJsonl,
                         RecordFormat::kJsonlZstd}) {
    const testing::TestDir tmp = testing::FreshTempDir("live");
    const std::string& dir = tmp.path();
    v1::RecordLine line;
    line.mutable_header()->set_match_id("m");
    line.mutable_header()->set_game("quasenbo");
    v1::RecordLine event;
    event.mutable_event()->mutable_visibility()->set_is_public(true);
    std::vector<std::unique_ptr<RecordWriter>> open;
    const int fds = OpenDescriptors();
    const size_t before = mallinfo2().uordblks;
    for (int i = 0; i < 256; ++i) {
      auto w = RecordWriter::Open(dir, absl::StrCat("m", i), f);
      ASSERT_TRUE(w.ok()) << w.status();
      ASSERT_TRUE((*w)->Append(line).ok());
      for (int k = 0; k < 20; ++k) ASSERT_TRUE((*w)->Append(event).ok());
      open.push_back(*std::move(w));
    }
    const size_t per_record = (mallinfo2().uordblks - before) / 256;
    std::cout << RecordSuffix(f) << ": heap per live record " << per_record << " bytes\n";
    EXPECT_LT(per_record, 4u * 1024) << RecordSuffix(f);
    EXPECT_EQ(OpenDescriptors(), fds) << RecordSuffix(f);
    EXPECT_TRUE(std::filesystem::is_empty(absl::StrCat(dir, "/", kInProgressDir)));
    for (auto& w : open) {
      ASSERT_TRUE(w->Finish().ok());
      auto lines = ReadRecordFile(w->final_path());
      ASSERT_TRUE(lines.ok()) << lines.status();
      ASSERT_EQ(lines->size(), 21u);
      EXPECT_EQ(lines->front().header().game(), "quasenbo");
    }
    EXPECT_EQ(OpenDescriptors(), fds) << RecordSuffix(f);
  }
}

// A long match spills its record to the .part file a slice at a time (so
// that it holds at most kSpillBytes), and finishes whole; one that never
// finishes (an aborted match) leaves a .part that reads back as far as it
// went.
TEST(RecordWriterTest, ALongRecordSpillsAndAnUnfinishedOneStaysReadable) {
  for (RecordFormat f : {RecordFormat::kCompact, RecordFormat::kJsonl,
                         RecordFormat::kJsonlZstd}) {
    const testing::TestDir tmp = testing::FreshTempDir("spill");
    const std::string& dir = tmp.path();
    std::vector<v1::RecordLine> lines(1);
    lines[0].mutable_header()->set_match_id("long");
    lines[0].mutable_header()->set_game("quasenbo");
    for (int i = 0; i < 3000; ++i) {
      v1::RecordLine& d = lines.emplace_back();
      d.mutable_decision()->add_actions()->set_label(absl::StrCat("play card ", i));
    }
    for (bool finish : {true, false}) {
      std::string part;
      {
        auto w = RecordWriter::Open(dir, finish ? "long" : "cut", f);
        ASSERT_TRUE(w.ok()) << w.status();
        part = (*w)->part_path();
        bool spilled = false;
        for (const auto& l : lines) {
          ASSERT_TRUE((*w)->Append(l).ok());
          EXPECT_LT((*w)->buffered_bytes(), RecordWriter::kSpillBytes);
          spilled = spilled || std::filesystem::exists(part);
        }
        EXPECT_TRUE(spilled) << RecordSuffix(f);
        if (finish) {
          ASSERT_TRUE((*w)->Finish().ok());
          EXPECT_FALSE(std::filesystem::exists(part));
          auto back = ReadRecordFile((*w)->final_path());
          ASSERT_TRUE(back.ok()) << back.status();
          ASSERT_EQ(back->size(), lines.size());
          EXPECT_EQ(back->back().decision().actions(0).label(), "play card 2999");
        }
      }
      if (!finish) {
        auto back = ReadRecordFile(part);  // written by the destructor
        ASSERT_TRUE(back.ok()) << back.status();
        EXPECT_EQ(back->size(), lines.size()) << RecordSuffix(f);
        EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/cut", RecordSuffix(f))));
      }
    }
  }
}

// The compiled-in dictionaries: each is a zstd dictionary with an id of its
// own; every bundled game has one, and its compact records name it; a
// record compressed with a dictionary this build lacks is refused, naming
// the dictionary's id.
TEST(RecordDictionaries, EveryBundledGameHasOneAndItsRecordsNameIt) {
  std::set<uint32_t> ids;
  std::set<std::string> games;
  for (const RecordDictionary& d : CompiledRecordDictionaries()) {
    const uint32_t id = ZSTD_getDictID_fromDict(d.bytes.data(), d.bytes.size());
    EXPECT_GE(id, 32768u) << d.game << ": not a zstd dictionary, or a reserved id";
    EXPECT_TRUE(ids.insert(id).second) << d.game << ": id " << id << " is taken";
    games.insert(d.game);
  }
  for (const char* g : {"quasenbo", "pesten", "quodlibet", "quabble"}) {
    EXPECT_EQ(games.count(g), 1u) << g;
  }
  const testing::TestDir tmp = testing::FreshTempDir("dict");
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok());
  MatchSpec spec = Spec(31);
  spec.seat_bots = {"a", "b"};
  auto w = RecordWriter::Open(tmp.path(), spec.match_id);
  ASSERT_TRUE(w.ok());
  LocalSeatLink link(testing::RandomPolicy(3));
  MatchOutcome o = RunMatch(**game, spec, link, **w);
  ASSERT_TRUE(o.record_status.ok()) << o.record_status;
  std::ifstream in(o.record_path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const uint32_t id = ZSTD_getDictID_fromFrame(bytes.data(), bytes.size());
  EXPECT_NE(id, 0u);
  EXPECT_EQ(ids.count(id), 1u);
  // The same record with a dictionary of another id: the bytes of the
  // game's own with its id changed (bytes 4 to 7 of a zstd dictionary).
  auto lines = ReadRecordFile(o.record_path);
  ASSERT_TRUE(lines.ok()) << lines.status();
  std::string dict;
  for (const RecordDictionary& d : CompiledRecordDictionaries()) {
    if (d.game == "quasenbo") dict = std::string(d.bytes);
  }
  ASSERT_FALSE(dict.empty());
  const uint32_t foreign = 0x7eadbeef;
  std::memcpy(dict.data() + 4, &foreign, 4);  // little-endian, as zstd stores it
  const std::string content = EncodeCompactLines(*lines);
  std::string frame(ZSTD_compressBound(content.size()), '\0');
  ZSTD_CCtx* c = ZSTD_createCCtx();
  const size_t n = ZSTD_compress_usingDict(c, frame.data(), frame.size(), content.data(),
                                           content.size(), dict.data(), dict.size(), 3);
  ZSTD_freeCCtx(c);
  ASSERT_FALSE(ZSTD_isError(n));
  frame.resize(n);
  const std::string alien = tmp.path() + "/alien.rec";
  std::ofstream(alien, std::ios::binary) << frame;
  auto r = ReadRecordFile(alien);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(alien));
  EXPECT_THAT(r.status().message(), HasSubstr(absl::StrCat("dictionary ", foreign)));
  // Its uncompressed content (what a .part holds) reads as the record.
  std::ofstream(tmp.path() + "/raw.rec.part", std::ios::binary) << content;
  auto raw = ReadRecordFile(tmp.path() + "/raw.rec.part");
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ(raw->size(), lines->size());
}

// A decompression bomb: a few KiB that would expand to 65 MiB of zeros is
// refused without expanding it, naming the bound; a frame that declares no
// size is refused as it expands past the bound.
TEST(RecordFormats, ACompressedRecordMayNotExpandFarBeyondItsSize) {
  const testing::TestDir tmp = testing::FreshTempDir("bomb");
  const std::string zeros((size_t{65} << 20) + 1, '\0');
  for (bool declared : {true, false}) {
    std::string frame;
    ZSTD_CCtx* c = ZSTD_createCCtx();
    if (declared) {
      frame.resize(ZSTD_compressBound(zeros.size()));
      frame.resize(ZSTD_compressCCtx(c, frame.data(), frame.size(), zeros.data(),
                                     zeros.size(), 19));
    } else {  // streamed: the frame does not say its size
      frame.resize(ZSTD_compressBound(zeros.size()));
      ZSTD_inBuffer in{zeros.data(), zeros.size(), 0};
      ZSTD_outBuffer out{frame.data(), frame.size(), 0};
      ASSERT_FALSE(ZSTD_isError(ZSTD_compressStream2(c, &out, &in, ZSTD_e_continue)));
      ASSERT_EQ(ZSTD_compressStream2(c, &out, &in, ZSTD_e_end), 0u);
      frame.resize(out.pos);
      ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);
    }
    ZSTD_freeCCtx(c);
    ASSERT_LT(frame.size(), 64u * 1024) << "not a bomb";
    const std::string path = absl::StrCat(tmp.path(), "/bomb", declared, ".rec");
    std::ofstream(path, std::ios::binary) << frame;
    auto r = ReadRecordFile(path);
    ASSERT_FALSE(r.ok()) << declared;
    EXPECT_THAT(r.status().message(),
                HasSubstr(absl::StrCat(path, ": decompresses to more than 67108864 bytes")));
  }
}

// Hostile compact content: a length past the end, garbage lines, an empty
// line are refused with the file and the line named.
TEST(RecordFormats, BrokenCompactContentIsRefusedNamingTheLine) {
  v1::RecordLine h;
  h.mutable_header()->set_match_id("m");
  const std::string good = EncodeCompactLines({h, h});
  const std::string magic = good.substr(0, 8);
  struct Case {
    std::string bytes;
    std::string want;
  };
  for (const Case& c : std::vector<Case>{
           {good.substr(0, good.size() - 1), "line 2: cut short"},
           {magic + std::string("\x05\xff\xff\xff\xff\xff", 6), "line 1: not a record line"},
           {magic + std::string("\x00", 1), "line 1: record line with no content"},
           {magic + std::string("\xff\xff\xff\xff\x0f", 5), "line 1: cut short"},
       }) {
    auto r = ParseRecordBytes(c.bytes, "x.rec");
    ASSERT_FALSE(r.ok()) << c.want;
    EXPECT_THAT(r.status().message(), HasSubstr("x.rec: " + c.want));
  }
  auto ok = ParseRecordBytes(good, "x.rec");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->size(), 2u);
}

// Records written before compact records became the default (kept in
// tests/testdata/older_records, written by that build): the same match as
// plain and as compressed JSON lines still reads, verifies, and agrees.
TEST(RecordFormats, RecordsFromBeforeCompactOnesStillReadAndVerify) {
  const std::string dir = ARENA_SOURCE_DIR "/tests/testdata/older_records/";
  auto plain = ReadRecordFile(dir + "quasenbo-5792cfbaa9f3-000001.jsonl");
  auto zst = ReadRecordFile(dir + "quasenbo-5792cfbaa9f3-000001.jsonl.zst");
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(zst.ok()) << zst.status();
  EXPECT_TRUE(VerifyRecord(*plain, "plain").ok());
  EXPECT_TRUE(VerifyRecord(*zst, "zst").ok());
  ASSERT_EQ(plain->size(), zst->size());
  ASSERT_GT(plain->size(), 20u);
  EXPECT_EQ(plain->front().header().seed(), zst->front().header().seed());
  // And its compact form reads back as the same lines.
  auto compact = ParseRecordBytes(EncodeCompactLines(*plain), "compact");
  ASSERT_TRUE(compact.ok()) << compact.status();
  ASSERT_EQ(compact->size(), plain->size());
  for (size_t i = 0; i < plain->size(); ++i) {
    EXPECT_EQ((*compact)[i].SerializeAsString(), (*plain)[i].SerializeAsString()) << i;
  }
}

}  // namespace
}  // namespace arena

namespace arena {
namespace {

// arena verify checks a folder's records on every core, a window at a time:
// with 1, 2 and 7 threads the summary is the same, failures in name order.
// The folder holds 600 records (more than two windows), one of them edited
// and one cut, plus an unfinished one in progress.
TEST(VerifyPath, ParallelVerifyReportsAsOneThreadDoes) {
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok()) << game.status();
  const testing::TestDir tmp = testing::FreshTempDir("verify-par");
  const std::string dir = tmp.path();
  for (int i = 0; i < 600; ++i) {
    MatchSpec spec;
    spec.match_id = absl::StrFormat("m%04d", i);
    spec.game_name = "quasenbo";
    spec.seed = 1000 + i;
    spec.seat_bots = {"a", "b"};
    // Every format in one folder (the edited and the cut one are JSON).
    auto w = RecordWriter::Open(dir, spec.match_id,
                                i % 5 == 0   ? RecordFormat::kJsonlZstd
                                : i % 5 == 2 ? RecordFormat::kCompact
                                             : RecordFormat::kJsonl);
    ASSERT_TRUE(w.ok());
    LocalSeatLink link(testing::RandomPolicy(i));
    MatchOutcome o = RunMatch(**game, spec, link, **w);
    ASSERT_TRUE(o.record_status.ok()) << o.record_status;
  }
  {
    // An edited action (another legal index would still verify: the label
    // is checked too) and a cut record, far apart in name order.
    const std::string edited = dir + "/m0333.jsonl";
    std::ifstream in(edited);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("\"label\":\"");
    ASSERT_NE(at, std::string::npos);
    text.insert(at + 9, "X");
    std::ofstream(edited, std::ios::trunc) << text;
    const std::string cut = dir + "/m0101.jsonl";
    std::ifstream in2(cut);
    std::string t2((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::trunc) << t2.substr(0, t2.size() / 2);
    std::ofstream(absl::StrCat(dir, "/", kInProgressDir, "/m9999.jsonl.part")) << "{}\n";
  }
  const VerifySummary one = VerifyPath(dir, 1);
  EXPECT_EQ(one.files, 601);
  EXPECT_EQ(one.passed, 598);
  ASSERT_EQ(one.failures.size(), 3u);
  // In name order (".inprogress/" sorts first), each file named once.
  EXPECT_THAT(one.failures[0], HasSubstr("m9999.jsonl.part: unfinished record"));
  EXPECT_THAT(one.failures[1], ::testing::StartsWith(dir + "/m0101.jsonl: line "));
  EXPECT_THAT(one.failures[2], ::testing::StartsWith(dir + "/m0333.jsonl: match m0333"));
  for (int threads : {2, 7}) {
    const VerifySummary many = VerifyPath(dir, threads);
    EXPECT_EQ(many.files, one.files) << threads;
    EXPECT_EQ(many.passed, one.passed) << threads;
    EXPECT_EQ(many.failures, one.failures) << threads;
    EXPECT_EQ(many.skipped, one.skipped) << threads;
  }
}

}  // namespace
}  // namespace arena
