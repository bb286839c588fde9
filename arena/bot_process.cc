#include "arena/bot_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
      spdlog::warn("bot {} (pid {}) exited with code {}", name_, pid_,
                   WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
      spdlog::warn("bot {} (pid {}) killed by signal {}", name_, pid_,
                   WTERMSIG(status));
    }
  }
  pid_ = -1;
  return false;
}

void BotProcess::Stop(absl::Duration grace) {
  if (!Running()) return;
  ::kill(-pid_, SIGTERM);
  const absl::Time until = absl::Now() + grace;
  while (absl::Now() < until) {
    if (!Running()) return;
    absl::SleepFor(absl::Milliseconds(20));
  }
  ::kill(-pid_, SIGKILL);
  int status;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
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
  if (!hub_->WaitForBots(names, connect_timeout_)) {
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
  return absl::OkStatus();
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
