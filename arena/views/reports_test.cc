// The CI reports (arena/views/reports.h) with hostile bot names: escaped in
// C++, then parsed by /usr/bin/python3 (xml.etree.ElementTree and a
// markdown table check, tests/reports_check.py), which must get every name
// back exactly.
#include "arena/views/reports.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/common/json_file.h"
#include "arena/common/public_text.h"
#include "arena/stats/standings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string>& HostileNames() {
  static const auto* names = new std::vector<std::string>{
      "a<b&c\"d'e>f",
      "pipe|in\\|the middle|",
      "two\nlines\nthree",
      "]]></failure><testcase name=\"x\"/><!--",
      "*bold* _it_ [link](javascript:alert(1)) `code` $x$ #h ~s~ !",
      "caf\xC3\xA9 \xE2\x9C\x93",
  };
  return *names;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

int Check(const std::string& args) {
  const std::string cmd =
      absl::StrCat("/usr/bin/python3 ", ARENA_SOURCE_DIR, "/tests/reports_check.py ", args);
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

v1::Standings HostileStandings() {
  v1::Standings st;
  st.set_game("quasenbo");
  st.set_seats(2);
  st.set_matches_played(10);
  st.set_matches_planned(10);
  st.set_higher_score_wins(true);
  int rank = 1;
  for (const auto& name : HostileNames()) {
    v1::StandingRow* r = st.add_rows();
    r->set_bot(name);
    r->set_rank(rank++);
    r->set_matches(10);
    r->set_seats_played(10);
    r->set_wins(5);
  }
  // The first forfeits (timeouts), the second is withdrawn with a hostile
  // reason, the third crashed; the others are clean.
  st.mutable_rows(0)->set_forfeits(2);
  st.mutable_rows(0)->set_faults(2);
  st.mutable_rows(0)->mutable_fault_kinds()->set_timeout(2);
  st.mutable_rows(1)->set_withdrawn(true);
  st.mutable_rows(1)->set_withdrawn_reason("exited with code 1: <stderr> & \"more\" | x\ny");
  st.mutable_rows(1)->set_forfeits(3);
  st.mutable_rows(1)->mutable_fault_kinds()->set_no_show(3);
  st.mutable_rows(2)->set_faults(1);
  st.mutable_rows(2)->mutable_fault_kinds()->set_crashed(1);
  return st;
}

TEST(Reports, XmlEscapeCoversMarkupQuotesLineBreaksAndBadBytes) {
  EXPECT_EQ(XmlEscape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  EXPECT_EQ(XmlEscape("x\ny\r\tz"), "x&#10;y&#13;&#9;z");
  // Controls XML 1.0 forbids and bytes that are not UTF-8: U+FFFD.
  EXPECT_EQ(XmlEscape(std::string("a\x01" "b\xFF" "c", 5)), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c");
  EXPECT_EQ(XmlEscape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(XmlEscape("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(Reports, MarkdownEscapeOpensNoCellTagOrLink) {
  EXPECT_EQ(MarkdownEscape("a|b"), "a\\|b");
  EXPECT_EQ(MarkdownEscape("<script>"), "&lt;script&gt;");
  EXPECT_EQ(MarkdownEscape("x\r\ny\nz"), "x<br>y<br>z");
  EXPECT_EQ(MarkdownEscape("[l](u) *b* _i_ `c`"), "\\[l\\](u) \\*b\\* \\_i\\_ \\`c\\`");
  EXPECT_EQ(MarkdownEscape("a\\"), "a\\\\");
}

TEST(Reports, TournamentJUnitAndMarkdownParseAndKeepHostileNames) {
  const testing::TestDir tmp = testing::FreshTempDir("reports");
  const std::string dir = tmp.path();
  const v1::Standings st = HostileStandings();
  const std::string xml = TournamentJUnit(st);
  const std::string md = TournamentMarkdown(st);
  EXPECT_THAT(xml, Not(HasSubstr("<testcase name=\"x\"/>")));
  EXPECT_THAT(md, HasSubstr("Faults by kind"));
  WriteFile(dir + "/junit.xml", xml);
  WriteFile(dir + "/summary.md", md);
  std::string names = "[";
  for (const auto& n : HostileNames()) absl::StrAppend(&names, names.size() > 1 ? ", " : "", JsonString(n));
  WriteFile(dir + "/names.json", names + "]");
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/junit.xml --tests 7 --failures 3 --names ", dir,
                               "/names.json --message withdrawn --message '2 forfeit(s)'",
                               " --message '1 crash(es)'")),
            0)
      << xml;
  EXPECT_EQ(Check(absl::StrCat("md ", dir, "/summary.md --names ", dir, "/names.json")), 0) << md;

  // A planned match without a complete record fails the tournament's own
  // testcase (it belongs to no bot).
  v1::Standings lost = st;
  lost.set_matches_unrecorded(2);
  WriteFile(dir + "/lost.xml", TournamentJUnit(lost));
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/lost.xml --tests 7 --failures 4 --failing '",
                               kAllRecordedCase, "' --message 'have no complete record'")),
            0);
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/junit.xml --passing '", kAllRecordedCase, "'")),
            0);
}

TEST(Reports, GateJUnitAndMarkdownFailOnH0AndOnTheFaultRate) {
  const testing::TestDir tmp = testing::FreshTempDir("reports-gate");
  const std::string dir = tmp.path();
  v1::GateResult g;
  g.set_game("quasenbo");
  g.set_seats(2);
  g.set_candidate(HostileNames()[0]);
  g.set_baseline(HostileNames()[1]);
  // A candidate that won but faulted too often: no verdict.
  g.set_decision("no_verdict");
  g.set_candidate_matches(40);
  g.set_candidate_fault_matches(20);
  g.set_fault_rate(0.5);
  g.set_max_fault_rate(0.1);
  g.set_fault_rate_exceeded(true);
  g.set_no_verdict(true);
  g.set_no_verdict_reason("CANDIDATE 'x' had a fault in 50.0% of its matches | <x>");
  g.set_passed(false);
  g.set_verdict("no verdict: CANDIDATE 'x' had a fault in 50.0% of its matches | <x>");
  *g.mutable_candidate_row() = HostileStandings().rows(0);
  *g.mutable_baseline_row() = HostileStandings().rows(1);
  WriteFile(dir + "/gate.xml", GateJUnit(g));
  WriteFile(dir + "/gate.md", GateMarkdown(g));
  WriteFile(dir + "/names.json", absl::StrCat("[", JsonString(g.candidate()), ", ",
                                               JsonString(g.baseline()), "]"));
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/gate.xml --tests 2 --failures 2 --failing sprt",
                               " --failing fault_rate --message 'exceeds --max_fault_rate'",
                               " --message 'no verdict: CANDIDATE'")),
            0)
      << GateJUnit(g);
  EXPECT_EQ(Check(absl::StrCat("md ", dir, "/gate.md --names ", dir,
                               "/names.json --contains 'NO VERDICT' --contains exceeded")),
            0)
      << GateMarkdown(g);
  EXPECT_THAT(GateJUnit(g), Not(HasSubstr("accepted")));
  EXPECT_THAT(GateMarkdown(g), Not(HasSubstr("accepted")));

  // The baseline's fault rate counts the same.
  g.set_fault_rate_exceeded(false);
  g.set_baseline_matches(40);
  g.set_baseline_fault_matches(30);
  g.set_baseline_fault_rate(0.75);
  g.set_baseline_fault_rate_exceeded(true);
  WriteFile(dir + "/base.xml", GateJUnit(g));
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/base.xml --tests 2 --failures 2 --failing sprt",
                               " --failing fault_rate --message 'the baseline) exceeds'")),
            0)
      << GateJUnit(g);

  // A withdrawn bot: sprt fails as no verdict, the fault rate may pass.
  g.set_baseline_fault_rate_exceeded(false);
  g.set_verdict("no verdict: BASELINE 'old' did not start: its process exited with code 127");
  WriteFile(dir + "/gone.xml", GateJUnit(g));
  WriteFile(dir + "/gone.md", GateMarkdown(g));
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/gone.xml --tests 2 --failures 1 --failing sprt",
                               " --passing fault_rate --message \"BASELINE 'old' did not start\"")),
            0)
      << GateJUnit(g);
  EXPECT_THAT(GateJUnit(g), HasSubstr("type=\"no_verdict\""));
  EXPECT_EQ(Check(absl::StrCat("md ", dir, "/gone.md --contains 'NO VERDICT'",
                               " --contains 'did not start'")),
            0)
      << GateMarkdown(g);

  g.set_no_verdict(false);
  g.set_no_verdict_reason("");
  g.set_decision("H0");
  g.set_verdict("H0 accepted");
  WriteFile(dir + "/h0.xml", GateJUnit(g));
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/h0.xml --tests 2 --failures 1 --failing sprt",
                               " --passing fault_rate --message 'H0 accepted'")),
            0)
      << GateJUnit(g);
  EXPECT_THAT(GateMarkdown(g), HasSubstr("### arena gate: FAIL"));
  g.set_decision("none");
  WriteFile(dir + "/none.xml", GateJUnit(g));
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/none.xml --failures 1 --failing sprt",
                               " --message 'no decision'")),
            0);
  g.set_decision("H1");
  g.set_passed(true);
  WriteFile(dir + "/h1.xml", GateJUnit(g));
  EXPECT_EQ(Check(absl::StrCat("junit ", dir, "/h1.xml --tests 2 --failures 0 --passing sprt",
                               " --passing fault_rate")),
            0)
      << GateJUnit(g);
  EXPECT_THAT(GateMarkdown(g), HasSubstr("### arena gate: PASS"));
}

TEST(PublicText, AbsolutePathsKeepOnlyTheirLastComponent) {
  EXPECT_EQ(PublicText("sh: 1: exec: /srv/contest/bots/alice/bot: not found"),
            "sh: 1: exec: bot: not found");
  EXPECT_EQ(PublicText("File \"/home/alice/my_bot.py\", line 27, in <module>"),
            "File \"my_bot.py\", line 27, in <module>");
  EXPECT_EQ(PublicText("(log: /srv/contest/records/logs/alice.log)"), "(log: alice.log)");
  EXPECT_EQ(PublicText("/srv/bot --flag=/etc/weights/ x"), "bot --flag=weights x");
  EXPECT_EQ(PublicText("1/2 done, a/b and http://x"), "1/2 done, a/b and http://x");
}

// A withdrawal's reason quotes the organiser's paths (the bot's command,
// its log): the CI reports name the bot and its command's basename only.
TEST(Reports, AWithdrawalReasonNamesNoPathOfTheOrganisersMachine) {
  v1::Standings st;
  st.set_game("quasenbo");
  v1::StandingRow* row = st.add_rows();
  row->set_bot("alice");
  row->set_matches(4);
  row->set_forfeits(4);
  row->set_withdrawn(true);
  row->set_withdrawn_reason(
      "its process exited with code 127 before connecting; its last output: sh: 1: exec: "
      "/srv/contest/bots/alice/bot: not found (log: /srv/contest/records/logs/alice.log)");
  v1::EntrantReport* e = st.add_entrants();
  e->set_bot("alice");
  e->set_withdrawn(true);
  e->set_reason(row->withdrawn_reason());
  for (const std::string& text : {TournamentJUnit(st), TournamentMarkdown(st)}) {
    EXPECT_THAT(text, Not(HasSubstr("/srv/"))) << text;
    EXPECT_THAT(text, HasSubstr("exec: bot: not found")) << text;
    EXPECT_THAT(text, HasSubstr("alice")) << text;
  }
}

// Each bot's processes (entrants.json) reach its row, the text standings
// and the CI markdown; two runs' reports add up but for the peak.
TEST(Reports, EachBotsProcessesAreInTheRowsTheTextAndTheMarkdown) {
  v1::Standings st;
  st.set_game("quasenbo");
  for (const char* bot : {"heavy", "light", "self"}) st.add_rows()->set_bot(bot);
  std::vector<v1::EntrantReport> entrants(2);
  entrants[0].set_bot("heavy");
  entrants[0].set_processes(2);
  entrants[0].set_cpu_seconds(12.5);
  entrants[0].set_peak_rss_kib(300 << 10);
  entrants[1].set_bot("light");
  entrants[1].set_processes(1);
  entrants[1].set_cpu_seconds(0.25);
  entrants[1].set_peak_rss_kib(20 << 10);
  std::vector<v1::EntrantReport> other = {entrants[0]};
  other[0].set_peak_rss_kib(100 << 10);
  MergeEntrants(other, &entrants);
  EXPECT_EQ(entrants[0].processes(), 4);
  EXPECT_DOUBLE_EQ(entrants[0].cpu_seconds(), 25);
  EXPECT_EQ(entrants[0].peak_rss_kib(), 300 << 10);
  SetEntrants(entrants, &st);
  ASSERT_EQ(st.entrants_size(), 2);
  EXPECT_EQ(st.rows(0).processes(), 4);
  EXPECT_DOUBLE_EQ(st.rows(0).cpu_seconds(), 25);
  EXPECT_EQ(st.rows(1).peak_rss_kib(), 20 << 10);
  EXPECT_EQ(st.rows(2).processes(), 0);  // arena did not start it
  const std::string text = StandingsTable(st);
  EXPECT_THAT(text, HasSubstr("peak RSS MiB"));
  EXPECT_THAT(text, HasSubstr("heavy         4     25.00         300.0")) << text;
  const std::string md = TournamentMarkdown(st);
  EXPECT_THAT(md, HasSubstr("#### Processes")) << md;
  EXPECT_THAT(md, HasSubstr("| heavy | 4 | 25.00 | 300.0 |")) << md;
  EXPECT_THAT(md, HasSubstr("| light | 1 | 0.25 | 20.0 |")) << md;
  // Without any process arena started: no such table.
  SetEntrants({}, &st);
  EXPECT_THAT(TournamentMarkdown(st), Not(HasSubstr("Processes")));
  EXPECT_THAT(StandingsTable(st), Not(HasSubstr("peak RSS")));
}

// A gate that stops mid deal group counts whole groups only: the reports say
// how many of the matches played that is, in matches, never "games" beside
// a count of matches.
TEST(Reports, TheGateSaysWhichOfItsMatchesTheSprtCounted) {
  v1::GateResult g;
  g.set_game("quasenbo");
  g.set_decision("H1");
  g.set_deal_groups(208);
  g.set_games(416);
  g.set_candidate_matches(417);
  g.set_candidate_fault_matches(0);
  for (const std::string& text : {GateMarkdown(g), GateJUnit(g)}) {
    EXPECT_THAT(text, HasSubstr("416 of 417 matches played (208 whole deal groups)")) << text;
    EXPECT_THAT(text, Not(HasSubstr("games"))) << text;
  }
}

TEST(Reports, AppendToFileAppends) {
  const testing::TestDir tmp = testing::FreshTempDir("reports-append");
  const std::string path = tmp.path() + "/summary.md";
  ASSERT_TRUE(AppendToFile(path, "one\n").ok());
  ASSERT_TRUE(AppendToFile(path, "two\n").ok());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "one\ntwo\n");
  EXPECT_FALSE(AppendToFile(tmp.path() + "/no/such/dir/x.md", "x").ok());
}

// Under arena's umask of 077, a new summary gets the JUnit file's mode (the
// one the starting umask allows); a summary that exists keeps its own.
TEST(Reports, ANewSummaryHasTheModeOfTheJUnitFile) {
  const testing::TestDir tmp = testing::FreshTempDir("reports-mode");
  const mode_t before = ::umask(077);
  const std::string md = tmp.path() + "/summary.md", xml = tmp.path() + "/junit.xml";
  const absl::Status appended = AppendToFile(md, "one\n");
  const absl::Status written = WriteFileAtomically(xml, "<testsuite/>");
  ::umask(before);
  ASSERT_TRUE(appended.ok()) << appended;
  ASSERT_TRUE(written.ok()) << written;
  struct stat a, b;
  ASSERT_EQ(::stat(md.c_str(), &a), 0);
  ASSERT_EQ(::stat(xml.c_str(), &b), 0);
  EXPECT_EQ(a.st_mode & 0777, PublicFileMode());
  EXPECT_EQ(a.st_mode & 0777, b.st_mode & 0777);
  ASSERT_EQ(::chmod(md.c_str(), 0640), 0);
  ASSERT_TRUE(AppendToFile(md, "two\n").ok());
  ASSERT_EQ(::stat(md.c_str(), &a), 0);
  EXPECT_EQ(a.st_mode & 0777, 0640u);
}

}  // namespace
}  // namespace arena
