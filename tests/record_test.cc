// Records: fault records, broken lines, the writer, the JSON mapping, edited
// records and compressed ones. (Every game's records re-simulating, and
// tampered ones refused: tests/conformance_test.cc.)
#include <malloc.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>

#include "absl/strings/str_format.h"
#include "arena/records/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "google/protobuf/util/json_util.h"
#include "referee/records/json_writer.h"
#include "referee/records/record.h"
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

TEST(Records, ForfeitAndRandomMoveRecordsVerify) {
  auto game = CreateGame("quasenbo", {}, 2);
  ASSERT_TRUE(game.ok());
  // Seat 1 answers with an illegal index at its third decision.
  auto bad = [](int seat, const v1::MatchStart&, const v1::DecisionRequest& r) {
    return seat == 1 && r.step() >= 5 ? 99 : 0;
  };
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

TEST(Records, WriterRenamesOnlyWhenFinished) {
  const testing::TestDir tmp = testing::FreshTempDir("records");
  const std::string& dir = tmp.path();
  auto w = RecordWriter::Open(dir, "finish-me");
  ASSERT_TRUE(w.ok());
  v1::RecordLine l;
  l.mutable_header()->set_match_id("finish-me");
  ASSERT_TRUE((*w)->Append(l).ok());
  EXPECT_FALSE(ReadRecordFile(dir + "/finish-me.jsonl").ok());
  // In progress: in the hidden folder (0700), the file 0600.
  const std::string part = dir + "/.inprogress/finish-me.jsonl.part";
  EXPECT_TRUE(ReadRecordFile(part).ok());
  struct stat st;
  ASSERT_EQ(::stat((dir + "/.inprogress").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(part.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_TRUE((*w)->Finish().ok());
  ASSERT_EQ(::stat((dir + "/finish-me.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(::stat(part.c_str(), &st), 0);
  auto back = ReadRecordFile(dir + "/finish-me.jsonl");
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

// Issue 9: verify checks everything it can, not only the re-simulation.
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

// --compress: a zstd record reads back line for line as the plain one, and
// verifies; a Quodlibet partie (the longest match) shrinks below 100 KB.
TEST(CompressedRecords, ReadBackAsThePlainOneAndVerify) {
  auto game = CreateGame("quodlibet", {}, 4);
  ASSERT_TRUE(game.ok()) << game.status();
  MatchSpec spec;
  spec.match_id = "partie";
  spec.game_name = "quodlibet";
  spec.seed = 4242;
  spec.seat_bots = {"a", "b", "c", "d"};
  const testing::TestDir tmp = testing::FreshTempDir("zst");
  const std::string& templ = tmp.path();
  std::map<bool, std::string> path;
  std::map<bool, std::vector<v1::RecordLine>> read;
  for (bool compress : {false, true}) {
    const std::string dir = absl::StrCat(templ, compress ? "/z" : "/p");
    ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
    auto w = RecordWriter::Open(dir, spec.match_id, compress);
    ASSERT_TRUE(w.ok());
    LocalSeatLink link(testing::RandomPolicy(7));
    MatchOutcome o = RunMatch(**game, spec, link, **w);
    ASSERT_TRUE(o.record_status.ok()) << o.record_status;
    path[compress] = o.record_path;
    auto lines = ReadRecordFile(o.record_path);
    ASSERT_TRUE(lines.ok()) << lines.status();
    EXPECT_TRUE(VerifyRecord(*lines, o.record_path).ok());
    read[compress] = *lines;
  }
  EXPECT_THAT(path[true], ::testing::EndsWith("/partie.jsonl.zst"));
  for (const char* sub : {"/p/", "/z/"}) {
    // Nothing is left in progress: neither the plain part nor the .zst.part.
    const std::string hidden = absl::StrCat(templ, sub, kInProgressDir);
    EXPECT_TRUE(std::filesystem::is_empty(hidden)) << hidden;
  }
  struct stat mode;
  ASSERT_EQ(::stat(path[true].c_str(), &mode), 0);
  EXPECT_EQ(mode.st_mode & 0777, 0600u);
  ASSERT_EQ(read[false].size(), read[true].size());
  read[false].back().mutable_result()->clear_header_digest();  // wall clock
  read[true].back().mutable_result()->clear_header_digest();
  for (size_t i = 1; i < read[false].size(); ++i) {
    EXPECT_TRUE(read[false][i].SerializeAsString() == read[true][i].SerializeAsString())
        << "line " << i + 1;
  }
  struct stat plain, zst;
  ASSERT_EQ(::stat(path[false].c_str(), &plain), 0);
  ASSERT_EQ(::stat(path[true].c_str(), &zst), 0);
  EXPECT_LT(zst.st_size, 100 * 1000) << "plain " << plain.st_size;
  std::cout << "Quodlibet partie record: " << plain.st_size << " bytes plain, "
            << zst.st_size << " bytes zstd\n";

  // A cut or corrupted compressed record is refused with the file named.
  std::ifstream in(path[true], std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = templ + "/cut.jsonl.zst";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto c = ReadRecordFile(cut);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr(cut));
  bytes[bytes.size() / 2] ^= 0x5a;
  bytes[bytes.size() / 3] ^= 0x5a;
  const std::string bad = templ + "/bad.jsonl.zst";
  std::ofstream(bad, std::ios::binary) << bytes;
  auto b = ReadRecordFile(bad);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr(bad));
}


// A live match's compressed record holds no compressor: 64 records open at
// once, each with a line written, take well under 64 KiB of heap each (a
// zstd context at level 3 with a 128 KiB window is 0.8 to 1.7 MiB), and each
// still finishes as a valid compressed record.
TEST(CompressedRecords, ALiveRecordHoldsNoCompressor) {
  const testing::TestDir tmp = testing::FreshTempDir("zstlive");
  const std::string& dir = tmp.path();
  v1::RecordLine line;
  line.mutable_header()->set_match_id("m");
  line.mutable_header()->set_game("quasenbo");
  std::vector<std::unique_ptr<RecordWriter>> open;
  const size_t before = mallinfo2().uordblks;
  for (int i = 0; i < 64; ++i) {
    auto w = RecordWriter::Open(dir, absl::StrCat("m", i), true);
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE((*w)->Append(line).ok());
    open.push_back(*std::move(w));
  }
  const size_t per_record = (mallinfo2().uordblks - before) / 64;
  std::cout << "heap per open compressed record: " << per_record << " bytes\n";
  EXPECT_LT(per_record, 16u * 1024);
  for (auto& w : open) {
    ASSERT_TRUE(w->Finish().ok());
    auto lines = ReadRecordFile(w->final_path());
    ASSERT_TRUE(lines.ok()) << lines.status();
    ASSERT_EQ(lines->size(), 1u);
    EXPECT_EQ(lines->front().header().game(), "quasenbo");
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
    auto w = RecordWriter::Open(dir, spec.match_id, /*compress=*/i % 5 == 0);
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
