// ValidateConfig is the one check of a TournamentConfig, for `referee
// --config FILE` and `arena match|tournament|gate` alike: every field of the
// config (and of its BotConfig and TimeControl messages) has an entry in the
// table below, found through the descriptor, so that a field added to the
// proto without a decision about its range fails this test. An entry is
// either invalid values that must be refused with an error naming the field,
// or the reason why every value of the field is valid.
//
// Then the same refusals end to end: the standalone referee on a textproto
// (a real process, exit 2 at once with the field named, no waiting for bots)
// and arena's command line (exit 2, its own flag checks unchanged).
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/tournament/config.h"
#include "arena/v1/config.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "tests/e2e_util.h"

namespace arena {
namespace {

using ::arena::testing::Cmd;
using ::arena::testing::kBin;
using ::arena::testing::Sh;
using ::testing::HasSubstr;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// A valid config: every test spoils one field of it.
v1::TournamentConfig Base() {
  v1::TournamentConfig c;
  c.set_game("quasenbo");
  c.set_matches(2);
  c.set_records_dir("/nonexistent/records");
  for (const char* n : {"a", "b"}) {
    v1::BotConfig* b = c.add_bots();
    b->set_name(n);
    b->set_token(absl::StrCat("token-", n));
    b->set_command(absl::StrCat("/usr/bin/", n, "_bot --flag"));
  }
  return c;
}

// A value that must be refused: `label` is the field as the error names it
// ("config field <label>: ..."), `says` a part of the rest of the message.
struct Bad {
  std::function<void(v1::TournamentConfig*)> spoil;
  std::string label;
  std::string says;
};
struct Entry {
  std::vector<Bad> bad;       // empty: every value is valid, because ...
  std::string all_valid_because = "";
};

// Keyed by the field's path from TournamentConfig: "jobs", "bots.command",
// "time_control.decision_ms"; message fields have an entry of their own.
std::map<std::string, Entry> Table() {
  using C = v1::TournamentConfig;
  std::map<std::string, Entry> t;
  t["game"] = {{{[](C* c) { c->set_game("chess"); }, "game", "unknown game 'chess'"},
                {[](C* c) { c->clear_game(); }, "game", "unknown game ''"}}};
  t["options"] = {{{[](C* c) { (*c->mutable_options())["jokers"] = "2"; }, "options",
                    "unknown option 'jokers'"},
                   {[](C* c) { (*c->mutable_options())["excuse"] = "maybe"; }, "options",
                    "excuse=maybe"}}};
  t["seats"] = {{{[](C* c) { c->set_seats(-1); }, "seats", "-1 is negative"},
                 {[](C* c) { c->set_seats(6); }, "seats", "6 seats is not allowed"}}};
  t["bots"] = {{{[](C* c) { c->clear_bots(); }, "bots", "no bots"},
                {[](C* c) {
                   for (int i = 0; i < kMaxBots; ++i) {
                     v1::BotConfig* b = c->add_bots();
                     b->set_name(absl::StrCat("x", i));
                     b->set_token(absl::StrCat("t", i));
                   }
                 },
                 "bots", "too many"}}};
  t["bots.name"] = {{{[](C* c) { c->mutable_bots(1)->clear_name(); }, "bots[1].name",
                      "a bot has no name"},
                     {[](C* c) { c->mutable_bots(1)->set_name("../x"); }, "bots[1].name",
                      "is not valid"},
                     {[](C* c) { c->mutable_bots(1)->set_name("a"); }, "bots[1].name",
                      "'a' is given twice"}}};
  t["bots.token"] = {{{[](C* c) { c->mutable_bots(1)->clear_token(); }, "bots[1].token",
                       "'b' has no token"},
                      {[](C* c) { c->mutable_bots(1)->set_token("token-a"); }, "bots[1].token",
                       "shares its token"},
                      {[](C* c) { c->mutable_bots(1)->set_token("tok\n"); }, "bots[1].token",
                       "control character"}}};
  t["bots.command"] = {
      {{[](C* c) { c->mutable_bots(0)->set_command("./bot\nrm -rf x"); }, "bots[0].command",
        "control character"},
       {[](C* c) { c->mutable_bots(1)->set_command(std::string("./bot\0 --x", 10)); },
        "bots[1].command", "byte 0x00"}}};
  t["matches"] = {{{[](C* c) { c->set_matches(0); }, "matches", "at least 1"},
                   {[](C* c) { c->set_matches(-5); }, "matches", "at least 1"},
                   {[](C* c) { c->set_matches(100'000'001); }, "matches", "at most"}}};
  t["jobs"] = {{{[](C* c) { c->set_jobs(-3); }, "jobs", "-3 is negative (0 means 1)"},
                {[](C* c) { c->set_jobs(kMaxJobs + 1); }, "jobs", "at most 65536"}}};
  t["time_control"] = {{}, "a message: absent means the default; its one field is below"};
  t["time_control.decision_ms"] = {
      {{[](C* c) { c->mutable_time_control()->set_decision_ms(-1); },
        "time_control.decision_ms", "is negative"},
       {[](C* c) { c->mutable_time_control()->set_decision_ms(3'600'001); },
        "time_control.decision_ms", "at most 3600000"}}};
  t["time_control.time_bank_ms"] = {
      {{[](C* c) { c->mutable_time_control()->set_time_bank_ms(-1); },
        "time_control.time_bank_ms", "is negative"},
       {[](C* c) { c->mutable_time_control()->set_time_bank_ms(3'600'001); },
        "time_control.time_bank_ms", "at most 3600000"}}};
  t["fault_policy"] = {
      {{[](C* c) { c->set_fault_policy(static_cast<v1::FaultPolicy>(7)); }, "fault_policy",
        "7 is not a FaultPolicy"},
       {[](C* c) { c->set_fault_policy(static_cast<v1::FaultPolicy>(-1)); }, "fault_policy",
        "-1 is not a FaultPolicy"}}};
  t["seed"] = {{{[](C* c) {
                   c->set_seed(5);
                   c->set_secret_file("/nonexistent/secret");
                 },
                 "seed", "not both"}}};
  t["records_dir"] = {{{[](C* c) { c->clear_records_dir(); }, "records_dir",
                        "no records directory"},
                       {[](C* c) { c->set_records_dir(std::string("out\0/../etc", 11)); },
                        "records_dir", "control character"}}};
  t["decision_cap"] = {{{[](C* c) { c->set_decision_cap(-1); }, "decision_cap", "is negative"}}};
  t["auto_moves"] = {{{[](C* c) { c->set_auto_moves(static_cast<v1::AutoMoves>(99)); },
                       "auto_moves", "99 is not an AutoMoves"}}};
  t["connect_timeout_ms"] = {
      {{[](C* c) { c->set_connect_timeout_ms(-1); }, "connect_timeout_ms", "is negative"},
       {[](C* c) { c->set_connect_timeout_ms(3'600'001); }, "connect_timeout_ms",
        "at most 3600000"}}};
  t["max_restarts"] = {
      {{[](C* c) { c->set_max_restarts(-1); }, "max_restarts", "is negative"},
       {[](C* c) { c->set_max_restarts(101); }, "max_restarts", "at most 100"}}};
  t["secret_file"] = {{{[](C* c) { c->set_secret_file("secret\n"); }, "secret_file",
                        "control character"}}};
  t["deal_mode"] = {{{[](C* c) { c->set_deal_mode(static_cast<v1::DealMode>(9)); },
                      "deal_mode", "9 is not a DealMode"}}};
  t["gauntlet"] = {{{[](C* c) { c->set_gauntlet("nobody"); }, "gauntlet",
                     "gauntlet bot 'nobody' is not one of the bots"}}};
  t["standings_every"] = {
      {{[](C* c) { c->set_standings_every(-1); }, "standings_every", "is negative"}}};
  t["compress_records"] = {{}, "a bool: records are written either way, and read either way"};
  t["record_format"] = {{{[](C* c) { c->set_record_format(static_cast<v1::RecordFormat>(9)); },
                          "record_format", "9 is not a RecordFormat"}}};
  t["shard_index"] = {{{[](C* c) {
                          c->set_seed(1);
                          c->set_shard_count(4);
                          c->set_shard_index(4);
                        },
                        "shard_index", "needs N >= 1 and 0 <= I < N"},
                       {[](C* c) { c->set_shard_index(-1); }, "shard_index",
                        "needs N >= 1 and 0 <= I < N"},
                       {[](C* c) { c->set_shard_index(1); }, "shard_index",
                        "needs N >= 1 and 0 <= I < N"}}};
  t["shard_count"] = {{{[](C* c) { c->set_shard_count(-2); }, "shard_count",
                        "needs N >= 1 and 0 <= I < N"},
                       {[](C* c) { c->set_shard_count(2); }, "shard_count", "kept secret"}}};
  t["schedule"] = {{{[](C* c) { c->set_schedule(static_cast<v1::ScheduleKind>(7)); },
                     "schedule", "7 is not a ScheduleKind"}}};
  t["adaptive"] = {{{[](C* c) { c->mutable_adaptive()->set_warmup_rounds(3); }, "adaptive",
                     "given with another schedule"}}};
  t["adaptive.top_k"] = {{{[](C* c) {
                             c->set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
                             c->mutable_adaptive()->set_top_k(2);  // two bots
                           },
                           "adaptive.top_k", "at most 1"},
                          {[](C* c) {
                             c->set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
                             c->mutable_adaptive()->set_top_k(-1);
                           },
                           "adaptive.top_k", "is negative"}}};
  t["adaptive.confidence"] = {{{[](C* c) {
                                  c->set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
                                  c->mutable_adaptive()->set_confidence(1);
                                },
                                "adaptive.confidence", "not below 1"}}};
  t["adaptive.explore_every"] = {{{[](C* c) {
                                     c->set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
                                     c->mutable_adaptive()->set_explore_every(-2);
                                   },
                                   "adaptive.explore_every", "is negative"}}};
  t["adaptive.warmup_rounds"] = {{{[](C* c) {
                                     c->set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
                                     c->mutable_adaptive()->set_warmup_rounds(-1);
                                   },
                                   "adaptive.warmup_rounds", "is negative"}}};
  t["adaptive.round_tables"] = {{{[](C* c) {
                                    c->set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
                                    c->mutable_adaptive()->set_round_tables(-1);
                                  },
                                  "adaptive.round_tables", "is negative"}}};
  t["on_bot_failure"] = {
      {{[](C* c) { c->set_on_bot_failure(static_cast<v1::BotFailurePolicy>(5)); },
        "on_bot_failure", "5 is not a BotFailurePolicy"}}};
  return t;
}

// Every field reachable from TournamentConfig through its own package's
// messages (not map entries), as "a.b" paths.
void Walk(const Descriptor* d, const std::string& prefix, std::vector<std::string>* out) {
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const std::string path = prefix + f->name();
    out->push_back(path);
    if (f->type() == FieldDescriptor::TYPE_MESSAGE && !f->is_map() &&
        f->message_type()->file()->package() == "arena.v1") {
      Walk(f->message_type(), path + ".", out);
    }
  }
}

TEST(ConfigValidation, EveryFieldHasAnEntry) {
  std::vector<std::string> fields;
  Walk(v1::TournamentConfig::descriptor(), "", &fields);
  // The walk reaches the config's sub-messages (time control, bots).
  EXPECT_THAT(fields, ::testing::Contains("bots.command"));
  EXPECT_THAT(fields, ::testing::Contains("time_control.decision_ms"));
  const std::map<std::string, Entry> table = Table();
  for (const auto& f : fields) {
    auto it = table.find(f);
    if (it == table.end()) {
      ADD_FAILURE() << "config field " << f << " has no entry in Table(): give it invalid "
                    << "values that ValidateConfig must refuse, or say why every value is "
                    << "valid (and check ValidateConfig and docs/config.md)";
      continue;
    }
    EXPECT_TRUE(!it->second.bad.empty() || !it->second.all_valid_because.empty()) << f;
  }
  const std::set<std::string> known(fields.begin(), fields.end());
  for (const auto& [f, e] : table) {
    EXPECT_TRUE(known.count(f)) << "Table() names " << f << ", which the proto does not have";
  }
}

TEST(ConfigValidation, TheBaseConfigIsValid) {
  v1::TournamentConfig c = Base();
  ASSERT_TRUE(ValidateConfig(&c).ok()) << ValidateConfig(&c);
}

TEST(ConfigValidation, EveryInvalidValueIsRefusedNamingItsField) {
  for (const auto& [field, entry] : Table()) {
    for (const Bad& bad : entry.bad) {
      v1::TournamentConfig c = Base();
      bad.spoil(&c);
      const absl::Status s = ValidateConfig(&c);
      EXPECT_FALSE(s.ok()) << field << " (" << bad.says << ") was accepted";
      const std::string msg(s.message());
      EXPECT_THAT(msg, HasSubstr(absl::StrCat("config field ", bad.label, ": "))) << field;
      EXPECT_THAT(msg, HasSubstr(bad.says)) << field;
    }
  }
}

// 0 keeps meaning "the default", the bounds themselves are valid, and every
// named value of every enum field is.
TEST(ConfigValidation, DefaultsAndBoundsStayValid) {
  v1::TournamentConfig c = Base();
  ASSERT_TRUE(ValidateConfig(&c).ok());
  EXPECT_EQ(c.seats(), 2);
  EXPECT_EQ(c.jobs(), 1);
  EXPECT_EQ(c.fault_policy(), v1::FAULT_POLICY_FORFEIT);
  EXPECT_EQ(c.auto_moves(), v1::AUTO_MOVES_SINGLE);
  EXPECT_EQ(c.deal_mode(), v1::DEAL_MODE_DUPLICATE);
  EXPECT_EQ(c.on_bot_failure(), v1::BOT_FAILURE_POLICY_UNSPECIFIED);  // the command decides

  c = Base();
  c.set_jobs(kMaxJobs);
  c.mutable_time_control()->set_decision_ms(3'600'000);
  c.set_connect_timeout_ms(3'600'000);
  c.set_max_restarts(100);
  c.set_matches(100'000'000);
  c.set_standings_every(1'000'000);
  c.set_decision_cap(int64_t{1} << 40);
  c.set_seed(~uint64_t{0});
  c.set_compress_records(true);
  c.set_gauntlet("b");
  c.set_shard_count(3);
  c.set_shard_index(2);
  c.set_seats(5);
  (*c.mutable_options())["excuse"] = "true";
  c.mutable_bots(0)->set_command("sh -c 'exec ./bot \"with spaces\"'\t--x");
  EXPECT_FALSE(ValidateConfig(&c).ok());  // the tab: a control character
  c.mutable_bots(0)->set_command("sh -c 'exec ./bot \"with spaces\"' --x");
  const absl::Status s = ValidateConfig(&c);
  EXPECT_TRUE(s.ok()) << s;

  const Descriptor* d = v1::TournamentConfig::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->type() != FieldDescriptor::TYPE_ENUM) continue;
    for (int k = 0; k < f->enum_type()->value_count(); ++k) {
      v1::TournamentConfig e = Base();
      e.GetReflection()->SetEnumValue(&e, f, f->enum_type()->value(k)->number());
      const absl::Status es = ValidateConfig(&e);
      EXPECT_TRUE(es.ok()) << f->name() << " = " << f->enum_type()->value(k)->name() << ": "
                           << es;
    }
  }
}

// A folder of this test's own, removed at the end.
class TempFolder {
 public:
  TempFolder() {
    std::string tmpl = ::testing::TempDir() + "/config-validation-XXXXXX";
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempFolder() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `referee --config FILE` refuses each mistake at once (exit 2), naming the
// field on stderr, without listening or waiting for a bot.
TEST(ConfigValidation, TheRefereeRefusesABadConfigFileAtOnce) {
  TempFolder tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string base = absl::StrCat(
      "game: \"quasenbo\"\nmatches: 2\nrecords_dir: \"", tmp.path(), "/never\"\n",
      "bots { name: \"a\" token: \"ta\" }\nbots { name: \"b\" token: \"tb\" }\n");
  struct Case {
    std::string line, says;
  };
  for (const Case& c : std::vector<Case>{
           {"jobs: -3", "config field jobs: -3 is negative (0 means 1)"},
           {"fault_policy: 7", "config field fault_policy: 7 is not a FaultPolicy"},
           {"auto_moves: 99", "config field auto_moves: 99 is not an AutoMoves"},
           {"connect_timeout_ms: -1", "config field connect_timeout_ms: -1 is negative"},
           {"max_restarts: -1", "config field max_restarts: -1 is negative"},
           {"max_restarts: 1000", "config field max_restarts: 1000 is too large"},
           {"on_bot_failure: 5", "config field on_bot_failure: 5 is not a BotFailurePolicy"},
           {"deal_mode: 4", "config field deal_mode: 4 is not a DealMode"},
           {"seats: -2", "config field seats: -2 is negative"},
           {"standings_every: -1", "config field standings_every"},
           {"time_control { decision_ms: -5 }", "config field time_control.decision_ms"},
           {"bots { name: \"c\" token: \"tc\" command: \"./x\\n./y\" }",
            "config field bots[2].command"},
           {"secret_file: \"s\" seed: 3", "config field seed"},
       }) {
    const std::string path = tmp.path() + "/c.textproto";
    {
      std::ofstream f(path);
      f << base << c.line << "\n";
    }
    // Without the check the referee would wait for the bots: the timeout
    // turns that into a failure (124) rather than a hang.
    Cmd r = Sh(absl::StrCat("timeout 60 ", kBin, "/referee --listen 127.0.0.1:0",
                            " --connect_timeout_s 5 --config ", path));
    EXPECT_EQ(r.code, 2) << c.line << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says)) << c.line;
    EXPECT_THAT(r.output, HasSubstr(path)) << c.line;
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("listening"))) << c.line;
  }
  // The referee's own flag for the same wait has the same bounds.
  {
    const std::string path = tmp.path() + "/c.textproto";
    {
      std::ofstream f(path);
      f << base;
    }
    Cmd r = Sh(absl::StrCat("timeout 60 ", kBin, "/referee --listen 127.0.0.1:0",
                            " --connect_timeout_s -1 --config ", path));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("--connect_timeout_s=-1: must be in [1, 3600]"));
  }
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/never"));
}

// arena's command line: its own flag checks refuse what they refused (exit
// 2, same words), and the values only ValidateConfig knows are refused too,
// before any bot starts.
// --connect_timeout_ms 0 is the default, 30 s, as config.proto says: the
// bots have the time to connect, none is withdrawn.
TEST(ConfigValidation, AZeroConnectTimeoutIsTheDefault) {
  TempFolder tmp;
  ASSERT_FALSE(tmp.path().empty());
  for (const std::string cmd : {"match", "tournament --games 2"}) {
    Cmd r = Sh(absl::StrCat("timeout 120 ", kBin, "/arena ", cmd,
                            " --game quasenbo --sandbox none --progress=false"
                            " --connect_timeout_ms 0 --records ", tmp.path(), "/",
                            cmd.substr(0, 1), " --bot a=", kBin, "/random_bot --bot b=", kBin,
                            "/random_bot"));
    EXPECT_EQ(r.code, 0) << cmd << "\n" << r.output;
    // (The standings' balance line speaks of "bots not withdrawn".)
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("withdrawn after"))) << cmd;
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("withdrawn:"))) << cmd;
  }
}

TEST(ConfigValidation, TheCommandLineRefusesBadFlags) {
  TempFolder tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string common = absl::StrCat(
      " --game quasenbo --games 2 --sandbox none --progress=false --connect_timeout_ms 3000",
      " --records ", tmp.path(), "/never --bot a=", kBin, "/random_bot --bot b=", kBin,
      "/random_bot");
  struct Case {
    std::string args, says;
  };
  for (const Case& c : std::vector<Case>{
           // arena_main.cc's own checks.
           {"tournament --fault_policy maybe", "--fault_policy=maybe: use forfeit or random"},
           {"tournament --shard 1/x", "use I/N"},
           {"tournament --option jokers", "is not KEY=VALUE"},
           {"tournament --sandbox maybe", "use bwrap or none"},
           {"tournament --bot_memory_mb 0", "--bot_memory_mb=0"},
           {"tournament --games 0", "tournament needs --games N"},
           // ValidateConfig's, through the flags.
           {"tournament --jobs 100000", "at most 65536"},
           {"tournament --jobs -3", "config field jobs: -3 is negative"},
           {"tournament --max_restarts -1", "config field max_restarts"},
           {"tournament --connect_timeout_ms -1", "config field connect_timeout_ms"},
           {"tournament --decision_ms -5", "config field time_control.decision_ms"},
           {"tournament --standings_every -1", "config field standings_every"},
           {"tournament --decision_cap -1", "config field decision_cap"},
           {"tournament --seats -1", "config field seats"},
           {"tournament --option jokers=2", "config field options: quasenbo: unknown option 'jokers'"},
           {"tournament --gauntlet nobody", "gauntlet bot 'nobody' is not one of the bots"},
           {absl::StrCat("tournament --seed 3 --secret_file ", tmp.path(), "/s"), "not both"},
           {"match --game chess", "config field game: unknown game 'chess'"},
       }) {
    // The command's own words first, then the common flags, then the case's
    // flags again so that they win over the common ones.
    const size_t space = c.args.find(' ');
    const std::string cmd = c.args.substr(0, space);
    const std::string flags = c.args.substr(space);
    Cmd r = Sh(absl::StrCat("timeout 60 ", kBin, "/arena ", cmd, common, flags));
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says)) << c.args;
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("started bot"))) << c.args;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/never"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/s"));
}

}  // namespace
}  // namespace arena
