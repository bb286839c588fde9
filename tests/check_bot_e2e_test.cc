// `arena check-bot` with real processes: the bundled bots pass every check,
// and tests/checkup_bot, broken in one way at a time, fails the check that
// names it (and only the checks its fault reaches), with the exit codes the
// docs give: 0 all passed, 1 a check failed, 2 a usage error.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Cmd;
using testing::kBin;
using testing::Sh;

// arena check-bot with `args`, its records in a folder of the test's own.
Cmd CheckBot(const std::string& args) {
  const testing::TestDir dir = testing::FreshTempDir("check-bot");
  return Sh(absl::StrCat(kBin, "/arena check-bot --records ", dir.path(), "/records ", args));
}

std::string Checkup(const std::string& flags) {
  return absl::StrCat("--bot 'me=", kBin, "/checkup_bot ", flags, "'");
}

// The line "re-run it: COMMAND" of check-bot's output, "" if none.
std::string ReRunCommand(const std::string& output) {
  const std::string key = "re-run it: ";
  const size_t at = output.find(key);
  if (at == std::string::npos) return "";
  return output.substr(at + key.size(), output.find('\n', at) - at - key.size());
}

// Every check of a run over `games` (the seats lines one per game).
const char* kChecks[] = {"connect", "deadline", "legal", "match_end",
                         "concurrent", "reconnect", "notice"};

// Each of `checks` has its PASS line.
void ExpectPassed(const Cmd& r, const std::vector<std::string>& checks) {
  for (const auto& c : checks) EXPECT_THAT(r.output, HasSubstr(absl::StrCat("PASS  ", c, ":")));
}

void ExpectAllPass(const Cmd& r, const std::vector<std::string>& games) {
  EXPECT_EQ(r.code, 0) << r.output;
  ExpectPassed(r, std::vector<std::string>(std::begin(kChecks), std::end(kChecks)));
  for (const auto& g : games) ExpectPassed(r, {"seats " + g});
  EXPECT_THAT(r.output, Not(HasSubstr("FAIL")));
  EXPECT_THAT(r.output, HasSubstr("0 failed"));
}

TEST(CheckBot, TheBundledCppBotPassesEveryGame) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo,pesten,quodlibet,quabble --bot me=", kBin,
                                      "/random_bot"));
  ExpectAllPass(r, {"quasenbo", "pesten", "quodlibet", "quabble"});
  EXPECT_THAT(r.output, HasSubstr("answered it from the Resync"));
}

TEST(CheckBot, TheBundledPythonBotPasses) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo,pesten --bot py=", kBin,
                                      "/python_random_bot"));
  ExpectAllPass(r, {"quasenbo", "pesten"});
}

TEST(CheckBot, TheBundledNodeBotPasses) {
  const std::string dir = absl::StrCat(ARENA_SOURCE_DIR, "/bots/node");
  if (Sh("command -v node").code != 0 ||
      ::access((dir + "/node_modules/@grpc/grpc-js").c_str(), R_OK) != 0) {
    GTEST_SKIP() << "node or " << dir << "/node_modules is missing (ctest -R node_deps)";
  }
  ExpectAllPass(CheckBot(absl::StrCat("--game quasenbo --bot 'js=node ", dir, "/bot.js'")),
                {"quasenbo"});
}

// A JSON-lines bot behind arena_stdio, which reconnects for it and passes
// on the Resync's open requests.
// An opponent that forfeits at its first decision ends the probes' matches
// before their moment: each is played 3 times, and the line says that
// nothing was checked, not that the bot was at fault. A fixed seed: in some
// deals the opponent's first moves are forced (played without asking it)
// and the bot does get its second request.
TEST(CheckBot, ProbeMatchesEndedByTheOpponentArePlayedAgainAndNotBlamedOnTheBot) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo --seed 1 --bot me=", kBin,
                                      "/random_bot --opponent '", kBin,
                                      "/checkup_bot --mode=illegal'"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  reconnect: quasenbo, 2 seats, the bot at seat 0: the "
                                  "match ended before the bot's request 2 in each of 3 matches; "
                                  "nothing was checked"));
  EXPECT_THAT(r.output, HasSubstr("FAIL  notice: quasenbo, 2 seats, the bot at seat 1: the match "
                                  "ended before the bot's request 2 in each of 3 matches"));
  EXPECT_THAT(r.output, Not(HasSubstr("at its fault")));
  EXPECT_THAT(r.output, HasSubstr("PASS  legal:"));
}

TEST(CheckBot, AStdioBotPasses) {
  const Cmd r = CheckBot(absl::StrCat("--game pesten --bot 'st=", kBin, "/arena_stdio /usr/bin/python3 ",
                                      ARENA_SOURCE_DIR, "/bots/stdio/example_bot.py'"));
  ExpectAllPass(r, {"pesten"});
  EXPECT_THAT(r.output, HasSubstr("answered it from the Resync"));
}

TEST(CheckBot, AGameBotAndTheTestBotItselfPass) {
  ExpectAllPass(CheckBot(absl::StrCat("--game quasenbo --bot q=", kBin, "/quasenbo_bot")),
                {"quasenbo"});
  // The broken modes below differ from this one in one thing each.
  ExpectAllPass(CheckBot(absl::StrCat("--game quodlibet,pesten ", Checkup("--mode=good"))),
                {"quodlibet", "pesten"});
}

TEST(CheckBot, ABotThatDoesNotReconnectFailsTheReconnectCheck) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo ", Checkup("--mode=no_reconnect")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  reconnect: its stream was dropped before decision"));
  EXPECT_THAT(r.output, HasSubstr("did not connect again"));
  ExpectPassed(r, {"connect", "deadline", "legal", "match_end", "concurrent"});
  EXPECT_THAT(r.output, HasSubstr("first failure: reconnect"));
}

TEST(CheckBot, AnIllegalAnswerAfterAResyncFailsTheReconnectCheck) {
  const Cmd r = CheckBot(absl::StrCat("--game pesten ", Checkup("--mode=illegal_after_resync")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  reconnect: it reconnected after the drop before decision"));
  EXPECT_THAT(r.output, HasSubstr("illegal action"));
  ExpectPassed(r, {"connect", "deadline", "legal", "match_end", "concurrent", "notice"});
}

TEST(CheckBot, ABotThatCrashesOnANoticeFailsTheNoticeCheck) {
  const Cmd r = CheckBot(absl::StrCat("--game pesten ", Checkup("--mode=crash_on_notice")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  notice: after a STALE notice"));
  EXPECT_THAT(r.output, HasSubstr("crashed"));
  EXPECT_THAT(r.output, HasSubstr("PASS  reconnect:"));
  EXPECT_THAT(r.output, HasSubstr("PASS  seats pesten:"));
}

TEST(CheckBot, ABotSlowInOneSeatFailsTheDeadlineCheckNamingTheSeat) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo --decision_ms 500 ",
                                      Checkup("--mode=slow --slow_ms=1500 --slow_seat=1")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  deadline: quasenbo, 2 seats, the bot at seat 1"));
  EXPECT_THAT(r.output, HasSubstr("timeout"));
  EXPECT_THAT(r.output, HasSubstr("PASS  legal:"));
  EXPECT_THAT(r.output, HasSubstr("PASS  seats quasenbo:"));
  EXPECT_THAT(r.output, HasSubstr("first failure: deadline"));
}

TEST(CheckBot, AnIllegalAnswerFailsTheLegalCheckAndShowsTheRequest) {
  const Cmd r = CheckBot(absl::StrCat("--game quodlibet ", Checkup("--mode=illegal")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  legal: quodlibet, 4 seats, the bot at seat 0"));
  EXPECT_THAT(r.output, HasSubstr("PASS  deadline:"));
  // The first failure's record, and what the seat was sent before it.
  EXPECT_THAT(r.output, HasSubstr("first failure: legal"));
  EXPECT_THAT(r.output, HasSubstr("record: "));
  EXPECT_THAT(r.output, HasSubstr("at the end, seat 0: "));
  EXPECT_THAT(r.output, HasSubstr("FORFEIT at step 0: seat 0 (me): illegal action: action index"));
}

TEST(CheckBot, ABotThatQuitsAtItsFirstMatchEndFailsTheMatchEndCheck) {
  const Cmd r = CheckBot(absl::StrCat("--game quodlibet ", Checkup("--mode=exit_after_match_end")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  match_end:"));
}

// A bot that fails at its first request of every match answers nothing:
// the checks of its answers saw nothing to judge, and neither passes on
// nothing ("PASS deadline: 0 answers"); each says it could not run, and why.
TEST(CheckBot, ChecksThatSawNoAnswerCouldNotRunAndFail) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo ", Checkup("--mode=crash_at_first")));
  EXPECT_EQ(r.code, 1) << r.output;
  for (const char* check : {"deadline", "legal"}) {
    EXPECT_THAT(r.output, HasSubstr(absl::StrCat(
                              "FAIL  ", check, ": could not run: the bot answered none of its "
                              "requests in its 14 matches; the first, quasenbo, 2 seats, the "
                              "bot at seat 0: step 0: crashed")))
        << check;
  }
  EXPECT_THAT(r.output, HasSubstr("giving up"));  // its last output, the cause
  EXPECT_THAT(r.output, Not(HasSubstr("0 answers")));
  EXPECT_THAT(r.output, Not(HasSubstr("PASS  deadline")));
  EXPECT_THAT(r.output, Not(HasSubstr("PASS  legal")));
}

// An illegal answer is an answer: the deadline check saw it come in time.
TEST(CheckBot, AnIllegalAnswerStillCountsForTheDeadlineCheck) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo ", Checkup("--mode=illegal")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::ContainsRegex("PASS  deadline: [1-9][0-9]* answers"));
  EXPECT_THAT(r.output, HasSubstr("FAIL  legal:"));
  EXPECT_THAT(r.output, Not(HasSubstr("could not run")));
}

TEST(CheckBot, ABotThatExitsAtStartFailsTheConnectCheckWithItsCause) {
  const Cmd r = CheckBot(absl::StrCat("--game quasenbo ", Checkup("--mode=exit_at_start")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  connect: its process exited with code 3"));
  EXPECT_THAT(r.output, HasSubstr("cannot open weights.bin"));
  EXPECT_THAT(r.output, Not(HasSubstr("PASS")));
}

// A bot that crashes on one kind of request (a Pesten request offering a
// Jack with a wish), in matches played at once: the failure shown is the
// crash's own request, not a request of another match that its crash ended
// too; check-bot writes that match's repro bundle, and the command it prints
// re-runs the bundle and crashes the bot again (a bundle of a match the
// crash ended as collateral would be answered to its end).
TEST(CheckBot, ACrashIsShownAtItsOwnRequestWithABundleThatReproducesIt) {
  const testing::TestDir dir = testing::FreshTempDir("check-bot");
  const Cmd r = Sh(absl::StrCat(kBin, "/arena check-bot --records ", dir.path(),
                                "/records --game pesten --seed 1 ",
                                Checkup("--mode=crash_on_wish")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  seats pesten:"));
  EXPECT_THAT(r.output, HasSubstr("first failure: seats pesten"));
  EXPECT_THAT(r.output, ::testing::ContainsRegex(
                            "the request that faulted: step [0-9]+, decision [0-9]+, [0-9]+ "
                            "legal: [^\n]*play Jack of [A-Za-z]+, wish "));
  const std::string command = ReRunCommand(r.output);
  ASSERT_THAT(command, HasSubstr("/arena replay-bot ")) << r.output;
  EXPECT_THAT(command, HasSubstr(absl::StrCat(dir.path(), "/records/repro/me/pesten-")));
  EXPECT_THAT(command, HasSubstr(" -- " + std::string(kBin) + "/checkup_bot --mode=crash_on_wish"));
  const Cmd again = Sh(command);  // as printed
  EXPECT_EQ(again.code, 1) << again.output;
  EXPECT_THAT(again.output, HasSubstr("CRASHED at request"));
  EXPECT_THAT(again.output, HasSubstr("a Jack with a wish"));
}

// The command check-bot prints after a failure works as printed, run
// through /bin/sh from the folder check-bot ran in, with another python3
// first on PATH (one without grpc, as a virtualenv's may be): replay-bot
// finds `python3` on the sandbox's PATH and gives the bot the sandbox's
// environment, as check-bot's sandbox did, and the crash reproduces at its
// request. Under --sandbox none the bot had the caller's environment: the
// command says --inherit_env.
TEST(CheckBot, TheReRunCommandWorksAsPrintedWithAnotherPython3FirstOnPath) {
  const testing::TestDir dir = testing::FreshTempDir("check-bot-rerun");
  const std::string shim = dir.path() + "/shim";
  std::filesystem::create_directories(shim);
  {
    std::ofstream(shim + "/python3") << "#!/bin/sh\necho \"the shim python3, without grpc\" >&2\n"
                                        "exit 1\n";
    std::filesystem::permissions(shim + "/python3", std::filesystem::perms::owner_all |
                                                        std::filesystem::perms::group_exec |
                                                        std::filesystem::perms::others_exec |
                                                        std::filesystem::perms::group_read |
                                                        std::filesystem::perms::others_read);
    // The bundled Python bot, crashing at its first request, with the
    // build's stubs (bin/../python) copied beside it, as an author ships
    // a bot: the sandbox shows a bot its own folder, not a checkout that
    // lies in another temporary folder.
    std::filesystem::copy(std::string(kBin) + "/../python", dir.path(),
                          std::filesystem::copy_options::recursive);
    std::filesystem::copy_file(std::string(ARENA_SOURCE_DIR) + "/bots/python/random_bot.py",
                               dir.path() + "/random_bot.py");
    std::ofstream(dir.path() + "/my_bot_broken.py")
        << "import os, sys\n"
        << "sys.path[:0] = [os.path.dirname(os.path.abspath(__file__))]\n"
        << "import random_bot\n"
        << "def decide(request):\n"
        << "    print('my_bot_broken: decision %d? giving up' % request.decision_id,\n"
        << "          file=sys.stderr, flush=True)\n"
        << "    os._exit(3)\n"
        << "random_bot.decide = decide\n"
        << "sys.exit(random_bot.main())\n";
  }
  const std::string in_dir = absl::StrCat("cd ", dir.path(), " && ");
  const std::string shim_first = absl::StrCat(in_dir, "PATH=", shim, ":$PATH ");
  ASSERT_THAT(Sh(shim_first + "python3 -c 'import grpc'").output, HasSubstr("the shim python3"));
  const Cmd r = Sh(absl::StrCat(shim_first, kBin, "/arena check-bot --records ", dir.path(),
                                "/records --game quasenbo --bot 'me=python3 my_bot_broken.py'"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  seats quasenbo:"));
  const std::string command = ReRunCommand(r.output);
  EXPECT_THAT(command, ::testing::MatchesRegex("/[^ ]*/arena replay-bot /[^ ]*/records/repro/me/"
                                               "quasenbo-[^ ]*-seat[0-9].json -- python3 "
                                               "my_bot_broken.py"));
  const Cmd again = Sh(shim_first + command);  // as printed
  EXPECT_EQ(again.code, 1) << again.output;
  EXPECT_THAT(again.output, HasSubstr("CRASHED at request 1: the bot exited with code 3"));
  EXPECT_THAT(again.output, HasSubstr("giving up"));
  EXPECT_THAT(again.output, Not(HasSubstr("before it connected")));
  EXPECT_THAT(again.output, Not(HasSubstr("the shim python3")));
  // The caller's environment, asked for: the shim's python3.
  const Cmd mine = Sh(shim_first + absl::StrReplaceAll(command, {{" -- ", " --inherit_env -- "}}));
  EXPECT_EQ(mine.code, 1) << mine.output;
  EXPECT_THAT(mine.output, HasSubstr("CRASHED before it connected"));
  EXPECT_THAT(mine.output, HasSubstr("the shim python3"));

  // --sandbox none: the bot ran with the caller's environment (here one
  // whose python3 is Debian's, with grpc).
  const std::string debian_first = in_dir + "PATH=/usr/bin:/bin ";
  const Cmd none = Sh(absl::StrCat(debian_first, kBin, "/arena check-bot --sandbox none --records ",
                                   dir.path(), "/records-none --game quasenbo "
                                   "--bot 'me=python3 my_bot_broken.py'"));
  EXPECT_EQ(none.code, 1) << none.output;
  const std::string inherit = ReRunCommand(none.output);
  EXPECT_THAT(inherit, HasSubstr(".json --inherit_env -- python3 my_bot_broken.py"));
  const Cmd replayed = Sh(debian_first + inherit);
  EXPECT_EQ(replayed.code, 1) << replayed.output;
  EXPECT_THAT(replayed.output, HasSubstr("CRASHED at request 1: the bot exited with code 3"));
}

// The Python bot in the form docs/bots.md#python gives, from the checkout's
// top folder: in the sandbox, which passes no PYTHONPATH, the script finds
// the build's stubs by itself.
TEST(CheckBot, ThePythonScriptInItsDocumentedFormPlaysInTheSandbox) {
  const testing::TestDir dir = testing::FreshTempDir("check-bot");
  const Cmd r = Sh(absl::StrCat("cd ", ARENA_SOURCE_DIR, " && env -u PYTHONPATH ", kBin,
                                "/arena check-bot --records ", dir.path(),
                                "/records --game quasenbo --sandbox bwrap"
                                " --bot 'me=python3 bots/python/random_bot.py'"));
  ExpectAllPass(r, {"quasenbo"});
}

// A Python bot that cannot import the stubs: the connect line names the
// cause and the section of the docs that tells the way out.
TEST(CheckBot, APythonBotWithoutItsStubsIsToldWhereTheDocsSayWhy) {
  const testing::TestDir dir = testing::FreshTempDir("check-bot");
  const Cmd r = Sh(absl::StrCat("cd / && env -u PYTHONPATH ", kBin, "/arena check-bot --records ",
                                dir.path(), "/records --game quasenbo --bot "
                                "'me=python3 -c \"from arena.v1 import arena_pb2\"'"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL  connect: its process exited with code 1"));
  EXPECT_THAT(r.output, HasSubstr("ModuleNotFoundError: No module named 'arena'"));
  EXPECT_THAT(r.output, HasSubstr("(No module named 'arena': see docs/bots.md#python)"));
}

TEST(CheckBot, UsageErrorsExit2NamingWhatIsWrong) {
  const std::string bot = absl::StrCat(" --bot me=", kBin, "/random_bot");
  struct Case {
    std::string args, says;
  } cases[] = {
      {"--game quasenbo,nosuchgame" + bot, "unknown game 'nosuchgame'"},
      {"--game Pesten" + bot, "did you mean 'pesten'"},
      {"--game quasenbo --bot me", "--bot 'me' is not NAME=COMMAND"},
      {"--game quasenbo" + bot + bot, "one --bot"},
      {"--game quasenbo --decision_ms 0" + bot, "--decision_ms=0"},
      {"--game quasenbo --concurrent 0" + bot, "--concurrent=0"},
      {"--game quasenbo --option nosuch=1" + bot, "--option"},
      {"--game quasenbo --games 3" + bot, "--games is a flag of"},
      {"--game quasenbo --sandbox box" + bot, "--sandbox=box"},
  };
  for (const Case& c : cases) {
    const Cmd r = CheckBot(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says)) << c.args;
  }
}

}  // namespace
}  // namespace arena
