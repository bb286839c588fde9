// A hostile bot, for the security tests: it plays random legal moves and,
// while it plays, tries every attack of docs/security.md on the tournament it is in,
// printing one line per attempt to its log (stdout):
//
//   ATTACK <name> blocked|SUCCEEDED [detail]
//   PREDICT <match id> hit|miss      (could it compute its own deal?)
//
// The attacks: use what it was started with (every descriptor but 0-2,
// listed before it opens anything; accept() on any listening socket among
// them, the live site's say); read the records folder (the running match's in-progress
// record, finished records, the bot logs), the secret file; list /proc for
// sibling processes and read their environment for tokens; kill every other
// process it can reach; connect to a TCP listener of the host; create files
// outside its private /tmp; and predict its deal from the match id under the
// documented seed derivations (the old `DeriveSeed(seed, index)` and the
// public `--seed N` one) for small N. With --attack_resources it also hogs
// memory, its /tmp, open files and processes (each up to a cap, then let
// go). With --flood_tokens_s N it also, from its start and for N seconds
// (or --flood_tokens_max attempts), keeps opening streams to the referee
// (ARENA_ADDRESS) with wrong tokens, a few at once, printing
//
//   FLOOD <grpc status code> <milliseconds until the answer>
//
// per attempt (it must not lock out the honest bots that share
// its address, "unix:" in the sandbox). Each attack can be switched off, so
// that the same bot can run unsandboxed as a control without harm.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "arena/tournament/secret.h"
#include "bots/sdk/bot.h"
#include "referee/games/registry.h"
#include "referee/game_api/rng.h"

ABSL_FLAG(std::string, records_dir, "", "the tournament's records folder (host path)");
ABSL_FLAG(std::string, secret_file, "", "the tournament's secret file (host path)");
ABSL_FLAG(std::string, victim, "victim", "name of a sibling bot (its log is a target)");
ABSL_FLAG(std::string, tcp, "", "host:port of a TCP listener to reach");
ABSL_FLAG(std::vector<std::string>, write_probes, {},
          "files to try to create outside the private /tmp");
ABSL_FLAG(bool, attack_kill, false, "kill every other process in reach");
ABSL_FLAG(bool, attack_proc, true, "read other processes' environments");
ABSL_FLAG(int, max_seed, 200, "seeds tried when predicting a deal");
ABSL_FLAG(bool, attack_resources, false,
          "hog memory, its /tmp, open files and processes, each up to a cap "
          "past the sandbox's limit, and then let go");
ABSL_FLAG(int, hog_mb, 256, "memory and /tmp hogs: how much to try to take, in MiB");
ABSL_FLAG(int, hog_count, 512, "process and open-file hogs: how many to try to take");
ABSL_FLAG(int, flood_tokens_s, 0,
          "seconds to keep opening streams with wrong tokens, from the start (0: no)");
ABSL_FLAG(int, flood_tokens_max, 2000, "at most this many wrong-token streams");
ABSL_FLAG(int, think_ms, 0, "sleep this long before each answer (a slow player)");

namespace {

void Report(const std::string& name, bool succeeded, const std::string& detail = "") {
  std::printf("ATTACK %s %s%s%s\n", name.c_str(), succeeded ? "SUCCEEDED" : "blocked",
              detail.empty() ? "" : " ", detail.c_str());
  std::fflush(stdout);
}

bool CanOpen(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char c;
  const bool read_ok = ::read(fd, &c, 1) >= 0;
  ::close(fd);
  return read_ok;
}

void AttackFiles(const std::string& match_id, const std::vector<std::string>& ended) {
  const std::string dir = absl::GetFlag(FLAGS_records_dir);
  if (dir.empty()) return;
  // Any format's name (a short live record may be in memory only, but a
  // long one spills, and the match's sent log is beside it).
  bool part = false;
  for (const char* suffix : {".rec.part", ".jsonl.part", ".rec.part.sent", ".jsonl.part.sent"}) {
    part = part || CanOpen(absl::StrCat(dir, "/.inprogress/", match_id, suffix));
  }
  Report("read-inprogress-record", part, match_id);
  int listed = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") ++listed;
    }
    ::closedir(d);
  }
  Report("list-records-folder", listed > 0, absl::StrCat(listed, " entries"));
  int read = 0;
  for (const auto& id : ended) {
    for (const char* suffix : {".rec", ".jsonl", ".jsonl.zst"}) {
      read += CanOpen(absl::StrCat(dir, "/", id, suffix));
    }
  }
  Report("read-finished-records", read > 0, absl::StrCat(read, " of ", ended.size()));
  Report("read-victim-log",
         CanOpen(absl::StrCat(dir, "/logs/", absl::GetFlag(FLAGS_victim), ".log")));
  if (!absl::GetFlag(FLAGS_secret_file).empty()) {
    Report("read-secret-file", CanOpen(absl::GetFlag(FLAGS_secret_file)));
  }
}

void AttackProc() {
  const char* own = std::getenv("ARENA_TOKEN");
  int processes = 0, tokens = 0;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      int pid;
      if (!absl::SimpleAtoi(e->d_name, &pid) || pid == ::getpid()) continue;
      ++processes;
      std::ifstream env(absl::StrCat("/proc/", pid, "/environ"), std::ios::binary);
      std::stringstream ss;
      ss << env.rdbuf();
      for (absl::string_view kv : absl::StrSplit(ss.str(), '\0')) {
        if (absl::ConsumePrefix(&kv, "ARENA_TOKEN=") && (own == nullptr || kv != own)) {
          ++tokens;
        }
      }
    }
    ::closedir(d);
  }
  Report("read-sibling-token", tokens > 0,
         absl::StrCat(tokens, " foreign tokens in ", processes, " other processes"));
}

// The thread group a pid or thread id belongs to, from /proc (0: unknown).
pid_t ThreadGroup(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view v(line);
    int tgid;
    if (absl::ConsumePrefix(&v, "Tgid:") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(v), &tgid)) {
      return tgid;
    }
  }
  return 0;
}

void AttackKill() {
  int killed = 0;
  const pid_t self = ::getpid(), parent = ::getppid();
  for (pid_t pid = 2; pid < 65536; ++pid) {
    if (pid == self || pid == parent) continue;
    // kill() on one of its own threads' ids would kill the bot itself.
    if (ThreadGroup(pid) == self) continue;
    if (::kill(pid, SIGKILL) == 0) ++killed;
  }
  Report("kill-others", killed > 0, absl::StrCat(killed, " processes signalled"));
}

// What the bot was started with, taken at the top of main (before it opens
// anything): every descriptor but 0-2 came from its parent. Each is named
// (its /proc link), and each listening socket among them is tried: a bot
// holding the live site's listener could accept the organiser's viewers and
// serve them pages of its own, whatever its network namespace.
void AttackInheritedDescriptors() {
  std::vector<std::string> inherited;
  int listeners = 0, accepted = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) {
    Report("inherited-descriptors", false, "cannot list /proc/self/fd");
    return;
  }
  std::vector<int> fds;
  while (dirent* e = ::readdir(d)) {
    int fd = -1;
    if (!absl::SimpleAtoi(e->d_name, &fd) || fd <= 2 || fd == ::dirfd(d)) continue;
    fds.push_back(fd);
  }
  ::closedir(d);
  for (int fd : fds) {
    char target[256] = {0};
    const ssize_t n =
        ::readlink(absl::StrCat("/proc/self/fd/", fd).c_str(), target, sizeof target - 1);
    inherited.push_back(absl::StrCat(fd, "=", n > 0 ? std::string(target, n) : "?"));
    int listening = 0;
    socklen_t len = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening) {
      ++listeners;
      const int c = ::accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (c >= 0) {
        ++accepted;
        ::close(c);
      }
    }
  }
  // The signals it starts with: none blocked, none ignored (a mask and
  // ignored signals cross exec; a bot with SIGTERM blocked cannot be asked
  // to stop, and is killed after its grace instead).
  std::ifstream status("/proc/self/status");
  std::string line, blocked = "?", ignored = "?";
  auto field = [&](absl::string_view name, std::string* out) {
    if (absl::StartsWith(line, name)) {
      *out = std::string(absl::StripAsciiWhitespace(absl::string_view(line).substr(name.size())));
    }
  };
  while (std::getline(status, line)) {
    field("SigBlk:", &blocked);
    field("SigIgn:", &ignored);
  }
  const bool clean = blocked == std::string(16, '0') && ignored == std::string(16, '0');
  Report("inherited-signals", !clean, absl::StrCat("blocked ", blocked, " ignored ", ignored));
  Report("inherited-descriptors", !inherited.empty(),
         inherited.empty() ? "0-2 only" : absl::StrJoin(inherited, ","));
  Report("inherited-listener", listeners > 0,
         absl::StrCat(listeners, " listening, ", accepted, " connections taken"));
}

void AttackNetwork() {
  const std::string tcp = absl::GetFlag(FLAGS_tcp);
  if (tcp.empty()) return;
  std::vector<std::string> parts = absl::StrSplit(tcp, ':');
  int port = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &port)) return;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool connected = false;
  if (fd >= 0) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, parts[0].c_str(), &a.sin_addr);
    connected = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
  }
  Report("connect-tcp", connected, tcp);
}

void AttackWrites() {
  for (const auto& path : absl::GetFlag(FLAGS_write_probes)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) ::close(fd);
    Report("write-outside-tmp", fd >= 0, path);
  }
  const std::string tmp = absl::StrCat("/tmp/hostile-", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
  ::unlink(tmp.c_str());  // without a sandbox, this is the host's /tmp
  std::printf("TMP %s\n", fd >= 0 ? "writable" : "NOT writable");
  std::fflush(stdout);
}

// Resource hogs. Each takes as much as it can, up to its cap (set past the
// sandbox's limit by the test), and lets go of it all before it reports:
// "blocked" when the limit stopped it short of the cap. The bot then plays
// on, so its match and the tournament must not suffer.
void AttackMemory() {
  const size_t chunk = size_t{1} << 20;
  const int cap = absl::GetFlag(FLAGS_hog_mb);
  std::vector<char*> taken;
  while (static_cast<int>(taken.size()) < cap) {
    char* p = static_cast<char*>(std::malloc(chunk));
    if (p == nullptr) break;
    std::memset(p, 0x5a, chunk);  // really used, not only reserved
    taken.push_back(p);
  }
  const size_t got = taken.size();
  for (char* p : taken) std::free(p);
  Report("hog-memory", static_cast<int>(got) >= cap, absl::StrCat(got, " MiB taken"));
}

void AttackTmp() {
  const int cap = absl::GetFlag(FLAGS_hog_mb);
  const std::string path = absl::StrCat("/tmp/hog-", ::getpid());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int got = 0;
  std::string error = "cannot create " + path;
  if (fd >= 0) {
    const std::string block(size_t{1} << 20, 'h');
    error.clear();
    for (; got < cap; ++got) {
      if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
        error = std::strerror(errno);
        break;
      }
    }
    ::close(fd);
    ::unlink(path.c_str());
  }
  Report("hog-tmp", got >= cap, absl::StrCat(got, " MiB written; ", error));
}

void AttackFds() {
  const int cap = absl::GetFlag(FLAGS_hog_count);
  std::vector<int> fds;
  while (static_cast<int>(fds.size()) < cap) {
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) break;
    fds.push_back(fd);
  }
  const size_t got = fds.size();
  for (int fd : fds) ::close(fd);
  Report("hog-open-files", static_cast<int>(got) >= cap, absl::StrCat(got, " opened"));
}

void AttackProcesses() {
  const int cap = absl::GetFlag(FLAGS_hog_count);
  std::vector<pid_t> kids;
  while (static_cast<int>(kids.size()) < cap) {
    const pid_t pid = ::fork();
    if (pid < 0) break;
    if (pid == 0) {  // async-signal-safe only: the bot has threads
      ::pause();
      ::_exit(0);
    }
    kids.push_back(pid);
  }
  const size_t got = kids.size();
  for (pid_t pid : kids) ::kill(pid, SIGKILL);
  for (pid_t pid : kids) ::waitpid(pid, nullptr, 0);
  Report("hog-processes", static_cast<int>(got) >= cap, absl::StrCat(got, " forked"));
}

// Opens streams to the referee with wrong tokens, `threads` at once, for
// `seconds` or `max` attempts in all; one FLOOD line per attempt.
void FloodTokens(int seconds, int max, int threads) {
  const char* address = std::getenv("ARENA_ADDRESS");
  if (address == nullptr) return;
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = arena::v1::Referee::NewStub(channel);
  const absl::Time until = absl::Now() + absl::Seconds(seconds);
  std::atomic<int> attempts{0};
  std::vector<std::thread> flooders;
  for (int t = 0; t < threads; ++t) {
    flooders.emplace_back([&, t] {
      while (attempts.fetch_add(1) < max && absl::Now() < until) {
        const absl::Time t0 = absl::Now();
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
        auto stream = stub->Play(&ctx);
        arena::v1::BotMessage hello;
        hello.mutable_hello()->set_token(
            absl::StrCat("wrong-", t, "-", attempts.load(), "-", ::getpid()));
        hello.mutable_hello()->set_protocol_version(1);
        stream->Write(hello);
        stream->WritesDone();
        arena::v1::RefereeMessage m;
        while (stream->Read(&m)) {
        }
        const grpc::Status s = stream->Finish();
        std::printf("FLOOD %d %lld\n", static_cast<int>(s.error_code()),
                    static_cast<long long>(absl::ToInt64Milliseconds(absl::Now() - t0)));
        std::fflush(stdout);
        // Anything but a refusal means the referee is closing (or let a
        // wrong token in, which the test sees): one such line per thread.
        if (s.error_code() != grpc::StatusCode::UNAUTHENTICATED) break;
      }
    });
  }
  for (auto& f : flooders) f.join();
}

// The value of --flood_tokens_s, read before BotMain parses the flags (the
// flood starts before the bot connects, so that the honest bots started
// after it connect while it floods).
int FloodSecondsFromArgs(int argc, char** argv) {
  int seconds = 0;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--flood_tokens_s")) {
      if (absl::ConsumePrefix(&a, "=")) {
        (void)absl::SimpleAtoi(a, &seconds);
      } else if (a.empty() && i + 1 < argc) {
        (void)absl::SimpleAtoi(argv[i + 1], &seconds);
      }
    }
  }
  return seconds;
}

// Predicts this seat's deal from the match id: under which seeds would the
// first event it saw be the one it saw?
void Predict(const arena::v1::MatchStart& start, const arena::v1::DecisionRequest& r) {
  if (r.view().events_size() == 0) return;
  const std::string seen = r.view().events(0).SerializeAsString();
  const std::string& id = r.match_id();
  uint64_t index = 0;
  if (!absl::SimpleAtoi(id.substr(id.rfind('-') + 1), &index) || index == 0) return;
  arena::Options opts(start.options().begin(), start.options().end());
  auto game = arena::CreateGame(start.game(), opts, start.num_seats());
  if (!game.ok()) return;
  bool hit = false;
  for (uint64_t s = 0; s <= static_cast<uint64_t>(absl::GetFlag(FLAGS_max_seed)) && !hit; ++s) {
    const uint64_t candidates[] = {
        arena::DeriveSeed(s, index - 1),
        arena::TournamentSecret::FromPublicSeed(s).ForMatch(index - 1, id).seed};
    for (uint64_t seed : candidates) {
      auto state = (*game)->NewInitialState(seed);
      for (const auto& e : state->events()) {
        const arena::v1::Event* mine = arena::EventForSeat(e, r.seat());
        if (mine == nullptr) continue;
        hit = mine->SerializeAsString() == seen;
        break;
      }
      if (hit) break;
    }
  }
  std::printf("PREDICT %s %s\n", id.c_str(), hit ? "hit" : "miss");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  AttackInheritedDescriptors();  // first: before the bot opens anything of its own
  absl::Mutex mu;
  std::set<std::string> seen_matches;
  std::vector<std::string> ended;  // matches this bot saw before the current one
  bool once = false;
  const std::string process_id = absl::StrCat(std::random_device{}(), "-", std::random_device{}());
  if (const int flood = FloodSecondsFromArgs(argc, argv); flood > 0) {
    int max = 2000;
    for (int i = 1; i + 1 < argc; ++i) {
      if (absl::string_view(argv[i]) == "--flood_tokens_max") {
        (void)absl::SimpleAtoi(argv[i + 1], &max);
      }
    }
    // Detached: the process may end (its tournament over) mid-flood.
    std::thread([flood, max] { FloodTokens(flood, max, 4); }).detach();
  }
  const int code = arena::bots::BotMain(
      argc, argv, "hostile-bot",
      [&](const arena::v1::MatchStart& start, const arena::v1::DecisionRequest& r) {
        absl::MutexLock lock(&mu);
        if (seen_matches.insert(r.match_id()).second) {
          // Which process played which match: no process may see a deal twice.
          // (pids repeat across sandboxes: each process has its own namespace)
          std::printf("PLAYED %s %s\n", process_id.c_str(), r.match_id().c_str());
          std::fflush(stdout);
          if (!once) {
            once = true;
            if (absl::GetFlag(FLAGS_attack_proc)) AttackProc();
            if (absl::GetFlag(FLAGS_attack_kill)) AttackKill();
            AttackNetwork();
            AttackWrites();
            if (absl::GetFlag(FLAGS_attack_resources)) {
              AttackMemory();
              AttackTmp();
              AttackFds();
              AttackProcesses();
            }
          }
          AttackFiles(r.match_id(), ended);
          Predict(start, r);
          ended.push_back(r.match_id());
        }
        if (const int think = absl::GetFlag(FLAGS_think_ms); think > 0) {
          absl::SleepFor(absl::Milliseconds(think));
        }
        uint64_t seed = r.decision_id();
        for (char c : r.match_id()) seed = seed * 131 + static_cast<unsigned char>(c);
        arena::Rng rng(seed);
        return static_cast<int>(rng.Uniform(r.legal_actions_size()));
      });
  // Not through exit(): a flood thread may still be in a call.
  std::fflush(stdout);
  std::_Exit(code);
}
