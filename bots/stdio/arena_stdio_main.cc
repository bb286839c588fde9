// arena_stdio PROGRAM [ARGS...]: a bot command for programs that speak JSON
// lines on stdin/stdout instead of gRPC.
//
// arena_stdio connects to the referee (ARENA_ADDRESS, ARENA_TOKEN, as any bot
// command), starts PROGRAM, and writes every message from the referee to
// PROGRAM's stdin as one line: protobuf's JSON mapping of the message, every
// field present (defaults too), proto field names, with a "kind" field first:
//
//   {"kind":"match_start","match_id":"...","seat":0,"rules":{...},...}
//   {"kind":"decision_request","match_id":"...","decision_id":"17","view":{...},
//    "legal_actions":[...],...}
//   {"kind":"match_end","match_id":"...","seat":0,"result":{...}}
//   {"kind":"notice","notice_kind":"NOTICE_KIND_ILLEGAL","message":"...",...}
//
// (A Notice's own `kind` field is renamed `notice_kind`; the form is
// referee/records/stdio_json.h, shared with `arena replay --requests`.)
// PROGRAM answers each decision_request with one line, {"action_index": N};
// requests are answered in the order they were sent, unless the answer names
// its "match_id" and "decision_id" (the JSON mapping of arena.v1.Decision);
// it may carry a "note" (docs/bots.md#notes; bytes of the line that are not
// UTF-8 become U+FFFD, and a note is cut to 16 KiB, as the C++ SDK does).
// 64-bit ids are JSON strings, as the mapping says. Anything PROGRAM writes to
// stderr goes to the bot's log.
//
// A line that is not a Decision is reported on stderr (with the line) and
// counts as that request's answer not given: the referee's deadline and
// fault policy apply.
//
// When PROGRAM exits before the referee ends the stream (a crash, a wrong
// path: `python3 wrong/path.py`), arena_stdio notices at once (waitpid, not
// the end of PROGRAM's output, which a process PROGRAM left behind may keep
// open), says so in one line on stderr (PROGRAM, its exit status or signal,
// and that the bot is stopping), cancels the stream and exits with PROGRAM's
// exit code (1 if that was 0; 128+N for signal N), so that whoever runs the
// bot sees a bot that ended, not one that stopped answering. PROGRAM closing
// its stdout while it runs on counts the same: it is stopped (SIGTERM) after
// 2 s. When the referee ends the stream, PROGRAM's stdin is closed and
// arena_stdio exits with 0 (1 if the stream ended with an error).
//
// When the stream breaks otherwise (a network blip, a referee that dropped
// it), arena_stdio reconnects as the SDK does (after 0.1 s, doubling to 2 s,
// for 30 s since it was last connected; never after a refusal:
// UNAUTHENTICATED, ABORTED, RESOURCE_EXHAUSTED) and writes to PROGRAM the
// open requests of the referee's Resync that it is not already waiting on
// PROGRAM for. PROGRAM sees nothing else of it: an answer it gives meanwhile
// is dropped, and its request comes back in the Resync.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/common/descriptors.h"
#include "arena/v1/arena.grpc.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "referee/records/bot_note.h"
#include "referee/records/stdio_json.h"

namespace {

constexpr char kUsage[] =
    "usage: arena_stdio PROGRAM [ARGS...]\n"
    "Runs PROGRAM as an arena bot speaking JSON lines on stdin/stdout; needs\n"
    "ARENA_ADDRESS and ARENA_TOKEN in the environment (arena sets them).\n"
    "See docs/bots.md.\n";

pid_t g_child = 0;

// arena stops bot processes with SIGTERM; PROGRAM goes with arena_stdio.
void OnTerm(int sig) {
  if (g_child > 0) ::kill(g_child, SIGTERM);
  ::_exit(128 + sig);
}

void Log(const std::string& s) { std::cerr << "arena_stdio: " << s << std::endl; }

std::string Describe(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exit status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status), " (", ::strsignal(WTERMSIG(status)),
                        ")");
  }
  return "ended";
}

// arena_stdio's exit code for PROGRAM's unexpected end: never 0.
int ExitCodeFor(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// Ends the process without joining the reader of PROGRAM's output, which a
// process PROGRAM left behind may keep blocked.
[[noreturn]] void ExitNow(int code) {
  std::cerr.flush();
  // Not fflush(nullptr): it would wait for the lock of PROGRAM's output,
  // which the blocked reader holds.
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cerr << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token_env = std::getenv("ARENA_TOKEN");
  if (address == nullptr || *address == '\0' || token_env == nullptr || *token_env == '\0') {
    std::cerr << "arena_stdio: ARENA_ADDRESS and ARENA_TOKEN must be set\n" << kUsage;
    return 2;
  }
  const std::string token = token_env;
  ::signal(SIGPIPE, SIG_IGN);

  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) {
    Log("cannot make pipes");
    return 1;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    Log("cannot fork");
    return 1;
  }
  if (pid == 0) {
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    arena::CloseDescriptorsFrom(3);  // PROGRAM gets its streams, not our sockets
    arena::ResetSignalsForExec();
    ::unsetenv("ARENA_TOKEN");  // PROGRAM talks to arena_stdio, not the referee
    ::execvp(argv[1], argv + 1);
    std::fprintf(stderr, "arena_stdio: cannot run %s\n", argv[1]);
    ::_exit(127);
  }
  g_child = pid;
  ::signal(SIGTERM, OnTerm);
  ::signal(SIGINT, OnTerm);
  ::close(to_child[0]);
  ::close(from_child[1]);
  FILE* child_in = ::fdopen(to_child[1], "w");
  FILE* child_out = ::fdopen(from_child[0], "r");

  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = arena::v1::Referee::NewStub(channel);
  absl::Mutex mu;
  std::deque<arena::v1::DecisionRequest> pending;  // sent to PROGRAM, unanswered
  bool child_gone = false;    // guarded by mu
  bool referee_done = false;  // guarded by mu
  bool main_done = false;     // guarded by mu: the stream is finished
  int child_status = 0;       // guarded by mu
  // The stream, replaced on a reconnect (by the main thread only, which
  // reads it without the lock). Writes to it (the answers, WritesDone) are
  // one at a time, and none once it has ended or after WritesDone.
  absl::Mutex write_mu;
  std::unique_ptr<grpc::ClientContext> ctx;  // guarded by write_mu
  std::unique_ptr<grpc::ClientReaderWriter<arena::v1::BotMessage, arena::v1::RefereeMessage>>
      stream;                  // guarded by write_mu
  bool writes_closed = true;   // guarded by write_mu

  arena::v1::BotMessage hello;
  hello.mutable_hello()->set_token(token);
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_client("arena-stdio/1");
  auto open_stream = [&] {
    absl::MutexLock wlock(&write_mu);
    ctx = std::make_unique<grpc::ClientContext>();
    stream = stub->Play(ctx.get());
    writes_closed = false;
    stream->Write(hello);
    return stream.get();
  };

  // PROGRAM's answers -> the referee.
  std::thread answers([&] {
    char* buf = nullptr;
    size_t cap = 0;
    int64_t line_no = 0;
    ssize_t n;
    while ((n = ::getline(&buf, &cap, child_out)) > 0) {
      ++line_no;
      std::string line(buf, static_cast<size_t>(n));
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
      if (line.empty()) continue;
      // Bytes that are not UTF-8 (a note in Latin-1, say) become U+FFFD, as
      // the C++ SDK makes a note UTF-8: JSON, and a protobuf string, must be.
      line = arena::ValidUtf8Prefix(line, 3 * line.size());
      arena::v1::BotMessage out;
      arena::v1::Decision* d = out.mutable_decision();
      auto st = google::protobuf::util::JsonStringToMessage(line, d);
      absl::ReleasableMutexLock lock(&mu);
      if (!st.ok()) {
        Log(absl::StrCat("line ", line_no, " of ", argv[1], " is not a decision (",
                         st.message().as_string(), "): ", line.substr(0, 200)));
        if (!pending.empty()) pending.pop_front();
        continue;
      }
      // A note (docs/bots.md#notes) of 16 KiB at most, as the C++ SDK sends.
      if (!d->note().empty()) d->set_note(arena::ValidUtf8Prefix(d->note(), 16 * 1024));
      if (d->match_id().empty()) {
        if (pending.empty()) {
          Log(absl::StrCat("line ", line_no, " of ", argv[1],
                           " answers no decision request (none is waiting): ", line));
          continue;
        }
        d->set_match_id(pending.front().match_id());
        d->set_decision_id(pending.front().decision_id());
        pending.pop_front();
      } else {
        for (auto it = pending.begin(); it != pending.end(); ++it) {
          if (it->match_id() == d->match_id() && it->decision_id() == d->decision_id()) {
            pending.erase(it);
            break;
          }
        }
      }
      lock.Release();
      absl::MutexLock wlock(&write_mu);
      // (A stream that broke: the request comes back in the Resync.)
      if (!writes_closed) stream->Write(out);
    }
    std::free(buf);
    // The end of PROGRAM's output: it exited (the waiter below says so), or
    // it closed its stdout and can answer nothing more.
    absl::MutexLock lock(&mu);
    if (!mu.AwaitWithTimeout(absl::Condition(&child_gone), absl::Seconds(2)) &&
        !referee_done) {
      Log(absl::StrCat(argv[1], " closed its output but runs on; stopping it"));
      ::kill(pid, SIGTERM);
    }
  });

  // PROGRAM's end, whenever it comes: before the referee's, the bot stops.
  std::thread waiter([&] {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    absl::MutexLock lock(&mu);
    child_gone = true;
    child_status = status;
    if (referee_done) return;
    Log(absl::StrCat(argv[1], " ended (", Describe(status),
                     ") before the referee ended the stream; the bot is stopping (arena_stdio "
                     "ends the stream and exits with ", ExitCodeFor(status), ")"));
    {
      absl::MutexLock wlock(&write_mu);
      if (ctx != nullptr) ctx->TryCancel();
    }
    // The main thread ends the stream and exits; should it be stuck (writing
    // to a pipe that a process PROGRAM left behind holds), exit from here.
    if (!mu.AwaitWithTimeout(absl::Condition(&main_done), absl::Seconds(2))) {
      ExitNow(ExitCodeFor(status));
    }
  });

  // A request -> PROGRAM, unless PROGRAM has it and owes its answer.
  auto to_program = [&](const arena::v1::DecisionRequest& r) {
    {
      absl::MutexLock lock(&mu);
      for (const auto& p : pending) {
        if (p.match_id() == r.match_id() && p.decision_id() == r.decision_id()) return;
      }
      pending.push_back(r);
    }
    arena::v1::RefereeMessage m;
    *m.mutable_decision_request() = r;
    const std::string line = arena::StdioJsonLine(m);
    std::fwrite(line.data(), 1, line.size(), child_in);
    std::fflush(child_in);
  };

  // The referee's messages -> PROGRAM, over one stream after another while
  // it breaks and comes back.
  grpc::Status status;
  bool exited_first = false;
  absl::Time last_up = absl::Now();
  absl::Duration backoff = absl::Milliseconds(100);
  for (;;) {
    auto* s = open_stream();
    arena::v1::RefereeMessage msg;
    while (s->Read(&msg)) {
      if (msg.has_welcome()) {
        Log(absl::StrCat("connected as ", msg.welcome().bot_name()));
        last_up = absl::Now();
        backoff = absl::Milliseconds(100);
        continue;
      }
      if (msg.has_resync()) {
        for (const auto& r : msg.resync().open_decisions()) to_program(r);
        continue;
      }
      const std::string line = arena::StdioJsonLine(msg);
      if (line.empty()) continue;  // not for PROGRAM
      if (msg.has_decision_request()) {
        absl::MutexLock lock(&mu);
        pending.push_back(msg.decision_request());
      }
      std::fwrite(line.data(), 1, line.size(), child_in);
      std::fflush(child_in);
    }
    {
      absl::MutexLock lock(&mu);
      exited_first = child_gone;
    }
    {
      absl::MutexLock wlock(&write_mu);
      writes_closed = true;
      if (!exited_first) s->WritesDone();
    }
    status = s->Finish();
    const grpc::StatusCode code = status.error_code();
    if (status.ok() || exited_first || code == grpc::StatusCode::UNAUTHENTICATED ||
        code == grpc::StatusCode::ABORTED || code == grpc::StatusCode::RESOURCE_EXHAUSTED ||
        absl::Now() + backoff - last_up > absl::Seconds(30)) {
      break;
    }
    Log(absl::StrCat("the stream broke (", status.error_message(), "); reconnecting in ",
                     absl::FormatDuration(backoff)));
    absl::SleepFor(backoff);
    backoff = std::min(2 * backoff, absl::Seconds(2));
    absl::MutexLock lock(&mu);
    if (child_gone) break;  // the waiter has said so; the exit below follows
  }
  {
    absl::MutexLock lock(&mu);
    referee_done = true;
    exited_first = child_gone;
  }
  if (exited_first) {
    // The waiter said why; the stream is cancelled.
    absl::MutexLock lock(&mu);
    main_done = true;
    ExitNow(ExitCodeFor(child_status));
  }
  std::fclose(child_in);  // PROGRAM sees the end of its input
  {
    absl::MutexLock lock(&mu);
    main_done = true;
    if (!mu.AwaitWithTimeout(absl::Condition(&child_gone), absl::Seconds(5))) {
      Log(absl::StrCat(argv[1], " did not exit within 5 s of the end of its input; stopping it"));
      ::kill(pid, SIGTERM);
      if (!mu.AwaitWithTimeout(absl::Condition(&child_gone), absl::Seconds(5))) {
        ::kill(pid, SIGKILL);
        mu.Await(absl::Condition(&child_gone));
      }
    }
    if (WIFEXITED(child_status) && WEXITSTATUS(child_status) != 0) {
      Log(absl::StrCat(argv[1], " ended with ", Describe(child_status)));
    }
  }
  if (!status.ok()) {
    Log(absl::StrCat("the referee ended the stream: ", status.error_message(), " (code ",
                     static_cast<int>(status.error_code()), ")"));
    ExitNow(1);
  }
  ExitNow(0);
}
