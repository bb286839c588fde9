// referee_bench: the referee over gRPC on loopback, against a floor.
//
//   build/bin/referee_bench                 # every configuration, ~40 s
//   build/bin/referee_bench --seconds=5 --configs=floor1,ref1
//
// Configurations (--configs, comma-separated):
//   floor1, floor64   A bare ping-pong service: an arena.v1.Referee
//                     CallbackService that answers every BotMessage with one
//                     RefereeMessage holding a real Quäsenbö DecisionRequest
//                     (of the mean size). 1 and 64 streams. No game, no
//                     runner: gRPC's own cost, the ceiling for the referee.
//   ref1, ref64       The referee: a BotHub on a grpc::Server (callback API,
//                     as arena/tournament/launch.cc), matches made by Match::Create
//                     over hub.NewMatchLink (as arena/tournament/tournament.cc), 1
//                     and 64 matches at once (run on gRPC's threads and the
//                     deadline timer; one thread starts them), every
//                     decision sent to a bot (AUTO_MOVES_NONE), decision_ms
//                     60000. One bot identity per seat of every match.
//   ref1x1            As ref1, but one bot holds both seats: one stream, as
//                     in floor1 (the like-for-like comparison with it).
//   ref64x2           As ref64, but the 64 matches share 2 bots (2 streams).
//   ref1disk          As ref1 with the records on disk (--disk_dir): shows
//                     what writing them to a disk costs (no fsync: a record
//                     is flushed and renamed).
//   relay1, relay64   Diagnostic: the floor of the referee's message pattern
//                     with a stream per seat. Streams in pairs (1 and 64
//                     pairs, a process per stream); a message read on one
//                     stream is answered on the other, as a 2-seat match
//                     asks the other seat once one has played. ref1 and ref64
//                     are also shown against them.
//   relay1lazy, relay64lazy  The relay floors with the hub's lazy reads: a
//                     stream's next read starts with its next write once a
//                     decision is read (what showed that gRPC's per-read
//                     WINDOW_UPDATE is the cost of the relay pattern;
//                     docs/benchmarks.md).
//   handoff1, handoff64  Diagnostic: the floor, but each reply is sent by
//                     a thread of the stream's own, woken through a CondVar:
//                     what a thread hop per decision would cost by itself.
//   mem               Heap per match, in process (no gRPC): the peak of
//                     malloc'd bytes during a match over those before it.
//
// Each bot runs in a child process of its own (this binary again,
// --role=bots), as arena runs each bot as its own program: one channel (own
// TCP connection) and one stream, a minimal client that answers each
// DecisionRequest at once with a random index. The floor's clients are the
// same code, one process per stream, so floor and referee differ only in the
// server. --bots_in_one_process puts every bot of a configuration in one
// process, a thread each (no process switch between a bot and its partner).
// With --sdk_bots the referee's bots are build/bin/random_bot processes
// (bots/sdk) instead.
//
// Every server (floor, relay, referee) is configured as arena's
// (ConfigureServer: no BDP probe, the same limits) unless --arena_server=false.
// --lazy_reads=false runs the referee's hub with a read always out
// (HubOptions::lazy_reads off).
//
// CPU: getrusage(RUSAGE_SELF) of this process (the server only; the bots are
// another process) over the measured window, divided by the decisions (round
// trips) in it. The bots' CPU is read from /proc/<pid>/stat. Memory: mallinfo2
// (bytes in use, every arena) and RSS, sampled every 50 ms while the matches
// run, against the same process idle. See docs/benchmarks.md.
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <functional>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "arena/tournament/server_options.h"
#include "referee/service/bot_hub.h"
#include "referee/game_api/game.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"
#include "referee/games/registry.h"
#include "referee/game_api/rng.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, configs,
          "mem,floor1,relay1,relay1lazy,handoff1,ref1x1,ref1,ref1disk,floor64,relay64,relay64lazy,handoff64,ref64,ref64x2",
          "configurations to run, in order");
ABSL_FLAG(double, seconds, 3.0, "measured seconds per configuration");
ABSL_FLAG(double, warmup, 0.5, "seconds of warm-up before measuring");
ABSL_FLAG(std::string, game, "quasenbo",
          "the game the referee plays (the floor sends its mean request)");
ABSL_FLAG(int, seats, 0, "seats (0: the game's default)");
ABSL_FLAG(std::string, options, "", "game options, k=v,k=v");
ABSL_FLAG(int, many, 64, "streams / matches of the *64 configurations");
ABSL_FLAG(bool, arena_server, true,
          "configure every server (floor, relay and referee) as arena's "
          "(arena/tournament/server_options.h: limits, keepalive, no BDP probe); false: "
          "gRPC's defaults");
ABSL_FLAG(bool, coalesce_writes, true,
          "the referee's HubOptions::coalesce_writes (false: a write per "
          "message, a MatchStart apart from the first request)");
ABSL_FLAG(bool, lazy_reads, true,
          "the referee's HubOptions::lazy_reads (false: a read always "
          "out)");
ABSL_FLAG(std::string, disk_dir, "/tmp",
          "where ref1disk writes its records (a disk, not tmpfs)");
ABSL_FLAG(std::string, records_dir, "/dev/shm",
          "where the other referee configurations write records (tmpfs: the "
          "writes without the disk); 'memory' for the in-memory writer");
ABSL_FLAG(bool, sdk_bots, false,
          "referee's bots are build/bin/random_bot processes (bots/sdk)");
// Internal: the bot process.
ABSL_FLAG(std::string, role, "bench", "bench, or bots (internal)");
ABSL_FLAG(std::string, address, "", "bots: the server's address");
ABSL_FLAG(std::string, tokens, "", "bots: tokens, one stream each");
ABSL_FLAG(int, rounds, 1,
          "run the configurations this many times over, and summarise "
          "(medians; each ratio against its own round's floor)");
ABSL_FLAG(bool, bots_in_one_process, false,
          "run every bot of a configuration in one process (a thread each) "
          "instead of a process per bot");

namespace arena {
namespace {

// ---------------------------------------------------------------- helpers

struct Sample {
  absl::Time wall;
  double self_cpu = 0;  // seconds, user + system
  double self_sys = 0;  // seconds, system
  int64_t switches = 0;  // context switches, voluntary + not
  double child_cpu = 0;
  int64_t count = 0;
};

void ReadSelf(Sample* s) {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  s->self_sys = ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec;
  s->self_cpu = ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + s->self_sys;
  s->switches = ru.ru_nvcsw + ru.ru_nivcsw;
}

double ProcCpu(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string s((std::istreambuf_iterator<char>(in)), {});
  const size_t close = s.rfind(')');
  if (close == std::string::npos) return 0;
  std::vector<std::string> f = absl::StrSplit(s.substr(close + 2), ' ');
  // After "pid (comm) ": state is f[0]; utime, stime are fields 14, 15.
  if (f.size() < 13) return 0;
  double ut = 0, st = 0;
  (void)absl::SimpleAtod(f[11], &ut);
  (void)absl::SimpleAtod(f[12], &st);
  return (ut + st) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

int64_t HeapInUse() {
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
}

int64_t RssBytes() {
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

std::string SelfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  return std::string(buf, n);
}

pid_t Spawn(const std::string& path, const std::vector<std::string>& args,
            const std::vector<std::string>& env_extra) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) env_store.emplace_back(*e);
  for (const auto& e : env_extra) env_store.push_back(e);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc =
      posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    std::fprintf(stderr, "cannot start %s: %s\n", path.c_str(), std::strerror(rc));
    std::exit(1);
  }
  return pid;
}

// Waits for our own children to exit; kills (by pid) those that do not.
void Reap(const std::vector<pid_t>& pids) {
  const absl::Time until = absl::Now() + absl::Seconds(10);
  for (pid_t pid : pids) {
    for (;;) {
      int status = 0;
      const pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno == ECHILD)) break;
      if (absl::Now() > until) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
  }
}

// ---------------------------------------------------------------- the bots

// One bot: one channel (its own TCP connection), one stream, answers every
// DecisionRequest at once with a random index.
void RunRawBot(const std::string& address, const std::string& token,
               uint64_t seed) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto channel = grpc::CreateCustomChannel(
      address, grpc::InsecureChannelCredentials(), args);
  auto stub = v1::Referee::NewStub(channel);
  grpc::ClientContext ctx;
  auto stream = stub->Play(&ctx);
  v1::BotMessage out;
  out.mutable_hello()->set_token(token);
  out.mutable_hello()->set_protocol_version(1);
  out.mutable_hello()->set_client("referee_bench");
  if (!stream->Write(out)) return;
  Rng rng(seed);
  v1::RefereeMessage in;
  while (stream->Read(&in)) {
    if (in.kind_case() != v1::RefereeMessage::kDecisionRequest) continue;
    const v1::DecisionRequest& r = in.decision_request();
    v1::Decision* d = out.mutable_decision();
    d->set_match_id(r.match_id());
    d->set_decision_id(r.decision_id());
    d->set_action_index(static_cast<int>(rng.Uniform(
        static_cast<uint32_t>(std::max(1, r.legal_actions_size())))));
    if (!stream->Write(out)) break;
  }
  stream->WritesDone();
  stream->Finish();
}

int BotsMain() {
  const std::string address = absl::GetFlag(FLAGS_address);
  const std::vector<std::string> tokens =
      absl::StrSplit(absl::GetFlag(FLAGS_tokens), ',', absl::SkipEmpty());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tokens.size(); ++i) {
    threads.emplace_back(RunRawBot, address, tokens[i], 1000 + i);
  }
  for (auto& t : threads) t.join();
  return 0;
}

// Starts the bots for `tokens`: a child process per token (or, with
// --bots_in_one_process, one child with a thread per token), or (sdk) one
// random_bot process per token.
std::vector<pid_t> StartBots(const std::string& address,
                             const std::vector<std::string>& tokens, bool sdk) {
  const std::string self = SelfExe();
  if (!sdk) {
    std::vector<std::vector<std::string>> groups;
    if (absl::GetFlag(FLAGS_bots_in_one_process)) {
      groups.push_back(tokens);
    } else {
      for (const auto& t : tokens) groups.push_back({t});
    }
    std::vector<pid_t> pids;
    for (const auto& g : groups) {
      pids.push_back(Spawn(self,
                           {"referee_bench", "--role=bots",
                            absl::StrCat("--address=", address),
                            absl::StrCat("--tokens=", absl::StrJoin(g, ","))},
                           {}));
    }
    return pids;
  }
  const std::string bot = self.substr(0, self.rfind('/')) + "/random_bot";
  std::vector<pid_t> pids;
  for (const auto& t : tokens) {
    pids.push_back(Spawn(bot, {"random_bot"},
                         {absl::StrCat("ARENA_ADDRESS=", address),
                          absl::StrCat("ARENA_TOKEN=", t)}));
  }
  return pids;
}

double ChildrenCpu(const std::vector<pid_t>& pids) {
  double s = 0;
  for (pid_t p : pids) s += ProcCpu(p);
  return s;
}

// ---------------------------------------------------------------- the game

const Options& GameOptions() {
  static const Options* const opts = [] {
    auto* o = new Options;
    for (absl::string_view kv : absl::StrSplit(absl::GetFlag(FLAGS_options), ',',
                                               absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, '=');
      (*o)[p.first] = p.second;
    }
    return o;
  }();
  return *opts;
}

std::unique_ptr<Game> MakeGame() {
  const std::string name = absl::GetFlag(FLAGS_game);
  int seats = absl::GetFlag(FLAGS_seats);
  if (seats == 0) {
    const GameInfo* info = FindGameInfo(name);
    if (info == nullptr) {
      std::fprintf(stderr, "unknown game %s\n", name.c_str());
      std::exit(1);
    }
    seats = info->default_seats;
  }
  auto g = CreateGame(name, GameOptions(), seats);
  if (!g.ok()) {
    std::fprintf(stderr, "%s\n", g.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(g);
}

// A real DecisionRequest of the mean size, from random playouts built as the
// runner builds them (events since the seat's previous decision, view, legal
// actions).
struct RequestSample {
  v1::DecisionRequest request;
  double mean_bytes = 0;  // of RefereeMessage{decision_request}
  int64_t min_bytes = 0, max_bytes = 0;
};

RequestSample SampleRequests(const Game& game) {
  std::vector<v1::DecisionRequest> all;
  Rng rng(5);
  uint64_t id = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    auto s = game.NewInitialState(seed);
    std::vector<size_t> cursor(game.num_seats(), 0);
    while (!s->IsTerminal() && s->step() < game.info().default_decision_cap) {
      std::vector<int> actions;
      for (int seat : s->ActingSeats()) {
        v1::DecisionRequest r;
        r.set_match_id(absl::StrFormat("%s-s%d-%06d", game.info().name, 1, seed));
        r.set_seat(seat);
        r.set_decision_id(++id);
        r.set_step(static_cast<int32_t>(s->step()));
        r.set_deadline_ms(60000);
        const auto& ev = s->events();
        for (size_t i = cursor[seat]; i < ev.size(); ++i) {
          if (const v1::Event* e = EventForSeat(ev[i], seat)) {
            *r.mutable_view()->add_events() = *e;
          }
        }
        cursor[seat] = ev.size();
        s->FillView(seat, r.mutable_view());
        s->FillLegalActions(seat, r.mutable_legal_actions());
        actions.push_back(static_cast<int>(
            rng.Uniform(static_cast<uint32_t>(r.legal_actions_size()))));
        all.push_back(std::move(r));
      }
      s->Apply(actions);
    }
  }
  RequestSample out;
  double sum = 0;
  out.min_bytes = INT64_MAX;
  std::vector<int64_t> sizes;
  for (const auto& r : all) {
    v1::RefereeMessage m;
    *m.mutable_decision_request() = r;
    const int64_t b = static_cast<int64_t>(m.ByteSizeLong());
    sizes.push_back(b);
    sum += b;
    out.min_bytes = std::min(out.min_bytes, b);
    out.max_bytes = std::max(out.max_bytes, b);
  }
  out.mean_bytes = sum / all.size();
  size_t best = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::abs(sizes[i] - out.mean_bytes) < std::abs(sizes[best] - out.mean_bytes)) {
      best = i;
    }
  }
  out.request = all[best];
  return out;
}

// ---------------------------------------------------------------- results

struct Row {
  std::string config;
  int concurrency = 0;  // streams or matches
  int bots = 0;
  int64_t decisions = 0;
  double seconds = 0;
  double per_second = 0;
  double server_cpu_us = 0;  // this process, per decision
  double bots_cpu_us = 0;
  double server_sys_us = 0;  // of server_cpu_us, in the kernel
  double switches = 0;       // context switches of this process per decision
  int64_t faults = 0;
  int64_t matches = 0;
  // Memory, with matches live, over the idle process (bytes per match).
  double heap_per_match = 0, heap_per_match_vs_start = 0, rss_per_match = 0;
  bool has_memory = false;
};

void Measure(Row* row, const std::vector<pid_t>& bots,
             const std::atomic<int64_t>& counter, Sample* a, Sample* b,
             const std::function<void()>& while_measuring = nullptr) {
  absl::SleepFor(absl::Seconds(absl::GetFlag(FLAGS_warmup)));
  a->wall = absl::Now();
  ReadSelf(a);
  a->child_cpu = ChildrenCpu(bots);
  a->count = counter.load();
  const absl::Time end = a->wall + absl::Seconds(absl::GetFlag(FLAGS_seconds));
  if (while_measuring) {
    while (absl::Now() < end) {
      while_measuring();
      absl::SleepFor(absl::Milliseconds(50));
    }
  } else {
    absl::SleepFor(end - absl::Now());
  }
  b->count = counter.load();
  b->wall = absl::Now();
  ReadSelf(b);
  b->child_cpu = ChildrenCpu(bots);
  row->decisions = b->count - a->count;
  row->seconds = absl::ToDoubleSeconds(b->wall - a->wall);
  row->per_second = row->decisions / row->seconds;
  if (row->decisions > 0) {
    row->server_cpu_us = 1e6 * (b->self_cpu - a->self_cpu) / row->decisions;
    row->bots_cpu_us = 1e6 * (b->child_cpu - a->child_cpu) / row->decisions;
    row->server_sys_us = 1e6 * (b->self_sys - a->self_sys) / row->decisions;
    row->switches = static_cast<double>(b->switches - a->switches) / row->decisions;
  }
}

// ---------------------------------------------------------------- the floor

class FloorService;

// How the floor answers a stream's message.
enum class FloorMode {
  kEcho,     // at once, on the same stream (floor1, floor64)
  kHandoff,  // on the same stream, from a thread woken through a CondVar
  kRelay,    // on the partner stream of a pair (relay1, relay64)
};

// The two streams of a relay pair (tokens t<2i> and t<2i+1>).
struct RelayPair {
  absl::Mutex mu;
  class FloorReactor* side[2] ABSL_GUARDED_BY(mu) = {nullptr, nullptr};
};

class FloorReactor
    : public grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> {
 public:
  explicit FloorReactor(FloorService* service);
  ~FloorReactor() override;
  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override {
    if (!ok) {
      FinishOnce();
      return;
    }
    if (!relay_) {
      StartRead(&in_);
      return;
    }
    // A relay stream always has a read out; its partner's bot may have
    // answered (and so asked for this stream's next write) before this
    // write's completion came back: that write waited for it.
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (pending_) {
      pending_ = false;
      writing_ = true;
      RelayReply();
    }
  }
  void OnDone() override;

 private:
  friend class FloorService;
  void Reply() {
    out_.mutable_decision_request()->set_decision_id(++next_id_);
    StartWrite(&out_);
  }
  // Finish, once (a failed read and a failed write may both ask). In a
  // relay pair, under the pair's lock, so that the partner never writes
  // to a finished stream.
  void FinishOnce();
  void OnRelayRead();
  // With handoff: a thread of its own is woken through a CondVar to send
  // each reply (a thread hop per decision, measured on its own).
  void Worker() {
    for (;;) {
      {
        absl::MutexLock lock(&mu_);
        while (!pending_ && !quit_) cv_.Wait(&mu_);
        if (quit_) return;
        pending_ = false;
      }
      Reply();
    }
  }

  // Relay: writes one at a time (gRPC allows one outstanding write).
  void RelayWrite() {
    absl::MutexLock lock(&mu_);
    if (writing_) {
      pending_ = true;
      return;
    }
    writing_ = true;
    RelayReply();
  }
  // A relay write, and with it the read put off (lazy relay). Under mu_.
  void RelayReply() {
    Reply();
    if (read_due_) {
      read_due_ = false;
      StartRead(&in_);
    }
  }

  FloorService* const service_;
  const bool relay_;
  bool writing_ = false;  // relay, under mu_
  bool read_due_ = false;  // lazy relay, under mu_
  RelayPair* pair_ = nullptr;  // relay: set by the hello
  int side_ = 0;
  std::atomic<bool> finished_{false};
  v1::BotMessage in_;
  v1::RefereeMessage out_;
  uint64_t next_id_ = 0;
  absl::Mutex mu_;
  absl::CondVar cv_;
  bool pending_ = false;
  bool quit_ = false;
  std::thread worker_;
};

class FloorService : public v1::Referee::CallbackService {
 public:
  FloorService(const v1::DecisionRequest& request, FloorMode mode, int streams,
               bool lazy)
      : mode(mode), lazy(lazy), pairs_(mode == FloorMode::kRelay ? streams / 2 : 0) {
    *message_.mutable_decision_request() = request;
    for (auto& p : pairs_) p = std::make_unique<RelayPair>();
  }
  const FloorMode mode;
  // Relay: after a decision is read, the stream's next read starts with its
  // next write (as the hub's HubOptions::lazy_reads), not at once.
  const bool lazy;
  grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage>* Play(
      grpc::CallbackServerContext*) override {
    return new FloorReactor(this);
  }
  const v1::RefereeMessage& message() const { return message_; }
  // The pair of a relay stream's token "t<k>" (side k % 2), or null.
  RelayPair* PairOf(const std::string& token, int* side) {
    int k = -1;
    if (token.size() < 2 || !absl::SimpleAtoi(token.substr(1), &k) || k < 0 ||
        static_cast<size_t>(k / 2) >= pairs_.size()) {
      return nullptr;
    }
    *side = k % 2;
    return pairs_[k / 2].get();
  }
  std::atomic<int64_t> round_trips{0};
  std::atomic<int> live{0};
  std::atomic<bool> stop{false};

 private:
  v1::RefereeMessage message_;
  std::vector<std::unique_ptr<RelayPair>> pairs_;
};

FloorReactor::FloorReactor(FloorService* service)
    : service_(service),
      relay_(service->mode == FloorMode::kRelay),
      out_(service->message()) {
  service_->live.fetch_add(1);
  if (service_->mode == FloorMode::kHandoff) {
    worker_ = std::thread([this] { Worker(); });
  }
  StartRead(&in_);
}

FloorReactor::~FloorReactor() {
  if (worker_.joinable()) {
    {
      absl::MutexLock lock(&mu_);
      quit_ = true;
      cv_.Signal();
    }
    worker_.join();
  }
}

void FloorReactor::FinishOnce() {
  if (pair_ != nullptr) {
    absl::MutexLock lock(&pair_->mu);
    if (finished_.exchange(true)) return;
    Finish(grpc::Status::OK);
    // With lazy reads the partner may have no read out to notice the end.
    FloorReactor* partner = pair_->side[1 - side_];
    if (service_->lazy && partner != nullptr &&
        !partner->finished_.exchange(true)) {
      partner->Finish(grpc::Status::OK);
    }
    return;
  }
  if (finished_.exchange(true)) return;
  Finish(grpc::Status::OK);
}

// Relay: the hello pairs the stream (the pair's first request goes to side
// 0 once both are there); each decision is answered on the partner stream,
// as a 2-seat match asks the other seat after one has played.
void FloorReactor::OnRelayRead() {
  if (pair_ == nullptr) {
    if (in_.kind_case() != v1::BotMessage::kHello) return;
    pair_ = service_->PairOf(in_.hello().token(), &side_);
    if (pair_ == nullptr) return;
    StartRead(&in_);
    absl::MutexLock lock(&pair_->mu);
    pair_->side[side_] = this;
    FloorReactor* first = pair_->side[0];
    if (pair_->side[0] != nullptr && pair_->side[1] != nullptr &&
        !first->finished_.load()) {
      first->RelayWrite();
    }
    return;
  }
  const bool decision = in_.kind_case() == v1::BotMessage::kDecision;
  if (!decision || !service_->lazy) {
    StartRead(&in_);  // in_ is not read again below
  } else {
    absl::MutexLock lock(&mu_);
    read_due_ = true;  // started with this stream's next write
  }
  if (!decision) return;
  service_->round_trips.fetch_add(1, std::memory_order_relaxed);
  absl::MutexLock lock(&pair_->mu);
  FloorReactor* partner = pair_->side[1 - side_];
  if (partner != nullptr && !partner->finished_.load()) partner->RelayWrite();
}

void FloorReactor::OnReadDone(bool ok) {
  if (!ok || service_->stop.load(std::memory_order_relaxed)) {
    FinishOnce();
    return;
  }
  if (relay_) {
    OnRelayRead();
    return;
  }
  if (in_.kind_case() == v1::BotMessage::kDecision) {
    service_->round_trips.fetch_add(1, std::memory_order_relaxed);
  }
  if (service_->mode == FloorMode::kHandoff) {
    absl::MutexLock lock(&mu_);
    pending_ = true;
    cv_.Signal();
    return;
  }
  Reply();
}

void FloorReactor::OnDone() {
  if (pair_ != nullptr) {
    absl::MutexLock lock(&pair_->mu);
    pair_->side[side_] = nullptr;
  }
  service_->live.fetch_sub(1);
  delete this;
}

std::unique_ptr<grpc::Server> StartServer(grpc::Service* service, int* port) {
  grpc::ServerBuilder builder;
  if (absl::GetFlag(FLAGS_arena_server)) ConfigureServer(&builder);
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           port);
  builder.RegisterService(service);
  auto server = builder.BuildAndStart();
  if (server == nullptr || *port == 0) {
    std::fprintf(stderr, "cannot listen on 127.0.0.1\n");
    std::exit(1);
  }
  return server;
}

Row RunFloor(const std::string& name, int streams,
             const v1::DecisionRequest& request, FloorMode mode,
             bool lazy = false) {
  Row row;
  row.config = name;
  // A relay pair carries one round trip at a time, as one 2-seat match.
  row.concurrency = mode == FloorMode::kRelay ? streams / 2 : streams;
  row.bots = streams;
  FloorService service(request, mode, streams, lazy);
  int port = 0;
  auto server = StartServer(&service, &port);
  std::vector<std::string> tokens;
  for (int i = 0; i < streams; ++i) tokens.push_back(absl::StrCat("t", i));
  const std::vector<pid_t> bots =
      StartBots(absl::StrCat("127.0.0.1:", port), tokens, false);
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (service.live.load() < streams && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  Sample a, b;
  Measure(&row, bots, service.round_trips, &a, &b);
  service.stop = true;
  Reap(bots);
  server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
  return row;
}

// ---------------------------------------------------------------- the referee

// Counts the decisions answered, around the hub's link: the link delivers
// to this listener, which counts and passes the answer on to the match.
class CountingLink : public SeatLink {
 public:
  CountingLink(std::unique_ptr<SeatLink> link, std::atomic<int64_t>* answered,
               std::atomic<int64_t>* faults)
      : link_(std::move(link)), answered_(answered), faults_(faults) {}
  void set_listener(std::weak_ptr<Listener> match) override {
    counter_ = std::make_shared<Counter>(std::move(match), answered_, faults_);
    link_->set_listener(counter_);
  }
  void Start(int seat, const v1::MatchStart& start) override {
    link_->Start(seat, start);
  }
  void StartBeforeRequest(int seat, const v1::MatchStart& start) override {
    link_->StartBeforeRequest(seat, start);
  }
  bool ReportsLeaving() const override { return link_->ReportsLeaving(); }
  void Send(int seat, OutMessage message, int num) override {
    link_->Send(seat, std::move(message), num);
  }
  void Withdraw(int seat, uint64_t id) override { link_->Withdraw(seat, id); }
  void End(int seat, const v1::MatchEnd& end) override { link_->End(seat, end); }

 private:
  class Counter : public Listener {
   public:
    Counter(std::weak_ptr<Listener> match, std::atomic<int64_t>* answered,
            std::atomic<int64_t>* faults)
        : match_(std::move(match)), answered_(answered), faults_(faults) {}
    bool OnReply(int seat, uint64_t id, SeatReply r) override {
      (r.ok ? answered_ : faults_)->fetch_add(1, std::memory_order_relaxed);
      auto m = match_.lock();
      return m != nullptr && m->OnReply(seat, id, std::move(r));
    }
    absl::StatusOr<std::string> SentEvents(int seat) override {
      auto m = match_.lock();
      if (m == nullptr) return absl::FailedPreconditionError("match over");
      return m->SentEvents(seat);
    }
    void OnLeft(int seat, uint64_t id, absl::Time at) override {
      if (auto m = match_.lock()) m->OnLeft(seat, id, at);
    }

   private:
    std::weak_ptr<Listener> match_;
    std::atomic<int64_t>* answered_;
    std::atomic<int64_t>* faults_;
  };
  std::unique_ptr<SeatLink> link_;
  std::shared_ptr<Counter> counter_;
  std::atomic<int64_t>* answered_;
  std::atomic<int64_t>* faults_;
};

// Keeps `concurrency` matches live, each started as soon as one ends, the
// way arena/tournament/tournament.cc does: this one thread starts matches and waits;
// the matches themselves run on gRPC's threads and the deadline timer.
class MatchDriver {
 public:
  using Factory = std::function<std::shared_ptr<Match>(
      int64_t index, Match::Done done)>;
  MatchDriver(int concurrency, Factory factory)
      : concurrency_(concurrency), factory_(std::move(factory)) {
    thread_ = std::thread([this] { Loop(); });
  }
  // Starts no more matches and waits for the live ones.
  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
      auto idle = [this] { return live_ == 0; };
      mu_.Await(absl::Condition(&idle));
    }
    thread_.join();
  }
  int64_t finished() const { return finished_.load(); }
  int64_t bad_records() const { return bad_records_.load(); }

 private:
  void Loop() {
    for (int64_t i = 0;; ++i) {
      {
        absl::MutexLock lock(&mu_);
        auto room = [this] { return stop_ || live_ < concurrency_; };
        mu_.Await(absl::Condition(&room));
        if (stop_) return;
        ++live_;
      }
      factory_(i, [this](MatchOutcome out) {
        if (!out.record_status.ok()) bad_records_.fetch_add(1);
        if (!out.record_path.empty()) unlink(out.record_path.c_str());
        finished_.fetch_add(1);
        absl::MutexLock lock(&mu_);
        --live_;
      })->Start();
    }
  }
  const int concurrency_;
  const Factory factory_;
  absl::Mutex mu_;
  int live_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<int64_t> finished_{0}, bad_records_{0};
  std::thread thread_;
};

std::string MakeRecordsDir(const std::string& base) {
  if (base == "memory") return "";
  std::string templ = base + "/referee_bench.XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) {
    std::fprintf(stderr, "cannot make a directory in %s: %s\n", base.c_str(),
                 std::strerror(errno));
    std::exit(1);
  }
  return templ;
}

Row RunReferee(const std::string& name, const Game& game, int matches,
               int num_bots, const std::string& records_base) {
  Row row;
  row.config = name;
  row.concurrency = matches;
  row.bots = num_bots;
  const int seats = game.num_seats();
  std::vector<BotIdentity> ids;
  std::vector<std::string> tokens;
  for (int i = 0; i < num_bots; ++i) {
    ids.push_back({absl::StrCat("bot", i), absl::StrCat("token-", i)});
    tokens.push_back(ids.back().token);
  }
  HubOptions hub_options;
  hub_options.lazy_reads = absl::GetFlag(FLAGS_lazy_reads);
  hub_options.coalesce_writes = absl::GetFlag(FLAGS_coalesce_writes);
  BotHub hub(ids, hub_options);
  int port = 0;
  auto server = StartServer(hub.service(), &port);
  const std::vector<pid_t> bots = StartBots(
      absl::StrCat("127.0.0.1:", port), tokens, absl::GetFlag(FLAGS_sdk_bots));
  std::vector<std::string> names;
  for (const auto& id : ids) names.push_back(id.name);
  if (!hub.WaitForBots(names, absl::Seconds(60))) {
    std::fprintf(stderr, "%s: the bots did not connect\n", name.c_str());
    std::exit(1);
  }
  const std::string dir = MakeRecordsDir(records_base);

  std::atomic<int64_t> answered{0}, faults{0};
  const int64_t heap_idle_start = HeapInUse();
  const int64_t rss_idle_start = RssBytes();
  MatchDriver driver(matches, [&](int64_t i, Match::Done done) {
    const int t = static_cast<int>(i % matches);
    MatchSpec spec;
    spec.game_name = game.info().name;
    spec.options = GameOptions();
    for (int s = 0; s < seats; ++s) {
      spec.seat_bots.push_back(ids[(t * seats + s) % num_bots].name);
    }
    spec.time_control.set_decision_ms(60000);
    spec.fault_policy = v1::FAULT_POLICY_FORFEIT;
    spec.auto_moves = v1::AUTO_MOVES_NONE;
    spec.match_id = absl::StrFormat("%s-s%d-%06d", spec.game_name, t, i);
    spec.seed = DeriveSeed(static_cast<uint64_t>(t), static_cast<uint64_t>(i));
    auto writer = RecordWriter::Open(dir, spec.match_id);
    if (!writer.ok()) {
      std::fprintf(stderr, "%s\n", writer.status().ToString().c_str());
      std::exit(1);
    }
    auto link = std::make_shared<CountingLink>(
        hub.NewMatchLink(spec.match_id, spec.seat_bots), &answered, &faults);
    return Match::Create(game, spec, link,
                         std::shared_ptr<RecordWriter>(*std::move(writer)),
                         std::move(done));
  });

  double heap_sum = 0, rss_sum = 0;
  int n_samples = 0;
  Sample a, b;
  Measure(&row, bots, answered, &a, &b, [&] {
    heap_sum += HeapInUse();
    rss_sum += RssBytes();
    ++n_samples;
  });
  const int64_t finished_in_window = driver.finished();
  driver.Stop();
  const int64_t heap_idle_end = HeapInUse();
  row.faults = faults.load() + driver.bad_records();
  row.matches = finished_in_window;
  if (n_samples > 0) {
    row.has_memory = true;
    const double heap_live = heap_sum / n_samples;
    row.heap_per_match = (heap_live - heap_idle_end) / matches;
    row.heap_per_match_vs_start = (heap_live - heap_idle_start) / matches;
    row.rss_per_match = (rss_sum / n_samples - rss_idle_start) / matches;
  }
  hub.CloseAll();
  Reap(bots);
  server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
  if (!dir.empty()) rmdir(dir.c_str());
  return row;
}

// ---------------------------------------------------------------- memory

// A link whose bots answer at once; at every decision it notes the heap in
// use, so the peak of a match is known.
class PeakLink : public SeatLink {
 public:
  explicit PeakLink(int seats) : rng_(3) {}
  void Start(int, const v1::MatchStart&) override {}
  void Send(int seat, OutMessage message, int num) override {
    peak_ = std::max(peak_, HeapInUse());
    SeatReply r;
    r.ok = true;
    r.action = static_cast<int>(rng_.Uniform(static_cast<uint32_t>(num)));
    const uint64_t id = message->decision_request().decision_id();
    message = OutMessage();  // as a transport frees it once written
    Deliver(seat, id, std::move(r));
  }
  void End(int, const v1::MatchEnd&) override {
    peak_ = std::max(peak_, HeapInUse());
  }
  int64_t peak_ = 0;

 private:
  Rng rng_;
};

struct MemoryResult {
  double mean_peak = 0;
  int64_t max_peak = 0;
  double mean_decisions = 0;
  int64_t max_decisions = 0;
  double fixed = 0, per_decision = 0;  // fit of peak over decisions
};

MemoryResult MeasureMatchMemory(const Game& game, const std::string& dir,
                                int n) {
  MemoryResult m;
  MatchSpec spec;
  spec.game_name = game.info().name;
  spec.options = GameOptions();
  for (int s = 0; s < game.num_seats(); ++s) spec.seat_bots.push_back(absl::StrCat("bot", s));
  spec.time_control.set_decision_ms(60000);
  spec.auto_moves = v1::AUTO_MOVES_NONE;
  double sum = 0, dsum = 0, ddsum = 0, dpsum = 0;
  for (int i = -3; i < n; ++i) {  // 3 matches of warm-up (lazy statics)
    spec.match_id = absl::StrFormat("%s-s9-%06d", spec.game_name, i);
    spec.seed = DeriveSeed(9, static_cast<uint64_t>(i));
    PeakLink link(game.num_seats());
    const int64_t before = HeapInUse();
    link.peak_ = before;
    int64_t decisions = 0;
    {
      auto writer = RecordWriter::Open(dir, spec.match_id);
      const MatchOutcome out = RunMatch(game, spec, link, **writer);
      decisions = out.result.decisions();
      if (!out.record_path.empty()) unlink(out.record_path.c_str());
    }
    const int64_t peak = link.peak_ - before;
    if (i < 0) continue;
    sum += peak;
    dsum += decisions;
    ddsum += static_cast<double>(decisions) * decisions;
    dpsum += static_cast<double>(decisions) * peak;
    m.max_peak = std::max(m.max_peak, peak);
    m.max_decisions = std::max(m.max_decisions, decisions);
  }
  m.mean_peak = sum / n;
  m.mean_decisions = dsum / n;
  // Least squares: peak = fixed + per_decision * decisions.
  const double var = ddsum / n - m.mean_decisions * m.mean_decisions;
  if (var > 0) {
    m.per_decision = (dpsum / n - m.mean_decisions * m.mean_peak) / var;
    m.fixed = m.mean_peak - m.per_decision * m.mean_decisions;
  }
  return m;
}

// ---------------------------------------------------------------- main

// The floor of the same round at the same concurrency.
const Row* FloorFor(const std::vector<Row>& rows, const Row& r) {
  const std::string want = r.concurrency == 1 ? "floor1" : "floor64";
  for (const Row& f : rows) {
    if (f.config == want) return &f;
  }
  return nullptr;
}

bool IsCompared(const Row& r) {
  return r.config.rfind("ref", 0) == 0 || r.config.rfind("handoff", 0) == 0 ||
         r.config.rfind("relay", 0) == 0;
}

// The relay floors of the referee's own message pattern (a stream per seat;
// an answer on one stream, the next request on the other): ref1 against
// relay1 and relay1lazy, ref64 against relay64 and relay64lazy.
const Row* Named(const std::vector<Row>& rows, const std::string& name) {
  for (const Row& f : rows) {
    if (f.config == name) return &f;
  }
  return nullptr;
}

void PrintAgainstRelay(const std::vector<std::vector<Row>>& all) {
  static const std::pair<const char*, const char*> kPairs[] = {
      {"ref1", "relay1"}, {"ref1", "relay1lazy"},
      {"ref64", "relay64"}, {"ref64", "relay64lazy"}};
  bool any = false;
  for (const auto& [ref, floor] : kPairs) {
    std::vector<double> ratio, own;
    for (const auto& rows : all) {
      const Row* r = Named(rows, ref);
      const Row* relay = Named(rows, floor);
      if (r == nullptr || relay == nullptr || relay->per_second <= 0) continue;
      ratio.push_back(r->per_second / relay->per_second);
      own.push_back(r->server_cpu_us - relay->server_cpu_us);
    }
    if (ratio.empty()) continue;
    if (!any) {
      std::printf("\nAgainst the relay floor of the same pattern (diagnostic; "
                  "medians over %zu round(s)):\n", all.size());
      any = true;
    }
    std::sort(ratio.begin(), ratio.end());
    std::sort(own.begin(), own.end());
    std::printf("  %-7s %.0f%% of %s (%.0f-%.0f%%), server CPU %+.1f us per "
                "decision beyond it\n",
                ref, 100 * ratio[ratio.size() / 2], floor,
                100 * ratio.front(), 100 * ratio.back(), own[own.size() / 2]);
  }
}

void PrintTable(const std::vector<Row>& rows) {
  std::printf("%-11s %5s %5s %9s %9s %8s %11s %8s %8s %8s %6s %9s %6s\n",
              "config", "conc", "bots", "decisions", "per_s", "vs_floor",
              "target", "srv_us/d", "sys_us/d", "own_us/d", "csw/d",
              "bots_us/d", "faults");
  for (const Row& r : rows) {
    const bool is_ref = IsCompared(r);
    const Row* floor = FloorFor(rows, r);
    std::string ratio = "-", target = "-", own = "-";
    if (is_ref && floor != nullptr && floor->per_second > 0) {
      const double x = r.per_second / floor->per_second;
      const double want = r.concurrency == 1 ? 0.80 : 0.70;
      ratio = absl::StrFormat("%.0f%%", 100 * x);
      target = r.config.rfind("ref", 0) == 0
                   ? absl::StrFormat(">=%.0f%% %s", 100 * want,
                                     x >= want ? "met" : "MISS")
                   : "(diag)";
      own = absl::StrFormat("%.1f", r.server_cpu_us - floor->server_cpu_us);
    }
    std::printf(
        "%-11s %5d %5d %9lld %9.0f %8s %11s %8.1f %8.1f %8s %6.1f %9.1f %6lld\n",
        r.config.c_str(), r.concurrency, r.bots,
        static_cast<long long>(r.decisions), r.per_second, ratio.c_str(),
        target.c_str(), r.server_cpu_us, r.server_sys_us, own.c_str(),
        r.switches, r.bots_cpu_us, static_cast<long long>(r.faults));
  }
  std::printf(
      "\nconc: streams (floor) or matches at once (ref). per_s: round trips "
      "(floor) or decisions (ref) per second.\nsrv_us/d: CPU of this process "
      "(server, hub, runners) per decision; own_us/d: srv_us/d minus the "
      "floor's at the same concurrency (the referee's own work, target <= 10); "
      "sys_us/d: the kernel's part of srv_us/d; csw/d: context switches of "
      "this process per decision; bots_us/d: the bot process's CPU.\n");
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Per configuration over the rounds: the median rate, and each round's
// ratio to that round's floor (median, min, max), the median own CPU.
void PrintSummary(const std::vector<std::vector<Row>>& all) {
  std::printf("\nOver %zu rounds (each ratio against the floor of its own round):\n",
              all.size());
  std::printf("%-11s %9s %18s %11s %14s %9s\n", "config", "per_s med",
              "vs_floor med", "(min-max)", "own_us/d med", "target");
  for (size_t i = 0; i < all.front().size(); ++i) {
    std::vector<double> rate, ratio, own;
    for (const auto& rows : all) {
      if (i >= rows.size()) continue;
      const Row& r = rows[i];
      rate.push_back(r.per_second);
      const Row* floor = FloorFor(rows, r);
      if (IsCompared(r) && floor != nullptr && floor->per_second > 0) {
        ratio.push_back(r.per_second / floor->per_second);
        own.push_back(r.server_cpu_us - floor->server_cpu_us);
      }
    }
    const Row& r = all.front()[i];
    if (ratio.empty()) {
      std::printf("%-11s %9.0f\n", r.config.c_str(), Median(rate));
      continue;
    }
    const double want = r.concurrency == 1 ? 0.80 : 0.70;
    const double med = Median(ratio);
    std::printf("%-11s %9.0f %17.0f%% %5.0f-%3.0f%% %14.1f %9s\n",
                r.config.c_str(), Median(rate), 100 * med,
                100 * *std::min_element(ratio.begin(), ratio.end()),
                100 * *std::max_element(ratio.begin(), ratio.end()), Median(own),
                r.config.rfind("ref", 0) != 0 ? "(diag)"
                : med >= want               ? "met"
                                            : "MISS");
  }
}

int BenchMain() {
  spdlog::set_level(spdlog::level::err);
  const auto game = MakeGame();
  const RequestSample sample = SampleRequests(*game);
  const int many = absl::GetFlag(FLAGS_many);
  std::string cpu_model = "?";
  {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("model name", 0) == 0) {
        cpu_model = line.substr(line.find(':') + 2);
        break;
      }
    }
  }
  std::printf("referee_bench: %s, %d seats, options {%s}\n",
              game->info().name.c_str(), game->num_seats(),
              absl::GetFlag(FLAGS_options).c_str());
  std::printf("machine: %s, %ld cores; measured %.1f s per configuration after "
              "%.1f s warm-up\n",
              cpu_model.c_str(), sysconf(_SC_NPROCESSORS_ONLN),
              absl::GetFlag(FLAGS_seconds), absl::GetFlag(FLAGS_warmup));
  std::printf("DecisionRequest as sent (RefereeMessage): mean %.0f B (min %lld, "
              "max %lld); the floor sends one of %zu B\n\n",
              sample.mean_bytes, static_cast<long long>(sample.min_bytes),
              static_cast<long long>(sample.max_bytes),
              [&] {
                v1::RefereeMessage m;
                *m.mutable_decision_request() = sample.request;
                return m.ByteSizeLong();
              }());
  std::fflush(stdout);

  const std::vector<std::string> configs =
      absl::StrSplit(absl::GetFlag(FLAGS_configs), ',', absl::SkipEmpty());
  const std::string records = absl::GetFlag(FLAGS_records_dir);
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  std::vector<std::vector<Row>> all;  // per round
  for (int round = 0; round < rounds; ++round) {
    std::vector<Row> rows;
    rows.reserve(configs.size());
    for (const std::string& c : configs) {
      std::fprintf(stderr, "round %d: running %s ...\n", round + 1, c.c_str());
      const int s = game->num_seats();
      if (c == "mem") {
        if (round > 0) continue;
        const std::string dir = MakeRecordsDir(records);
        const MemoryResult file = MeasureMatchMemory(*game, dir, 200);
        if (!dir.empty()) rmdir(dir.c_str());
        const MemoryResult mem = MeasureMatchMemory(*game, "", 200);
        std::printf("Heap per match, in process (peak malloc'd bytes during a "
                    "match over those before it; 200 matches, mean %.0f and max "
                    "%lld decisions):\n",
                    file.mean_decisions, static_cast<long long>(file.max_decisions));
        std::printf("  records to a file (%s): mean peak %.1f KiB, max %.1f KiB; "
                    "fit: %.1f KiB + %.0f B per decision\n",
                    records.c_str(), file.mean_peak / 1024, file.max_peak / 1024.0,
                    file.fixed / 1024, file.per_decision);
        std::printf("  records in memory:     mean peak %.1f KiB, max %.1f KiB; "
                    "fit: %.1f KiB + %.0f B per decision (the record's lines "
                    "are kept)\n\n",
                    mem.mean_peak / 1024, mem.max_peak / 1024.0, mem.fixed / 1024,
                    mem.per_decision);
        std::fflush(stdout);
        continue;
      }
      if (c == "floor1") {
        rows.push_back(RunFloor(c, 1, sample.request, FloorMode::kEcho));
      } else if (c == "floor64") {
        rows.push_back(RunFloor(c, many, sample.request, FloorMode::kEcho));
      } else if (c == "handoff1") {
        rows.push_back(RunFloor(c, 1, sample.request, FloorMode::kHandoff));
      } else if (c == "handoff64") {
        rows.push_back(RunFloor(c, many, sample.request, FloorMode::kHandoff));
      } else if (c == "relay1") {
        rows.push_back(RunFloor(c, 2, sample.request, FloorMode::kRelay));
      } else if (c == "relay64") {
        rows.push_back(RunFloor(c, 2 * many, sample.request, FloorMode::kRelay));
      } else if (c == "relay1lazy") {
        rows.push_back(RunFloor(c, 2, sample.request, FloorMode::kRelay, true));
      } else if (c == "relay64lazy") {
        rows.push_back(RunFloor(c, 2 * many, sample.request, FloorMode::kRelay, true));
      } else if (c == "ref1") {
        rows.push_back(RunReferee(c, *game, 1, s, records));
      } else if (c == "ref1x1") {
        rows.push_back(RunReferee(c, *game, 1, 1, records));
      } else if (c == "ref64") {
        rows.push_back(RunReferee(c, *game, many, many * s, records));
      } else if (c == "ref64x2") {
        rows.push_back(RunReferee(c, *game, many, s, records));
      } else if (c == "ref1disk") {
        rows.push_back(RunReferee(c, *game, 1, s, absl::GetFlag(FLAGS_disk_dir)));
      } else {
        std::fprintf(stderr, "unknown configuration %s\n", c.c_str());
        return 2;
      }
    }
    if (rounds > 1) std::printf("Round %d of %d:\n", round + 1, rounds);
    PrintTable(rows);
    std::fflush(stdout);
    all.push_back(std::move(rows));
  }
  if (rounds > 1) PrintSummary(all);
  PrintAgainstRelay(all);
  const std::vector<Row>& rows = all.back();
  bool any_mem = false;
  for (const Row& r : rows) {
    if (!r.has_memory || r.concurrency < 2) continue;
    if (!any_mem) {
      std::printf("\nMemory per live match (mean while running, target <= 64 KiB):\n");
      any_mem = true;
    }
    std::printf("  %-8s heap %.1f KiB over idle after (%.1f KiB over idle "
                "before), RSS %+.1f KiB over idle before\n",
                r.config.c_str(), r.heap_per_match / 1024,
                r.heap_per_match_vs_start / 1024, r.rss_per_match / 1024);
  }
  return 0;
}

}  // namespace
}  // namespace arena

int main(int argc, char** argv) {
  // As arena and referee do (their *_main.cc): see docs/benchmarks.md.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_role) == "bots") return arena::BotsMain();
  return arena::BenchMain();
}
