// Viewers of a live site (`arena serve`, `--serve`): N event streams on
// /events, held until the server closes them, in one thread on one epoll
// set. What a benchmark's load generator should be: it reads every byte the
// server sends (or the server's queues would fill), and costs as little as
// it can, because on one machine its CPU is taken from the tournament that
// the benchmark measures, which remote browsers would not do.
//  - It reads its sockets every --every_ms (10) rather than being woken by
//    each arriving event: a remote viewer wakes nothing on the server's
//    machine, and 1,000 wake-ups a push would be charged to the server's
//    sending thread (the kernel delivers on loopback in the sender's
//    context).
//  - It keeps, per stream, only the last whole event with standings (an
//    event's standings are null when unchanged since the last that had
//    them), and at the end reads their matches_played (protobuf's JSON
//    parser, into a Struct).
//  - It runs under SCHED_IDLE (--idle), as the live site's own threads do:
//    it stands for browsers on other machines, whose CPU is not the
//    tournament's to lose.
//  - With --switch_s=S it comes and goes: the N viewers are connected for S
//    seconds, then gone for S (one probe stream stays, to follow the
//    count), and so on until 90 % of GAMES are recorded; then they stay to
//    the end. It prints each change ("viewers on|off|stay UNIX_TIME"), so that
//    tests/bench/live_switchback.sh can compare the tournament's rate in
//    each window with its neighbours': a comparison that the machine's
//    drifting speed touches far less than one of whole runs.
// Prints its own CPU, how many viewers got the final standings, and exits
// 0 if all did.
//   live_viewers_client HOST:PORT N GAMES [--every_ms=10] [--idle=true] [--switch_s=0]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

ABSL_FLAG(int, every_ms, 10, "read the sockets this often (0: on every event)");
ABSL_FLAG(bool, idle, true, "run under SCHED_IDLE");
ABSL_FLAG(double, switch_s, 0,
          "connect the viewers for this long, then leave for as long, in turn (0: stay)");

namespace {

struct Viewer {
  int fd = -1;
  bool header_done = false;
  bool done = false;
  std::string tail;  // bytes after the last whole event
  std::string last;  // the last whole event with standings
  int64_t bytes = 0;
  int64_t total = -1;  // the probe's: the matches recorded, as last told
};

// Moves whole events ("...\n\n") out of v->tail, keeping the last with
// data whose standings are not null (an update's JSON starts with its
// version, then its standings): only the events of this read are looked
// at, and only the one kept is copied. With `count`, also the last
// event's "total" into v->total.
void TakeEvents(Viewer* v, bool count) {
  if (!v->header_done) {
    const size_t end = v->tail.find("\r\n\r\n");
    if (end == std::string::npos) return;
    v->tail.erase(0, end + 4);
    v->header_done = true;
  }
  const absl::string_view tail = v->tail;
  size_t start = 0, keep_start = 0, keep_end = std::string::npos;
  for (size_t end; (end = tail.find("\n\n", start)) != absl::string_view::npos; start = end + 2) {
    const absl::string_view event = tail.substr(start, end - start);
    if (absl::StartsWith(event, "data: ") &&
        !absl::StrContains(event.substr(0, 64), "\"standings\":null")) {
      keep_start = start;
      keep_end = end;
    }
    const size_t at = count ? event.rfind("\"total\":") : absl::string_view::npos;
    if (at != absl::string_view::npos) {
      const absl::string_view digits = event.substr(at + 8, event.find(',', at) - at - 8);
      (void)absl::SimpleAtoi(digits, &v->total);
    }
  }
  if (keep_end != std::string::npos) v->last.assign(v->tail, keep_start, keep_end - keep_start);
  v->tail.erase(0, start);
}

// The matches_played of the standings in a "data: " event, or -1.
int64_t MatchesPlayed(const std::string& event) {
  std::string json;
  for (absl::string_view line : absl::StrSplit(event, '\n')) {
    if (absl::ConsumePrefix(&line, "data: ")) absl::StrAppend(&json, line);
  }
  google::protobuf::Struct update;
  if (!google::protobuf::util::JsonStringToMessage(json, &update).ok()) return -1;
  auto s = update.fields().find("standings");
  if (s == update.fields().end() || !s->second.has_struct_value()) return -1;
  const auto& st = s->second.struct_value().fields();
  auto m = st.find("matches_played");
  return m == st.end() ? -1 : static_cast<int64_t>(m->second.number_value());
}

int Connect(const sockaddr_in& addr) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return fd;
    ::close(fd);
    absl::SleepFor(absl::Milliseconds(200));
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "live_viewers_client HOST:PORT N GAMES [--every_ms=10] [--idle] [--switch_s=0]");
  const std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  std::pair<std::string, std::string> hp;
  int port = 0, n = 0;
  int64_t games = 0;
  if (args.size() == 4) hp = absl::StrSplit(args[1], absl::MaxSplits(':', 1));
  if (args.size() != 4 || !absl::SimpleAtoi(hp.second, &port) ||
      !absl::SimpleAtoi(args[2], &n) || !absl::SimpleAtoi(args[3], &games)) {
    std::fprintf(stderr, "usage: %s\n", absl::ProgramUsageMessage().data());
    return 2;
  }
  const int every_ms = absl::GetFlag(FLAGS_every_ms);
  if (absl::GetFlag(FLAGS_idle)) {
    const sched_param param{};
    if (::sched_setscheduler(0, SCHED_IDLE, &param) != 0) std::perror("SCHED_IDLE");
  }
  struct rlimit rl = {static_cast<rlim_t>(n) + 64, static_cast<rlim_t>(n) + 64};
  ::setrlimit(RLIMIT_NOFILE, &rl);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, hp.first.c_str(), &addr.sin_addr) != 1) {
    std::fprintf(stderr, "%s: not an IPv4 address\n", hp.first.c_str());
    return 2;
  }
  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  std::vector<Viewer> viewers(n);
  int open = 0, failed = 0;
  int64_t bytes = 0;  // read by viewers since replaced
  const std::string request = "GET /events HTTP/1.1\r\nHost: viewers\r\n\r\n";
  auto join = [&](int i) {
    Viewer& v = viewers[i];
    bytes += v.bytes;
    v = Viewer();
    v.fd = Connect(addr);
    if (v.fd < 0 || ::send(v.fd, request.data(), request.size(), MSG_NOSIGNAL) !=
                        static_cast<ssize_t>(request.size())) {
      ++failed;
      v.done = true;
      return;
    }
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u32 = static_cast<uint32_t>(i);
    ::epoll_ctl(ep, EPOLL_CTL_ADD, v.fd, &e);
    ++open;
  };
  auto leave = [&](int i) {  // closing removes it from the epoll set
    Viewer& v = viewers[i];
    if (v.done) return;
    ::close(v.fd);
    v.done = true;
    --open;
  };
  auto say = [](const char* what) {
    std::printf("viewers %s %.3f\n", what, absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()));
    std::fflush(stdout);
  };
  for (int i = 0; i < n; ++i) join(i);
  // --switch_s: viewer 0 stays as the probe; the others come and go until
  // 90 % of the matches are recorded, and are there for the end.
  const absl::Duration half = absl::Seconds(absl::GetFlag(FLAGS_switch_s));
  bool switching = half > absl::ZeroDuration() && n > 1;
  bool present = true;
  absl::Time next_switch = absl::Now() + half;
  if (switching) say("on");
  std::vector<epoll_event> ready(1024);
  std::vector<char> buf(1 << 16);
  while (open > 0) {
    int wait_ms = 1000;
    if (switching) {
      wait_ms = static_cast<int>(
          std::clamp<int64_t>(absl::ToInt64Milliseconds(next_switch - absl::Now()), 0, 1000));
    }
    const int k = ::epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), wait_ms);
    for (int j = 0; j < k; ++j) {
      const int i = static_cast<int>(ready[j].data.u32);
      Viewer& v = viewers[i];
      for (;;) {
        const ssize_t got = ::recv(v.fd, buf.data(), buf.size(), MSG_DONTWAIT);
        if (got > 0) {
          v.bytes += got;
          v.tail.append(buf.data(), static_cast<size_t>(got));
          continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) break;
        leave(i);  // the server closed (or reset) the stream
        break;
      }
      TakeEvents(&v, /*count=*/switching && i == 0);
    }
    if (switching && viewers[0].total * 10 >= games * 9) {
      switching = false;
      if (!present) {
        for (int i = 1; i < n; ++i) join(i);
        present = true;
        say("on");
      }
      say("stay");
    } else if (switching && absl::Now() >= next_switch) {
      present = !present;
      say(present ? "on" : "off");
      for (int i = 1; i < n; ++i) present ? join(i) : leave(i);
      next_switch = absl::Now() + half;
    }
    // The next look in every_ms, not at the next event (see the top).
    if (k > 0 && every_ms > 0) absl::SleepFor(absl::Milliseconds(every_ms));
  }
  int ok = 0;
  std::map<std::string, int> others;
  for (const Viewer& v : viewers) {
    bytes += v.bytes;
    const int64_t m = v.last.empty() ? -1 : MatchesPlayed(v.last);
    if (m == games) {
      ++ok;
    } else {
      ++others[m < 0 ? "no standings in the last event" : absl::StrCat(m, " matches")];
    }
  }
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  std::printf("the viewers' own CPU (this client): %.1f s user, %.1f s system; %.1f MB read\n",
              ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
              ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, bytes / 1e6);
  std::printf("viewers: %d, got the final standings (%lld matches): %d; not connected: %d",
              n, static_cast<long long>(games), ok, failed);
  for (const auto& [what, count] : others) std::printf("; %d: %s", count, what.c_str());
  std::printf("\n");
  return ok == n ? 0 : 1;
}
