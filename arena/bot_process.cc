#include "arena/bot_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace arena {

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
  const int log_fd =
      ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    return absl::UnavailableError(absl::StrCat("bot ", name_, ": cannot open log ",
                                               log_path_, ": ", std::strerror(errno)));
  }
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
    if (devnull >= 0) ::close(devnull);
    return absl::UnavailableError(
        absl::StrCat("bot ", name_, ": fork failed: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ExecBotInChild(*exec_);
    const char msg[] = "arena: cannot start the bot (limits, uid or exec failed)\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(log_fd);
  if (devnull >= 0) ::close(devnull);
  pid_ = pid;
  spdlog::info("started bot {} (pid {}{}): {}", name_, pid,
               exec_->sandboxed ? ", sandboxed" : ", NOT sandboxed", command_);
  return absl::OkStatus();
}

bool BotProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  if (r == pid_) {
    if (WIFEXITED(status)) {
      exit_status_ = absl::StrCat("exited with code ", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
      exit_status_ = absl::StrCat("killed by signal ", WTERMSIG(status), " (",
                                  ::strsignal(WTERMSIG(status)), ")");
    }
    if (stopping_ || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      spdlog::info("bot {} (pid {}) {}", name_, pid_,
                   stopping_ ? "stopped: " + exit_status_ : exit_status_);
    } else {
      spdlog::warn("bot {} (pid {}) {}", name_, pid_, exit_status_);
    }
  }
  pid_ = -1;
  return false;
}

std::string BotProcess::LogTail(size_t max_bytes) const {
  std::ifstream in(log_path_, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from =
      size > static_cast<std::streamoff>(max_bytes) ? size - max_bytes : 0;
  in.seekg(from);
  std::string tail((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (from > 0) {
    const size_t nl = tail.find('\n');
    if (nl != std::string::npos) tail.erase(0, nl + 1);
  }
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) {
    tail.pop_back();
  }
  return tail;
}

void BotProcess::Stop(absl::Duration grace) {
  if (!Running()) return;
  stopping_ = true;
  ::kill(-pid_, SIGTERM);
  const absl::Time until = absl::Now() + grace;
  while (absl::Now() < until) {
    if (!Running()) {
      stopping_ = false;
      return;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  ::kill(-pid_, SIGKILL);
  int status;
  ::waitpid(pid_, &status, 0);
  spdlog::info("bot {} (pid {}) killed after a grace of {}", name_, pid_,
               absl::FormatDuration(grace));
  pid_ = -1;
  stopping_ = false;
}

void BotSupervisor::Add(std::unique_ptr<BotProcess> p) {
  auto e = std::make_unique<Entry>();
  const std::string name = p->name();
  e->process = std::move(p);
  bots_[name] = std::move(e);
}

absl::Status BotSupervisor::StartAll() {
  std::vector<std::string> names;
  for (auto& [name, e] : bots_) {
    if (absl::Status s = e->process->Start(); !s.ok()) return s;
    names.push_back(name);
  }
  // Wait for every bot to connect, but report a bot that exits at once
  // (a wrong command, a crash at start) instead of waiting out the timeout.
  const absl::Time until = absl::Now() + connect_timeout_;
  for (;;) {
    if (hub_->WaitForBots(names, absl::Milliseconds(50))) return absl::OkStatus();
    for (auto& [name, e] : bots_) {
      if (hub_->IsConnected(name) || e->process->Running()) continue;
      const std::string tail = e->process->LogTail();
      return absl::FailedPreconditionError(absl::StrCat(
          "bot ", name, " ", e->process->exit_status(),
          " before connecting (log: ", e->process->log_path(), ")",
          tail.empty() ? "" : "; its last output:\n", tail));
    }
    if (absl::Now() >= until) break;
  }
  std::string missing;
  for (auto& [name, e] : bots_) {
    if (!hub_->IsConnected(name)) {
      absl::StrAppend(&missing, missing.empty() ? "" : ", ", name,
                      e->process->Running() ? " (running, not connected)"
                                            : " (exited)",
                      ", log: ", e->process->log_path());
    }
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "bots did not connect within ", absl::FormatDuration(connect_timeout_),
      ": ", missing));
}

bool BotSupervisor::Ensure(const std::string& bot) {
  auto it = bots_.find(bot);
  if (it == bots_.end()) return hub_->IsConnected(bot);
  Entry& e = *it->second;
  absl::MutexLock lock(&e.mu);
  while (!e.dropped && !hub_->IsConnected(bot)) {
    if (e.process->Running() &&
        hub_->WaitForBot(bot, absl::Milliseconds(500))) {
      break;  // it was reconnecting
    }
    if (e.restarts >= max_restarts_) {
      spdlog::error("bot {} dropped after {} restarts; its remaining matches "
                    "are played without it (see its log {})",
                    bot, e.restarts, e.process->log_path());
      e.dropped = true;
      e.process->Stop(absl::Seconds(1));
      break;
    }
    ++e.restarts;
    spdlog::warn("restarting bot {} ({} of {})", bot, e.restarts, max_restarts_);
    e.process->Stop(absl::Seconds(1));
    if (!e.process->Start().ok()) continue;
    hub_->WaitForBot(bot, connect_timeout_);
  }
  return !e.dropped;
}

absl::Status BotSupervisor::RenewAll() {
  std::map<std::string, int> before;  // connections of each bot so far
  for (auto& [name, e] : bots_) {
    absl::MutexLock lock(&e->mu);
    if (e->dropped) continue;
    e->process->Stop(absl::Seconds(2));
    before[name] = hub_->Connections(name);
    if (absl::Status s = e->process->Start(); !s.ok()) return s;
  }
  // Connected again, on a new stream (not the old one, still closing).
  const absl::Time until = absl::Now() + connect_timeout_;
  for (const auto& [name, count] : before) {
    while (!(hub_->Connections(name) > count && hub_->IsConnected(name))) {
      if (absl::Now() > until) {
        return absl::DeadlineExceededError(absl::StrCat(
            "the fresh process of bot ", name, " did not connect within ",
            absl::FormatDuration(connect_timeout_)));
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> BotSupervisor::Dropped() const {
  std::vector<std::string> out;
  for (auto& [name, e] : bots_) {
    absl::MutexLock lock(&e->mu);
    if (e->dropped) out.push_back(name);
  }
  return out;
}

void BotSupervisor::StopAll() {
  for (auto& [name, e] : bots_) e->process->Stop(absl::Seconds(3));
}

}  // namespace arena
