// A bot that misbehaves as a program on purpose, for the end-to-end tests
// (illegal_answer_bot, by contrast, stays connected and plays, but answers
// illegally now and then): it answers like a bot should for a while, then
// crashes (exits), hangs, holds its answers back, or floods.
//   crash_hang_flood_bot --mode=crash_after --n=3
//       exits with code 3 at its 4th decision
//   crash_hang_flood_bot --mode=hang_after --n=3
//       stops answering after 3 decisions
//   crash_hang_flood_bot --mode=hold_until --n=4096
//       answers nothing until it holds 4096 open decisions at once (so that
//       many matches are live at the same time), then answers them all, and
//       every later one at once; exits 4 if the stream ends before it got
//       there
//   crash_hang_flood_bot --mode=slow_every --n=50
//       answers at once, but every 50th decision only after its deadline
//       (its deadline_ms and 200 ms more): a bot that is late now and then
//   crash_hang_flood_bot --mode=answer_after --n=100
//       answers every decision 100 ms after it came
//   crash_hang_flood_bot --mode=spin --n=20 --alloc_mb=150
//       touches 150 MiB at its start, then answers every decision after
//       spinning 20 ms of its own CPU time (a CPU-heavy bot of known cost);
//       after each answer it writes to stderr what the kernel says of it:
//       "spin-usage TOKEN cpu_ms=N hwm_kib=N" (TOKEN: this process's own,
//       its getrusage user + system time, its /proc/self/status VmHWM)
//   crash_hang_flood_bot --mode=flood --n=300
//       sends n decisions for no match at once (a flood of invalid messages)
//       on each stream; once the referee cuts it off, waits 3 s and connects
//       again, for as long as it runs
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <unistd.h>
#include <vector>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "arena/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, mode, "crash_after",
          "crash_after, hang_after, hold_until, slow_every, answer_after, spin or flood");
ABSL_FLAG(int, n, 3, "decisions answered before misbehaving");
ABSL_FLAG(bool, stderr_garbage, false,
          "crash_after: write bytes that are not UTF-8 and terminal escapes to "
          "stderr before crashing");
ABSL_FLAG(int, alloc_mb, 0, "spin: MiB to allocate and touch at the start");

namespace {

// The process's CPU time (getrusage: user + system, every thread) in ms
// and its VmHWM in KiB, as one line for its log.
std::string UsageLine(uint64_t token) {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  const long cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000L +
                      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000L;
  long hwm = 0;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) hwm = std::atol(line.c_str() + 6);
  }
  return "spin-usage " + std::to_string(token) + " cpu_ms=" + std::to_string(cpu_ms) +
         " hwm_kib=" + std::to_string(hwm) + "\n";
}

// This thread's CPU time, in ms.
double ThreadCpuMs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token = std::getenv("ARENA_TOKEN");
  if (!address || !token) return 2;
  auto stub = arena::v1::Referee::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  if (absl::GetFlag(FLAGS_mode) == "flood") {
    for (;;) {
      grpc::ClientContext ctx;
      auto stream = stub->Play(&ctx);
      arena::v1::BotMessage hello;
      hello.mutable_hello()->set_token(token);
      stream->Write(hello);
      for (int i = 0; i < absl::GetFlag(FLAGS_n); ++i) {
        arena::v1::BotMessage d;
        d.mutable_decision()->set_match_id("no-such-match");
        d.mutable_decision()->set_decision_id(i + 1);
        if (!stream->Write(d)) break;
      }
      arena::v1::RefereeMessage m;
      while (stream->Read(&m)) {
      }
      (void)stream->Finish();
      std::this_thread::sleep_for(std::chrono::seconds(3));
    }
  }
  grpc::ClientContext ctx;
  auto stream = stub->Play(&ctx);
  arena::v1::BotMessage hello;
  hello.mutable_hello()->set_token(token);
  stream->Write(hello);
  arena::v1::RefereeMessage m;
  int answered = 0;
  const std::string mode = absl::GetFlag(FLAGS_mode);
  const size_t n = static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_n)));
  auto answer = [&](const arena::v1::DecisionRequest& r) {
    arena::v1::BotMessage d;
    d.mutable_decision()->set_match_id(r.match_id());
    d.mutable_decision()->set_decision_id(r.decision_id());
    d.mutable_decision()->set_action_index(0);
    return stream->Write(d);
  };
  if (mode == "hold_until") {
    std::vector<arena::v1::DecisionRequest> held;
    bool holding = true;
    while (stream->Read(&m)) {
      if (!m.has_decision_request()) continue;
      if (!holding) {
        answer(m.decision_request());
        continue;
      }
      held.push_back(m.decision_request());
      if (held.size() < n) continue;
      std::fprintf(stderr, "crash_hang_flood_bot: holding %zu open decisions at once\n",
                   held.size());
      for (const auto& r : held) answer(r);
      held.clear();
      holding = false;
    }
    return holding ? 4 : 0;
  }
  if (mode == "spin") {
    std::vector<char> held(static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_alloc_mb))) << 20);
    for (size_t i = 0; i < held.size(); i += 4096) held[i] = 1;
    volatile uint64_t sink = 0;
    const uint64_t token = std::random_device{}();
    while (stream->Read(&m)) {
      if (!m.has_decision_request()) continue;
      const double until = ThreadCpuMs() + static_cast<double>(n);
      while (ThreadCpuMs() < until) sink = sink + 1;
      answer(m.decision_request());
      const std::string usage = UsageLine(token);
      (void)!::write(2, usage.data(), usage.size());
    }
    return held.empty() || held[0] == 1 ? 0 : 1;
  }
  if (mode == "slow_every" || mode == "answer_after") {
    int64_t seen = 0;
    while (stream->Read(&m)) {
      if (!m.has_decision_request()) continue;
      const auto& r = m.decision_request();
      int64_t wait_ms = 0;
      if (mode == "answer_after") wait_ms = static_cast<int64_t>(n);
      if (mode == "slow_every" && n > 0 && ++seen % static_cast<int64_t>(n) == 0) {
        wait_ms = r.deadline_ms() + 200;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      answer(r);
    }
    return 0;
  }
  while (stream->Read(&m)) {
    if (!m.has_decision_request()) continue;
    if (answered >= absl::GetFlag(FLAGS_n)) {
      if (mode == "crash_after") {
        if (absl::GetFlag(FLAGS_stderr_garbage)) {
          static const char kGarbage[] = "\xff\xfe\x1b[31mboom\x1b]0;title\x07 \xc3\r\x00x\n";
          (void)!::write(2, kGarbage, sizeof(kGarbage) - 1);
        }
        std::_Exit(3);
      }
      continue;  // hang: read on, answer nothing
    }
    ++answered;
    arena::v1::BotMessage d;
    d.mutable_decision()->set_match_id(m.decision_request().match_id());
    d.mutable_decision()->set_decision_id(m.decision_request().decision_id());
    d.mutable_decision()->set_action_index(0);
    stream->Write(d);
  }
  return 0;
}
