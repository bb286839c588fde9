#include "arena/cli/stop_signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "arena/records/folder.h"
#include "arena/tournament/resume.h"
#include "arena/tournament/run_stop.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

sigset_t StopSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

const char* SignalName(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

struct Message {
  absl::Mutex mu;
  std::function<std::string(int)> fn ABSL_GUARDED_BY(mu);
};
Message& TheMessage() {
  static Message* m = new Message;  // never destroyed: a signal may come at exit
  return *m;
}

void WriteAll(const std::string& text) {
  size_t at = 0;
  while (at < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + at, text.size() - at);
    if (n <= 0) return;
    at += static_cast<size_t>(n);
  }
}

[[noreturn]] void StopAndExit(int sig) {
  const int left = StopRunNow();
  std::string text;
  {
    Message& m = TheMessage();
    absl::MutexLock lock(&m.mu);
    text = m.fn ? m.fn(sig) : absl::StrCat("arena: stopped by ", SignalName(sig), "\n");
  }
  if (left > 0) {
    text += absl::StrCat("arena: ", left, " process(es) of the run had not ended 5 s after "
                         "SIGKILL\n");
  }
  spdlog::default_logger()->flush();
  std::fflush(stdout);
  WriteAll(text);
  ::_exit(StoppedExitCode(sig));
}

}  // namespace

void BlockStopSignals() {
  const sigset_t set = StopSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void WatchStopSignals() {
  std::thread([] {
    const sigset_t set = StopSet();
    int seen = 0;
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      if (++seen == 1) {
        // On a terminal, the progress bar's line is ended first.
        WriteAll(absl::StrCat(::isatty(STDERR_FILENO) == 1 ? "\n" : "", "arena: ",
                              SignalName(sig),
                              ": stopping now (no match is waited for; the bots are ended)\n"));
        std::thread([sig] { StopAndExit(sig); }).detach();
        continue;
      }
      WriteAll(absl::StrCat("arena: ", SignalName(sig), " again: exiting at once\n"));
      KillDescendants(absl::ZeroDuration());
      Message& m = TheMessage();
      if (m.mu.TryLock()) {  // what was recorded, if the first stop is not saying it
        if (m.fn) WriteAll(m.fn(sig));
        m.mu.Unlock();
      }
      ::_exit(StoppedExitCode(sig));
    }
  }).detach();
}

void SetStopMessage(std::function<std::string(int signal)> message) {
  Message& m = TheMessage();
  absl::MutexLock lock(&m.mu);
  m.fn = std::move(message);
}

std::string StoppedRunMessage(int signal, const std::string& records_dir,
                              const std::string& next) {
  int64_t recorded = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(records_dir, ec)) {
    std::error_code type_ec;
    if (e.is_regular_file(type_ec) && IsRecordFileName(e.path().filename().string())) {
      ++recorded;
    }
  }
  std::string planned;
  if (auto m = ReadManifest(records_dir); m.ok() && m->matches_planned() >= 0) {
    planned = absl::StrCat(" of ", m->matches_planned());
  }
  std::string text = absl::StrCat(
      "arena: stopped by ", SignalName(signal), ": ", recorded, planned,
      " matches are recorded in ", records_dir,
      ", each record whole; the matches that were live are not (each keeps its "
      "unfinished record in ", records_dir, "/", kInProgressDir,
      "/) and are played again. The standings files are as of their last refresh.\n");
  if (!next.empty()) absl::StrAppend(&text, next, "\n");
  return text;
}

std::string ResumeAdvice(const std::string& records_dir, const std::string& resume_command) {
  if (!std::filesystem::exists(std::filesystem::path(records_dir) / "manifest.json")) {
    return "arena: nothing was recorded (stopped before the first match): run the same "
           "command again";
  }
  auto config = ResumeConfig(records_dir, ResumeFlags{});
  if (!config.ok()) {
    return absl::StrCat("arena: the tournament cannot be resumed: ", config.status().message());
  }
  return absl::StrCat("arena: to finish the tournament, run: ", resume_command,
                      " (it plays only the matches without a whole record)");
}

std::string ShellQuote(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789_-./=:,+@%") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace arena
