// Security, tried as a hostile bot author would: a hostile bot
// plays a tournament beside a victim and tries every attack it can; each
// must fail, and the victim's results must not suffer. The same bot run
// with the protections off (a control) succeeds at the attacks, so the
// attacks are real and the test can fail.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "arena/v1/record.pb.h"
#include "absl/strings/numbers.h"
#include "grpcpp/grpcpp.h"
#include "referee/records/record.h"
#include "tests/e2e_util.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Cmd;
using testing::kBin;
using testing::ReadStandings;
using testing::Sh;

// A folder outside /tmp (the sandbox gives every bot a /tmp of its own, which
// would hide a folder there whether or not arena hides it), removed when the
// test process exits.
std::string WorkDir(const std::string& name) {
  const std::string d = absl::StrCat(ARENA_TEST_WORK_DIR, "/", name, "-", ::getpid());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  testing::RemoveAtExit(d);
  return d;
}

// A TCP listener on the host's loopback, for the bots to try to reach.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 64);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd_); }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

struct AttackLog {
  std::map<std::string, int> blocked, succeeded;  // by attack name
  std::map<std::string, std::vector<std::string>> played;  // pid -> match ids
  int predicted_hits = 0, predicted_misses = 0;
  bool tmp_writable = false;
  std::string text;
};

AttackLog ReadAttackLog(const std::string& path) {
  AttackLog log;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    log.text += line + "\n";
    std::vector<std::string> w = absl::StrSplit(line, ' ');
    if (w.size() >= 3 && w[0] == "ATTACK") {
      (w[2] == "blocked" ? log.blocked : log.succeeded)[w[1]]++;
    } else if (w.size() >= 3 && w[0] == "PREDICT") {
      (w[2] == "hit" ? log.predicted_hits : log.predicted_misses)++;
    } else if (w.size() >= 3 && w[0] == "PLAYED") {
      log.played[w[1]].push_back(w[2]);
    } else if (w.size() >= 2 && w[0] == "TMP") {
      log.tmp_writable = w[1] == "writable";
    }
  }
  return log;
}

TEST(Security, HostileBotInTheSandboxFailsEveryAttackAndTheVictimIsUnharmed) {
  const std::string dir = WorkDir("hostile");
  const std::string records = dir + "/records";
  const std::string secret = dir + "/secret";
  // The organiser made the records folder readable by all: the sandbox must
  // hide it by itself.
  std::filesystem::create_directories(records);
  std::filesystem::permissions(records, std::filesystem::perms::owner_all |
                                            std::filesystem::perms::group_read |
                                            std::filesystem::perms::group_exec |
                                            std::filesystem::perms::others_read |
                                            std::filesystem::perms::others_exec);
  Listener listener;
  const std::vector<std::string> probes = {
      dir + "/pwned-here", records + "/pwned", std::string(kBin) + "/pwned",
      absl::StrCat("/pwned-", ::getpid()),
      absl::StrCat(std::filesystem::current_path().string(), "/pwned-cwd")};
  const std::string hostile = absl::StrCat(
      kBin, "/hostile_bot --records_dir ", records, " --secret_file ", secret,
      " --tcp ", listener.address(), " --write_probes ", absl::StrJoin(probes, ","),
      " --attack_kill --victim victim");
  const int games = 24;
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games ", games,
                          " --jobs 2 --decision_ms 10000 --records ", records,
                          " --secret_file ", secret, " --bot 'hostile=", hostile,
                          "' --bot victim=", kBin, "/random_bot"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("restarting bot")));

  AttackLog log = ReadAttackLog(records + "/logs/hostile.log");
  EXPECT_TRUE(log.succeeded.empty()) << log.text;
  for (const char* attack :
       {"read-inprogress-record", "list-records-folder", "read-finished-records",
        "read-victim-log", "read-secret-file", "read-sibling-token", "kill-others",
        "connect-tcp", "write-outside-tmp"}) {
    EXPECT_GE(log.blocked[attack], 1) << attack << " was not tried\n" << log.text;
  }
  EXPECT_EQ(log.blocked["read-inprogress-record"], games) << log.text;
  // Each bot process (one per seat rotation of the duplicate deals) tries.
  EXPECT_EQ(log.blocked["write-outside-tmp"],
            static_cast<int>(probes.size() * log.played.size()));
  EXPECT_TRUE(log.tmp_writable) << "the bot's private /tmp must be writable";
  // Its own deal, let alone the others' hands, is never predicted.
  EXPECT_EQ(log.predicted_hits, 0) << log.text;
  EXPECT_EQ(log.predicted_misses, games) << log.text;
  for (const auto& p : probes) EXPECT_FALSE(std::filesystem::exists(p)) << p;

  // The victim played every match and forfeited none; nothing was lost.
  v1::Standings st = ReadStandings(records);
  EXPECT_EQ(st.matches_played(), games);
  for (const auto& row : st.rows()) {
    EXPECT_EQ(row.seats_played(), games) << row.bot();
    EXPECT_EQ(row.forfeits(), 0) << row.bot();
  }
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(v.code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr(absl::StrCat(games, " of ", games, " records verified")));
}

// Resource exhaustion, tried from inside the sandbox: the hostile bot takes
// memory, fills its /tmp, opens files and forks, each up to a cap well past
// the limit arena was given, and then lets go. Each hog must be stopped by
// its limit (the processes one only when arena runs as root: RLIMIT_NPROC
// counts per uid), the bot must live on to play, and the tournament beside
// it must end whole, without a forfeit.
TEST(Security, ResourceHogsInTheSandboxAreStoppedByTheirLimits) {
  const std::string dir = WorkDir("hogs");
  const std::string records = dir + "/records";
  const int games = 6;
  // Caps: 1 GiB of memory and of /tmp, 512 open files and processes. The
  // limits leave room for the bot itself (its gRPC threads' stacks count
  // as data, and there are more of them on a machine with more cores).
  const std::string hostile = absl::StrCat(
      kBin, "/hostile_bot --attack_resources --hog_mb 1024 --hog_count 512",
      " --attack_proc=false");
  // One match at a time: while the bot holds all it can, nothing else is
  // sent to it (a gRPC thread that cannot allocate would end it).
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games ", games,
                          " --jobs 1 --decision_ms 20000 --records ", records,
                          " --bot_memory_mb 384 --bot_tmp_mb 8 --bot_open_files 64",
                          " --bot_processes 128 --bot 'hostile=", hostile,
                          "' --bot victim=", kBin, "/random_bot"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("restarting bot")));

  AttackLog log = ReadAttackLog(records + "/logs/hostile.log");
  std::vector<std::string> hogs = {"hog-memory", "hog-tmp", "hog-open-files"};
  if (::geteuid() == 0) hogs.push_back("hog-processes");
  for (const auto& hog : hogs) {
    EXPECT_GE(log.blocked[hog], 1) << hog << " was not stopped\n" << log.text;
    EXPECT_EQ(log.succeeded[hog], 0) << hog << "\n" << log.text;
  }
  v1::Standings st = ReadStandings(records);
  EXPECT_EQ(st.matches_played(), games);
  for (const auto& row : st.rows()) {
    EXPECT_EQ(row.seats_played(), games) << row.bot();
    EXPECT_EQ(row.forfeits(), 0) << row.bot() << "\n" << log.text;
  }
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(v.code, 0) << v.output;
}

// A fellow entrant that floods the referee with wrong tokens.
// In the sandbox every bot reaches the referee through the one Unix socket,
// so all share the peer address "unix:" and the flooder's back-off is
// theirs too. The honest bots must still be welcomed (each rotation starts
// them after the flooder, while it floods) and play every match between
// them without a fault; the flooder is refused, and slowly. (Without
// duplicate deals each bot process lives the whole tournament, which the
// flooder's slow answers stretch to several seconds: its flood starts before
// it connects, and before the honest bots, started after it, do.)
TEST(Security, AFellowEntrantGuessingTokensLocksNoHonestBotOut) {
  const std::string dir = WorkDir("flood");
  const std::string records = dir + "/records";
  const std::string flooder = absl::StrCat(
      kBin, "/hostile_bot --flood_tokens_s 20 --flood_tokens_max 2000",
      " --attack_proc=false --max_seed 0 --think_ms 20");
  const int games = 24;
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 2 --games ",
                          games, " --duplicate=false --jobs 2 --decision_ms 10000",
                          " --records ", records,
                          " --bot 'flooder=", flooder, "' --bot a=", kBin,
                          "/random_bot --bot b=", kBin, "/random_bot"));
  ASSERT_EQ(r.code, 0) << r.output;

  std::ifstream in(records + "/logs/flooder.log");
  std::string line, text;
  int refused = 0, other = 0;
  int64_t slowest_ms = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> w = absl::StrSplit(line, ' ');
    if (w.size() != 3 || w[0] != "FLOOD") continue;
    text += line + "\n";
    int code = -1;
    int64_t ms = 0;
    ASSERT_TRUE(absl::SimpleAtoi(w[1], &code) && absl::SimpleAtoi(w[2], &ms)) << line;
    (code == static_cast<int>(grpc::StatusCode::UNAUTHENTICATED) ? refused : other)++;
    slowest_ms = std::max(slowest_ms, ms);
  }
  EXPECT_GE(refused, 4) << text;
  // Others: at most the attempts in flight when the referee closed at the
  // end (one per flood thread).
  EXPECT_LE(other, 4) << text;
  EXPECT_GE(slowest_ms, 1000) << "the flooder was not slowed\n" << text;

  int honest = 0;
  for (const std::string& file : testing::RecordFiles(records)) {
    auto lines = ReadRecordFile(file);
    ASSERT_TRUE(lines.ok()) << file << ": " << lines.status();
    ASSERT_FALSE(lines->empty()) << file;
    const auto& bots = lines->front().header().seat_bots();
    if (std::find(bots.begin(), bots.end(), "flooder") != bots.end()) continue;
    ++honest;
    for (const auto& l : *lines) {
      EXPECT_FALSE(l.has_forfeit()) << file << ": " << l.ShortDebugString();
      for (const auto& a : l.decision().actions()) {
        EXPECT_EQ(a.fault(), v1::FAULT_KIND_UNSPECIFIED) << file << ": " << a.ShortDebugString();
      }
    }
  }
  EXPECT_GE(honest, 2);
  v1::Standings st = ReadStandings(records);
  EXPECT_EQ(st.matches_played(), games);
  for (const auto& row : st.rows()) {
    if (row.bot() != "flooder") {
      EXPECT_EQ(row.forfeits(), 0) << row.bot();
    }
  }
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(v.code, 0) << v.output;
}

// The control: with the sandbox off and a public seed, the same attacks
// work. This is what `--sandbox none` and `--seed` warn about. (The hostile
// bot predicts from the match index, which is the deal index only without
// duplicate deals.)
// The entries of a folder of /proc, with no exception if it goes away while
// it is listed (a process exiting). Its files are read with
// testing::ReadFile, which gives "" where a process exited between the
// listing and the read (an ESRCH that std::istreambuf_iterator throws).
std::vector<std::filesystem::path> ProcEntries(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  return out;
}

// The processes under `root` (not itself), by the parent links of /proc.
std::vector<pid_t> Descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  for (const auto& path : ProcEntries("/proc")) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(path.filename().string(), &pid)) continue;
    const std::string stat = testing::ReadFile((path / "stat").string());
    const size_t close = stat.rfind(')');  // the command may hold spaces
    if (close == std::string::npos) continue;
    std::vector<std::string> w = absl::StrSplit(stat.substr(close + 2), ' ');
    pid_t parent = 0;
    if (w.size() > 1 && absl::SimpleAtoi(w[1], &parent)) children.emplace(parent, pid);
  }
  std::vector<pid_t> out, todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    auto [b, e] = children.equal_range(p);
    for (auto it = b; it != e; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

// What each descriptor of `pid` above 2 is ("socket:[123]", a path), by
// number; empty if the process is gone.
std::map<int, std::string> OpenDescriptors(pid_t pid) {
  std::map<int, std::string> out;
  for (const auto& path : ProcEntries(absl::StrCat("/proc/", pid, "/fd"))) {
    int fd = 0;
    if (!absl::SimpleAtoi(path.filename().string(), &fd) || fd <= 2) continue;
    std::error_code link_ec;
    const auto target = std::filesystem::read_symlink(path, link_ec);
    if (!link_ec) out[fd] = target.string();
  }
  return out;
}

std::string CommandLine(pid_t pid) {
  std::string s = testing::ReadFile(absl::StrCat("/proc/", pid, "/cmdline"));
  std::replace(s.begin(), s.end(), '\0', ' ');
  return s;
}

// A viewer of the live site holding an event stream open.
int OpenViewer(const std::string& address) {
  std::vector<std::string> hp = absl::StrSplit(address, ':');
  int port = 0;
  if (hp.size() != 2 || !absl::SimpleAtoi(hp[1], &port)) return -1;
  const int fd = testing::ConnectLoopback(port);
  if (fd < 0) return -1;
  const std::string req = "GET /events HTTP/1.1\r\nHost: arena\r\n\r\n";
  if (::write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A tournament with a live site (--serve) and 5 viewers' event streams held
// open across the bots' restarts (a fresh process each seat rotation): no
// descriptor of arena's (its listener, its viewers' connections, gRPC's,
// its files) may be held by a bot, sandboxed or not. Seen two ways: from
// outside, every process under arena is listed while it runs (/proc/<pid>/fd)
// and none may hold a socket arena holds; from inside, the hostile bot lists
// what it was started with before it opens anything, and tries to accept()
// on every listening socket among them.
void ExpectNoDescriptorReachesABot(const std::string& name, const std::string& sandbox) {
  const std::string dir = WorkDir(name);
  const std::string records = dir + "/records";
  const std::string out = dir + "/arena.out";
  const std::string hostile = absl::StrCat(kBin, "/hostile_bot --records_dir ", records,
                                           " --attack_proc=false --think_ms 15");
  const pid_t arena = ::fork();
  if (arena == 0) {
    const std::string cmd = absl::StrCat(
        "exec ", kBin, "/arena tournament --game quasenbo --games 16 --jobs 2",
        " --progress=false --serve 127.0.0.1:0 --records ", records, " ", sandbox,
        " --bot 'hostile=", hostile, "' --bot victim=", kBin, "/random_bot > ", out, " 2>&1");
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(arena, 0);
  std::string address;
  for (int i = 0; i < 3000 && address.empty(); ++i) {
    std::ifstream in(out);
    std::string line;
    while (std::getline(in, line)) {
      constexpr absl::string_view kSite = "live site: http://";
      if (absl::StartsWith(line, kSite)) {
        address = line.substr(kSite.size(), line.find('/', kSite.size()) - kSite.size());
      }
    }
    if (address.empty()) ::usleep(10000);
  }
  ASSERT_FALSE(address.empty()) << "no live site address in " << out;
  std::vector<int> viewers;
  for (int i = 0; i < 5; ++i) viewers.push_back(OpenViewer(address));
  for (int v : viewers) ASSERT_GE(v, 0) << "a viewer could not connect to " << address;

  std::set<std::string> leaks;  // "<bot command>: fd N = socket:[...]"
  std::set<pid_t> scanned;
  int status = 0, most_arena_sockets = 0;
  for (;;) {
    if (::waitpid(arena, &status, WNOHANG) == arena) break;
    std::set<std::string> arena_sockets;
    for (const auto& [fd, what] : OpenDescriptors(arena)) {
      if (absl::StartsWith(what, "socket:")) arena_sockets.insert(what);
    }
    most_arena_sockets = std::max(most_arena_sockets, static_cast<int>(arena_sockets.size()));
    std::error_code ec;
    const auto arena_exe = std::filesystem::read_symlink(absl::StrCat("/proc/", arena, "/exe"), ec);
    for (pid_t p : Descendants(arena)) {
      // A child between fork and exec is still arena (it holds arena's
      // descriptors until it closes them, right before exec).
      std::error_code exe_ec;
      if (std::filesystem::read_symlink(absl::StrCat("/proc/", p, "/exe"), exe_ec) == arena_exe) {
        continue;
      }
      const std::map<int, std::string> fds = OpenDescriptors(p);
      scanned.insert(p);
      for (const auto& [fd, what] : fds) {
        if (arena_sockets.count(what)) {
          leaks.insert(absl::StrCat(CommandLine(p).substr(0, 120), ": fd ", fd, " = ", what));
        }
      }
    }
    ::usleep(20000);
  }
  for (int v : viewers) ::close(v);
  std::ifstream in(out);
  const std::string output((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_TRUE(leaks.empty()) << absl::StrJoin(leaks, "\n");
  // Arena held its listener, the 5 viewers and the bots' streams.
  EXPECT_GE(most_arena_sockets, 6);
  EXPECT_GE(scanned.size(), 2u) << "no bot process was seen";

  AttackLog log = ReadAttackLog(records + "/logs/hostile.log");
  // Each hostile process (one per seat rotation: 2) looked at what it got.
  EXPECT_GE(log.played.size(), 2u) << log.text;
  EXPECT_EQ(log.blocked["inherited-descriptors"], static_cast<int>(log.played.size()))
      << log.text;
  EXPECT_EQ(log.blocked["inherited-listener"], static_cast<int>(log.played.size()))
      << log.text;
  EXPECT_EQ(log.succeeded["inherited-descriptors"], 0) << log.text;
  EXPECT_EQ(log.blocked["inherited-signals"], static_cast<int>(log.played.size())) << log.text;
  EXPECT_EQ(log.succeeded["inherited-listener"], 0) << log.text;
}

TEST(Security, NoDescriptorOfArenaReachesASandboxedBot) {
  ExpectNoDescriptorReachesABot("fds-sandboxed", "");
}

TEST(Security, NoDescriptorOfArenaReachesAnUnsandboxedBot) {
  ExpectNoDescriptorReachesABot("fds-unsandboxed", "--sandbox none");
}

TEST(Security, ControlWithoutSandboxAndWithAPublicSeedTheAttacksWork) {
  const std::string dir = WorkDir("control");
  const std::string records = dir + "/records";
  Listener listener;
  const std::string hostile =
      absl::StrCat(kBin, "/hostile_bot --records_dir ", records, " --tcp ",
                   listener.address(), " --victim victim");
  const int games = 6;
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games ", games,
                          " --sandbox none --seed 5 --duplicate=false --records ", records,
                          " --bot 'hostile=", hostile, "' --bot victim=", kBin,
                          "/random_bot"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bots are trusted"));
  EXPECT_THAT(r.output, HasSubstr("predictable"));
  AttackLog log = ReadAttackLog(records + "/logs/hostile.log");
  EXPECT_EQ(log.predicted_hits, games) << log.text;
  // A live match's record is in memory (docs/records.md): even unsandboxed,
  // there is no file of it to read while it runs.
  EXPECT_EQ(log.succeeded["read-inprogress-record"], 0) << log.text;
  EXPECT_GE(log.succeeded["read-sibling-token"], 1) << log.text;
  EXPECT_GE(log.succeeded["connect-tcp"], 1) << log.text;
}

TEST(Security, VerifyComparesTheStandingsWithTheRecords) {
  const std::string records = WorkDir("standings") + "/records";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games 4 --records ",
                          records, " --bot a=", kBin, "/random_bot --bot b=", kBin,
                          "/random_bot"));
  ASSERT_EQ(r.code, 0) << r.output;
  Cmd ok = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_THAT(ok.output, HasSubstr("the standings agree with them"));
  std::string ok_json;
  {
    std::ifstream in(records + "/standings.json");
    ok_json.assign(std::istreambuf_iterator<char>(in), {});
  }
  v1::Standings st = ReadStandings(records);
  st.mutable_rows(1)->set_wins(st.rows(1).wins() + 1);
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(st, &json).ok());
  std::ofstream(records + "/standings.json") << json;
  Cmd bad = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("standings.json: does not match the records"));
  EXPECT_THAT(bad.output, HasSubstr("bot " + st.rows(1).bot()));

  // The true standings back, and a manifest that cannot be read: the
  // records still verify, and the standings check says why it cannot run.
  std::ofstream(records + "/standings.json") << ok_json;
  std::ofstream(records + "/manifest.json") << "{ \"format_version\": ";
  Cmd broken = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(broken.code, 1) << broken.output;
  EXPECT_THAT(broken.output, HasSubstr("4 of 4 records verified"));
  EXPECT_THAT(broken.output, HasSubstr("cannot rebuild the standings from the records"));
  EXPECT_THAT(broken.output, HasSubstr("manifest.json"));
  // No manifest at all: the context comes from the records themselves.
  ASSERT_EQ(std::remove((records + "/manifest.json").c_str()), 0);
  Cmd bare = Sh(absl::StrCat(kBin, "/arena verify ", records));
  EXPECT_EQ(bare.code, 0) << bare.output;
  EXPECT_THAT(bare.output, HasSubstr("the standings agree with them"));
}

// The deal group of every record in `dir`, by match id.
std::map<std::string, std::string> DealGroups(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& f : testing::RecordFiles(dir)) {
    auto lines = ReadRecordFile(f);
    EXPECT_TRUE(lines.ok() && !lines->empty()) << f;
    if (!lines.ok() || lines->empty()) continue;
    out[lines->front().header().match_id()] = lines->front().header().deal_group();
  }
  return out;
}

// The most times one bot process met one deal.
int MostSightingsOfADeal(const AttackLog& log, const std::map<std::string, std::string>& groups) {
  int most = 0;
  for (const auto& [pid, matches] : log.played) {
    std::map<std::string, int> seen;
    for (const auto& m : matches) {
      EXPECT_TRUE(groups.count(m)) << m;
      most = std::max(most, ++seen[groups.at(m)]);
    }
  }
  return most;
}

// Duplicate deals (the default) play every deal once per seat rotation. A
// bot process that met a deal before would know the other seats' hands, so
// a bot's process is replaced by a fresh one (in a fresh sandbox) before a
// match of a deal it has played: with every process kept (the field within
// the bound), and with entrants on demand (a bound of one match's bots for
// four entrants, where processes are also stopped to make room). At
// --jobs 4 a bot's next process takes the second rotation's matches while
// its first one still plays the first rotation's (a handover): each
// process keeps the matches it started, and still meets each deal once.
TEST(Security, NoBotProcessMeetsADealTwice) {
  struct Case {
    const char* name;
    bool fresh;
    int groups;  // of 2 matches each
    int jobs;
  };
  const std::string randoms = absl::StrCat(" --bot r1=", kBin, "/random_bot --bot r2=", kBin,
                                           "/random_bot");
  const std::vector<Case> cases = {{"kept", true, 8, 2},
                                   {"on-demand", true, 12, 2},
                                   {"handover", true, 16, 4},
                                   {"control", false, 8, 2}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const bool on_demand = std::string(c.name) == "on-demand";
    const bool handover = std::string(c.name) == "handover";
    const std::string records = WorkDir(absl::StrCat("rotations-", c.name)) + "/records";
    Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --games ", 2 * c.groups,
                            " --jobs ", c.jobs,
                            " --fresh_bots_per_rotation=", c.fresh ? "true" : "false",
                            on_demand ? absl::StrCat(" --max_live_bots 2", randoms) : "",
                            " --records ", records, " --bot 'hostile=", kBin,
                            "/hostile_bot --attack_proc=false",
                            // Slow enough that the first rotation still plays
                            // when the second starts.
                            handover ? " --think_ms=5" : "", "' --bot victim=", kBin,
                            "/random_bot"));
    ASSERT_EQ(r.code, 0) << r.output;
    AttackLog log = ReadAttackLog(records + "/logs/hostile.log");
    const auto groups = DealGroups(records);
    ASSERT_EQ(groups.size(), 2u * c.groups);
    std::set<std::string> distinct;
    for (const auto& [m, d] : groups) distinct.insert(d);
    ASSERT_EQ(distinct.size(), static_cast<size_t>(c.groups)) << "deal groups of 2";
    if (on_demand) {
      EXPECT_THAT(r.output, HasSubstr("at most 2 bot processes at once"));
      EXPECT_EQ(MostSightingsOfADeal(log, groups), 1) << log.text;
      EXPECT_GE(log.played.size(), 2u) << log.text;
    } else if (handover) {
      EXPECT_EQ(MostSightingsOfADeal(log, groups), 1) << log.text;
      // Taken over while the process before still played its matches.
      EXPECT_GE(testing::ProcessesOf(r.output).handed_over, 1) << r.output;
      // No seat was failed by a handover: every match ended as played.
      Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", records));
      EXPECT_EQ(v.code, 0) << v.output;
      const v1::Standings st = ReadStandings(records);
      for (const auto& row : st.rows()) {
        EXPECT_EQ(row.fault_kinds().ByteSizeLong(), 0u) << row.bot() << "\n" << r.output;
      }
    } else if (c.fresh) {
      EXPECT_EQ(MostSightingsOfADeal(log, groups), 1) << log.text;
      EXPECT_EQ(log.played.size(), 2u) << "one process per rotation";
    } else {
      // The control: one process for the whole run meets each deal twice.
      EXPECT_EQ(MostSightingsOfADeal(log, groups), 2) << log.text;
    }
  }
}

// A process that finished its matches after a handover is kept (parked)
// and plays again, but only a deal it has not met: as a property over
// adaptive 3-seat contests of five bots (three rotations of each deal, so
// a bot's kept processes have met different deals), every one of which
// logs which of its processes played which match: with room for every
// kept process, with a bound that stops kept processes for room, and at
// --jobs 4.
TEST(Security, AKeptProcessPlaysOnlyDealsItHasNotMet) {
  struct Case {
    const char* name;
    const char* flags;
  };
  const std::vector<Case> cases = {{"room", "--jobs 2 --seed 11"},
                                   {"tight", "--jobs 2 --seed 12 --max_live_bots 8"},
                                   {"jobs4", "--jobs 4 --seed 13"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string records = WorkDir(absl::StrCat("kept-", c.name)) + "/records";
    std::string bots;
    for (int i = 0; i < 5; ++i) {
      absl::StrAppend(&bots, " --bot 'h", i, "=", kBin, "/hostile_bot --attack_proc=false'");
    }
    Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game quasenbo --seats 3 --games 90 ",
                            "--schedule adaptive --top_k 2 --records ", records, " ", c.flags,
                            bots));
    ASSERT_EQ(r.code, 0) << r.output;
    const auto groups = DealGroups(records);
    ASSERT_EQ(groups.size(), 90u);
    for (int i = 0; i < 5; ++i) {
      const AttackLog log = ReadAttackLog(absl::StrCat(records, "/logs/h", i, ".log"));
      EXPECT_EQ(MostSightingsOfADeal(log, groups), 1) << "h" << i << "\n" << log.text;
    }
    const testing::ProcessLine p = testing::ProcessesOf(r.output);
    EXPECT_GE(p.kept, 1) << r.output;
    EXPECT_GE(p.reused, 1) << r.output;
    if (std::string(c.name) == "tight") {
      EXPECT_GE(p.kept_stopped, 1) << r.output;
      EXPECT_LE(p.peak, 8) << r.output;
    }
    Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", records));
    EXPECT_EQ(v.code, 0) << v.output;
    const v1::Standings st = ReadStandings(records);
    for (const auto& row : st.rows()) {
      EXPECT_EQ(row.fault_kinds().ByteSizeLong(), 0u) << row.bot() << "\n" << r.output;
    }
  }
}

// The record's second line (the deal), as JSON.
std::string FirstDeal(const std::string& record) {
  auto lines = ReadRecordFile(record);
  EXPECT_TRUE(lines.ok() && lines->size() > 1) << record;
  return lines.ok() && lines->size() > 1 ? RecordLineToJson((*lines)[1]) : "";
}

TEST(Security, TwoRunsWithoutASeedDealDifferently) {
  std::vector<std::string> ids, deals;
  for (int run = 0; run < 2; ++run) {
    const std::string records = WorkDir(absl::StrCat("unseeded", run));
    Cmd r = Sh(absl::StrCat(kBin, "/arena match --game quasenbo --records ", records,
                            " --bot a=", kBin, "/random_bot --bot b=", kBin,
                            "/random_bot"));
    ASSERT_EQ(r.code, 0) << r.output;
    const std::string rec = testing::OnlyRecord(records);
    ids.push_back(rec.substr(rec.rfind('/') + 1));
    deals.push_back(FirstDeal(rec));
    EXPECT_THAT(deals.back(), HasSubstr("deal"));
  }
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(deals[0], deals[1]);
}

TEST(Security, TheSameSecretFileDealsTheSameAgain) {
  const std::string dir = WorkDir("secret-again");
  std::vector<std::string> ids, deals;
  for (int run = 0; run < 2; ++run) {
    const std::string records = absl::StrCat(dir, "/run", run);
    Cmd r = Sh(absl::StrCat(kBin, "/arena match --game quasenbo --records ", records,
                            " --secret_file ", dir, "/secret --bot a=", kBin,
                            "/random_bot --bot b=", kBin, "/random_bot"));
    ASSERT_EQ(r.code, 0) << r.output;
    if (run == 0) {
      EXPECT_THAT(r.output, HasSubstr("wrote a new tournament secret"));
    }
    const std::string rec = testing::OnlyRecord(records);
    ids.push_back(rec.substr(rec.rfind('/') + 1));
    deals.push_back(FirstDeal(rec));
  }
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_EQ(deals[0], deals[1]);
  // The secret file is the organiser's only, and a broken one is refused
  // without being echoed.
  EXPECT_EQ(std::filesystem::status(dir + "/secret").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::ofstream(dir + "/broken") << "not-a-secret-TOPSECRETWORDS\n";
  Cmd bad = Sh(absl::StrCat(kBin, "/arena match --game quasenbo --records ", dir,
                            "/run3 --secret_file ", dir, "/broken --bot a=", kBin,
                            "/random_bot --bot b=", kBin, "/random_bot"));
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("64 hex digits"));
  EXPECT_THAT(bad.output, Not(HasSubstr("TOPSECRETWORDS")));
}

TEST(Security, WhereTheSandboxCannotStartArenaStopsAndSaysWhy) {
  const std::string dir = WorkDir("nosandbox");
  for (const std::string& bwrap : {std::string("/nonexistent/bwrap"), std::string("/bin/false")}) {
    Cmd r = Sh(absl::StrCat("ARENA_BWRAP=", bwrap, " ", kBin,
                            "/arena match --game quasenbo --records ", dir,
                            "/r --bot a=", kBin, "/random_bot --bot b=", kBin,
                            "/random_bot"));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("cannot sandbox the bots"));
    EXPECT_THAT(r.output, HasSubstr("--sandbox none"));
    EXPECT_THAT(r.output, Not(HasSubstr("started bot")));
  }
}

// As root, bots run as an unprivileged uid, which must be able to reach
// the working folder: where a folder on the way forbids it, arena says which.
TEST(Security, AWorkingFolderTheBotsCannotReachIsNamed) {
  if (::geteuid() != 0) GTEST_SKIP() << "bots keep arena's uid when it is not root";
  const std::string dir = WorkDir("closed");
  const std::string closed = dir + "/closed";
  std::filesystem::create_directories(closed + "/inner");
  std::filesystem::permissions(closed, std::filesystem::perms::owner_all);
  Cmd r = Sh(absl::StrCat("cd ", closed, "/inner && ", kBin, "/arena match --game quasenbo",
                          " --records ", dir, "/r --bot a=", kBin, "/random_bot --bot b=", kBin,
                          "/random_bot"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("may not enter " + closed));
  EXPECT_THAT(r.output, HasSubstr("chmod o+x " + closed));
  EXPECT_THAT(r.output, Not(HasSubstr("started bot")));
}

TEST(Security, BadCommandLineInputIsAnErrorWithoutSideEffects) {
  const std::string dir = WorkDir("cli");
  const std::string bots = absl::StrCat(" --bot a=", kBin, "/random_bot --bot b=", kBin, "/random_bot");
  // A records folder named like a shell injection is just a folder name.
  Cmd inj = Sh(absl::StrCat(kBin, "/arena match --game quasenbo --seed 1 --records \"", dir,
                            "/x'; touch ", dir, "/pwned; '\"", bots));
  EXPECT_EQ(inj.code, 0) << inj.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/pwned"));
  EXPECT_TRUE(std::filesystem::is_directory(absl::StrCat(dir, "/x'; touch ", dir, "/pwned; '")));

  struct Case {
    std::string args, says;
  };
  const std::string ok_bot = absl::StrCat(kBin, "/random_bot");
  for (const Case& c : std::vector<Case>{
           {absl::StrCat("--bot '../../x=", ok_bot, "' --bot b=", ok_bot), "is not valid"},
           {absl::StrCat("--bot $'\\xff\\xfe=", ok_bot, "' --bot b=", ok_bot), "is not valid"},
           {absl::StrCat("--bot '", std::string(65, 'n'), "=", ok_bot, "' --bot b=", ok_bot),
            "is not valid"},
           {absl::StrCat("--jobs 100000", bots), "at most 65536"},
           {absl::StrCat("--sandbox maybe", bots), "use bwrap or none"},
           {absl::StrCat("--bot_memory_mb 0", bots), "--bot_memory_mb=0"},
           {absl::StrCat("--seed 3 --secret_file ", dir, "/s", bots), "not both"},
       }) {
    Cmd r = Sh(absl::StrCat("cd ", dir, " && bash -c \"", kBin,
                            "/arena tournament --games 2 --game quasenbo --records ", dir,
                            "/never \\\"\\$@\\\"\" arena ", c.args));
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says)) << c.args;
    EXPECT_THAT(r.output, Not(HasSubstr("started bot"))) << c.args;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/../x"));
  // Fewer open files than the process and its bots' streams need is
  // refused before any bot starts, naming the limit (a live match needs no
  // file of its own).
  Cmd r = Sh(absl::StrCat("cd ", dir, " && ulimit -n 100 && ", kBin,
                          "/arena tournament --games 4 --jobs 4 --game quasenbo",
                          " --records ", dir, "/never", bots));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("open files"));
  EXPECT_THAT(r.output, HasSubstr("only 100"));
  EXPECT_THAT(r.output, Not(HasSubstr("started bot")));

  // An asset file over 1 MiB is refused without echoing it.
  const std::string big = dir + "/big.textproto";
  {
    std::ofstream out(big);
    for (int i = 0; i < 40000; ++i) out << "# SECRETCONTENT padding line\n";
  }
  Cmd a = Sh(absl::StrCat(kBin, "/arena tournament --games 2 --game quabble --records ", dir,
                          "/q --option assets=", big, bots));
  EXPECT_EQ(a.code, 2) << a.output;
  EXPECT_THAT(a.output, HasSubstr("at most 1 MiB"));
  EXPECT_THAT(a.output, Not(HasSubstr("SECRETCONTENT")));
  Cmd dev = Sh(absl::StrCat(kBin, "/arena tournament --games 2 --game quabble --records ", dir,
                            "/q --option assets=/dev/zero", bots));
  EXPECT_EQ(dev.code, 2) << dev.output;
  EXPECT_THAT(dev.output, HasSubstr("not a regular file"));
}

}  // namespace
}  // namespace arena
