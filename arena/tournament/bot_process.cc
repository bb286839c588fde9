#include "arena/tournament/bot_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <functional>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "arena/common/spawn.h"
#include "referee/clock/mono_clock.h"
#include "referee/records/bot_note.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// The last `lines` lines of a log tail, joined with " | " into one line of
// about `max_bytes` (a record's fault detail stays short and on one line),
// as plain text: the bot wrote it, so every byte that is not UTF-8 and every
// control (a terminal's escape sequences, a carriage return) is U+FFFD. A
// record must stay readable whatever a crashing bot printed.
std::string OneLineTail(const std::string& tail, size_t lines, size_t max_bytes) {
  std::vector<std::string> all = absl::StrSplit(tail, '\n', absl::SkipWhitespace());
  if (all.size() > lines) all.erase(all.begin(), all.end() - lines);
  std::string out = absl::StrJoin(all, " | ");
  if (out.size() > max_bytes) out = absl::StrCat("...", out.substr(out.size() - max_bytes));
  return PlainText(out);
}

// What the child of Start needs, and what it does: it runs on arena's
// memory until exec (SpawnForExec, arena/common/spawn.h).
struct ChildStart {
  int log_fd, devnull;
  const BotExec* exec;
};

void StartChild(void* p) {
  const ChildStart& c = *static_cast<const ChildStart*>(p);
  ::setpgid(0, 0);
  ::dup2(c.log_fd, STDOUT_FILENO);
  ::dup2(c.log_fd, STDERR_FILENO);
  if (c.devnull >= 0) ::dup2(c.devnull, STDIN_FILENO);
  ExecBotInChild(*c.exec);
  const char msg[] = "arena: cannot start the bot (limits, uid or exec failed)\n";
  (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
  ::_exit(127);
}

// Runs calls on one thread that lives as long as the process. A bot's
// process dies with the thread that forked it (PR_SET_PDEATHSIG in the
// child, bwrap's --die-with-parent), and bots are started from threads
// that end (a match's preparation, the supervisor's starter): so every
// child is made here.
class ForkThread {
 public:
  static ForkThread& Get() {
    static ForkThread* const t = new ForkThread;  // never destroyed
    return *t;
  }
  void Run(const std::function<void()>& call) {
    absl::MutexLock lock(&mu_);
    const int64_t mine = ++queued_;
    calls_.push_back(&call);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return finished_ >= mine; };
    mu_.Await(absl::Condition(&done));
  }

 private:
  ForkThread() {
    std::thread([this] {
      for (;;) {
        const std::function<void()>* call;
        {
          absl::MutexLock lock(&mu_);
          mu_.Await(absl::Condition(
              +[](std::deque<const std::function<void()>*>* q) { return !q->empty(); },
              &calls_));
          call = calls_.front();
        }
        (*call)();
        absl::MutexLock lock(&mu_);
        calls_.pop_front();
        ++finished_;
      }
    }).detach();
  }
  absl::Mutex mu_;
  std::deque<const std::function<void()>*> calls_ ABSL_GUARDED_BY(mu_);
  int64_t queued_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t finished_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace

BotProcess::BotProcess(std::string name, std::string command, BotExec exec,
                       std::string log_path)
    : name_(std::move(name)),
      command_(std::move(command)),
      log_path_(std::move(log_path)),
      exec_(std::make_unique<BotExec>(std::move(exec))) {
  exec_->Seal();
}

BotProcess::~BotProcess() { Stop(absl::Seconds(2)); }

absl::Status BotProcess::Start() {
  absl::MutexLock lock(&mu_);
  if (RunningLocked()) return absl::OkStatus();
  const int log_fd =
      ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    return absl::UnavailableError(absl::StrCat("bot ", name_, ": cannot open log ",
                                               log_path_, ": ", std::strerror(errno)));
  }
  log_start_ = ::lseek(log_fd, 0, SEEK_END);
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = -1;
  ChildStart child{log_fd, devnull, exec_.get()};
  ForkThread::Get().Run([&] { pid = SpawnForExec(&StartChild, &child); });
  if (pid < 0) {
    ::close(log_fd);
    if (devnull >= 0) ::close(devnull);
    return absl::UnavailableError(
        absl::StrCat("bot ", name_, ": fork failed: ", std::strerror(errno)));
  }
  ::setpgid(pid, pid);
  ::close(log_fd);
  if (devnull >= 0) ::close(devnull);
  pid_ = pid;
  usage_.Started();
  stopping_ = false;
  quiet_stop_ = false;
  unexpected_end_ = false;
  spdlog::log(starts_++ == 0 ? spdlog::level::info : spdlog::level::debug,
              "started bot {} (pid {}{}): {}", name_, pid,
              exec_->sandboxed ? ", sandboxed" : ", NOT sandboxed", command_);
  return absl::OkStatus();
}

bool BotProcess::RunningLocked() {
  if (pid_ <= 0) return false;
  int status = 0;
  struct rusage ru {};
  const pid_t r = ::wait4(pid_, &status, WNOHANG, &ru);
  if (r == 0) return true;
  usage_.Reaped(r == pid_ ? &ru : nullptr);
  if (r == pid_) {
    if (WIFEXITED(status)) {
      exit_status_ = absl::StrCat("exited with code ", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
      exit_status_ = absl::StrCat("killed by signal ", WTERMSIG(status), " (",
                                  ::strsignal(WTERMSIG(status)), ")");
    }
  } else {
    exit_status_ = absl::StrCat("lost (waitpid: ", std::strerror(errno), ")");
  }
  // What it left behind in its process group (a child holding its stream
  // open, say) goes with it: a bot is its whole group.
  ::kill(-pid_, SIGKILL);
  if (stopping_) {
    spdlog::log(quiet_stop_ ? spdlog::level::debug : spdlog::level::info,
                "bot {} (pid {}) stopped: {}", name_, pid_, exit_status_);
  } else {
    spdlog::warn("bot {} (pid {}) {}", name_, pid_, exit_status_);
    unexpected_end_ = true;
  }
  pid_ = -1;
  return false;
}

bool BotProcess::Running() {
  absl::MutexLock lock(&mu_);
  return RunningLocked();
}

std::optional<std::string> BotProcess::PollUnexpectedEnd() {
  absl::MutexLock lock(&mu_);
  RunningLocked();
  if (!unexpected_end_) return std::nullopt;
  unexpected_end_ = false;
  return exit_status_;
}

std::string BotProcess::DescribeEnd(const std::string& how, const std::string& when) const {
  const std::string tail = OneLineTail(LogTail(), 3, 400);
  return absl::StrCat("its process ", how, when,
                      tail.empty() ? "" : "; its last output: ", tail);
}

std::string BotProcess::exit_status() const {
  absl::MutexLock lock(&mu_);
  return exit_status_;
}

std::string BotProcess::LogTail(size_t max_bytes) const {
  int64_t start;
  {
    absl::MutexLock lock(&mu_);
    start = std::max<int64_t>(log_start_, 0);
  }
  std::ifstream in(log_path_, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  if (size <= start) return "";
  const std::streamoff from = std::max<std::streamoff>(
      start, size > static_cast<std::streamoff>(max_bytes) ? size - max_bytes : 0);
  in.seekg(from);
  std::string tail((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (from > start) {
    const size_t nl = tail.find('\n');
    if (nl != std::string::npos) tail.erase(0, nl + 1);
  }
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) {
    tail.pop_back();
  }
  return tail;
}

void BotProcess::Stop(absl::Duration grace, bool quietly) {
  absl::MutexLock lock(&mu_);
  if (pid_ <= 0) return;
  stopping_ = true;  // an end from now on was asked for (even one just before)
  quiet_stop_ = quietly;
  if (!RunningLocked()) return;
  const pid_t pid = pid_;
  usage_.Sample(pid);  // the last look at its tree before it goes
  ::kill(-pid, SIGTERM);
  const absl::Time until = MonoNow() + grace;
  // Checked after 1 ms, then ever less often up to every 20 ms: a bot
  // ends on SIGTERM within a few milliseconds, and a start ahead of need
  // often waits for such a stop to have room.
  absl::Duration poll = absl::Milliseconds(1);
  while (MonoNow() < until) {
    if (!RunningLocked()) return;
    mu_.Unlock();
    absl::SleepFor(poll);
    poll = std::min(2 * poll, absl::Milliseconds(20));
    mu_.Lock();
  }
  if (!RunningLocked()) return;
  ::kill(-pid, SIGKILL);
  int status;
  struct rusage ru {};
  usage_.Reaped(::wait4(pid, &status, 0, &ru) == pid ? &ru : nullptr);
  exit_status_ = "killed by signal 9 (Killed) after SIGTERM";
  spdlog::log(quietly ? spdlog::level::debug : spdlog::level::info,
              "bot {} (pid {}) killed after a grace of {}", name_, pid,
              absl::FormatDuration(grace));
  pid_ = -1;
}

void BotProcess::Terminate() {
  absl::MutexLock lock(&mu_);
  if (pid_ <= 0) return;
  stopping_ = true;
  if (!RunningLocked()) return;
  usage_.Sample(pid_);
  ::kill(-pid_, SIGTERM);
}

void BotProcess::SampleUsage() {
  absl::MutexLock lock(&mu_);
  if (RunningLocked()) usage_.Sample(pid_);
}

UsageTally BotProcess::usage() const {
  absl::MutexLock lock(&mu_);
  return usage_;
}

bool BotProcess::ExpectEnd() {
  absl::MutexLock lock(&mu_);
  if (pid_ <= 0) return false;
  stopping_ = true;
  quiet_stop_ = true;  // the caller tells how they ended, all in one line
  return true;
}

}  // namespace arena
