// A bot for `arena check-bot`'s tests, in one of its modes: well behaved
// (any game: it answers index 0, reconnects after a dropped stream and
// answers the open decisions of a Resync), or broken in one way on purpose.
//   checkup_bot --mode=good
//   checkup_bot --mode=no_reconnect          exits when its stream ends
//   checkup_bot --mode=crash_on_notice       aborts on a Notice
//   checkup_bot --mode=slow --slow_ms=700 --slow_seat=1
//                                            answers after slow_ms (at that
//                                            seat only; -1: every seat)
//   checkup_bot --mode=illegal               answers an index out of range
//   checkup_bot --mode=illegal_after_resync  likewise, but only the open
//                                            decisions of a Resync
//   checkup_bot --mode=exit_at_start         exits 3 before connecting
//   checkup_bot --mode=exit_after_match_end  exits at its first MatchEnd
//   checkup_bot --mode=crash_on_wish         exits 3 at a Pesten request
//                                            that offers a Jack with a wish
//                                            (and answers every other one)
//   checkup_bot --mode=crash_at_first        exits 3 at its first request
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "arena/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, mode, "good",
          "good, no_reconnect, crash_on_notice, slow, illegal, illegal_after_resync, "
          "exit_at_start, exit_after_match_end, crash_on_wish or crash_at_first");
ABSL_FLAG(int, slow_ms, 700, "slow: how long each answer takes");
ABSL_FLAG(int, slow_seat, -1, "slow: only at this seat (-1: every seat)");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode == "exit_at_start") {
    std::fprintf(stderr, "checkup_bot: cannot open weights.bin: No such file or directory\n");
    return 3;
  }
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token = std::getenv("ARENA_TOKEN");
  if (!address || !token) return 2;
  auto stub = arena::v1::Referee::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  for (int attempt = 0; attempt < 50; ++attempt) {
    grpc::ClientContext ctx;
    auto stream = stub->Play(&ctx);
    std::mutex write_mu;  // answers come from this thread and the slow one
    auto write = [&](const arena::v1::BotMessage& m) {
      std::lock_guard<std::mutex> lock(write_mu);
      stream->Write(m);
    };
    // Slow answers wait in one queue, each sent slow_ms after its request
    // came (one thread for them all, however many matches: a thread each
    // would run into the sandbox's limit on processes).
    using Clock = std::chrono::steady_clock;
    std::mutex slow_mu;
    std::condition_variable slow_cv;
    std::deque<std::pair<Clock::time_point, arena::v1::BotMessage>> slow_queue;
    bool slow_done = false;
    std::thread slow([&] {
      std::unique_lock<std::mutex> lock(slow_mu);
      for (;;) {
        slow_cv.wait(lock, [&] { return slow_done || !slow_queue.empty(); });
        if (slow_queue.empty()) return;
        const Clock::time_point due = slow_queue.front().first;
        if (Clock::now() < due) {
          slow_cv.wait_until(lock, due);
          continue;
        }
        arena::v1::BotMessage m = std::move(slow_queue.front().second);
        slow_queue.pop_front();
        lock.unlock();
        write(m);
        lock.lock();
      }
    });
    auto answer = [&](const arena::v1::DecisionRequest& r, bool resynced = false) {
      if (mode == "crash_at_first") {
        std::fprintf(stderr, "checkup_bot: decision %llu? giving up\n",
                     static_cast<unsigned long long>(r.decision_id()));
        std::_Exit(3);
      }
      if (mode == "crash_on_wish") {
        for (const auto& a : r.legal_actions()) {
          if (a.pesten().wish() == arena::v1::PESTEN_SUIT_UNSPECIFIED) continue;
          std::fprintf(stderr, "checkup_bot: a Jack with a wish in decision %llu? giving up\n",
                       static_cast<unsigned long long>(r.decision_id()));
          std::_Exit(3);
        }
      }
      arena::v1::BotMessage d;
      d.mutable_decision()->set_match_id(r.match_id());
      d.mutable_decision()->set_decision_id(r.decision_id());
      const bool illegal = mode == "illegal" || (resynced && mode == "illegal_after_resync");
      d.mutable_decision()->set_action_index(illegal ? r.legal_actions_size() : 0);
      const int seat = absl::GetFlag(FLAGS_slow_seat);
      if (mode == "slow" && (seat < 0 || r.seat() == seat)) {
        {
          std::lock_guard<std::mutex> lock(slow_mu);
          slow_queue.emplace_back(
              Clock::now() + std::chrono::milliseconds(absl::GetFlag(FLAGS_slow_ms)), d);
        }
        slow_cv.notify_one();
        return;
      }
      write(d);
    };
    arena::v1::BotMessage hello;
    hello.mutable_hello()->set_token(token);
    hello.mutable_hello()->set_protocol_version(1);
    hello.mutable_hello()->set_client("checkup-bot");
    write(hello);
    arena::v1::RefereeMessage m;
    while (stream->Read(&m)) {
      if (m.has_decision_request()) answer(m.decision_request());
      if (m.has_resync()) {
        for (const auto& r : m.resync().open_decisions()) answer(r, /*resynced=*/true);
      }
      if (m.has_notice() && mode == "crash_on_notice") {
        std::fprintf(stderr, "checkup_bot: a notice? %s\n", m.notice().message().c_str());
        std::abort();
      }
      if (m.has_match_end() && mode == "exit_after_match_end") {
        std::fprintf(stderr, "checkup_bot: match over, bye\n");
        std::_Exit(0);
      }
    }
    {
      std::lock_guard<std::mutex> lock(slow_mu);
      slow_done = true;
    }
    slow_cv.notify_one();
    slow.join();
    const grpc::Status status = stream->Finish();
    if (status.ok()) return 0;
    std::fprintf(stderr, "checkup_bot: stream ended: %s\n", status.error_message().c_str());
    if (mode == "no_reconnect") return 0;
    const grpc::StatusCode code = status.error_code();
    if (code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::ABORTED ||
        code == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 1;
}
