#include "arena/tournament/bot_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "arena/common/public_text.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// The last `lines` lines of a log tail, joined with " | " into one line of at
// most `max_bytes` (a record's fault detail stays short and on one line).
std::string OneLineTail(const std::string& tail, size_t lines, size_t max_bytes) {
  std::vector<std::string> all = absl::StrSplit(tail, '\n', absl::SkipWhitespace());
  if (all.size() > lines) all.erase(all.begin(), all.end() - lines);
  std::string out = absl::StrJoin(all, " | ");
  if (out.size() > max_bytes) out = absl::StrCat("...", out.substr(out.size() - max_bytes));
  return out;
}

// "its process <how><when>; its last output: <its log's last lines>", the
// words every fault, withdrawal and log line about an ended process uses.
std::string EndedProcess(const BotProcess& p, const std::string& how,
                         const std::string& when = "") {
  const std::string tail = OneLineTail(p.LogTail(), 3, 400);
  return absl::StrCat("its process ", how, when,
                      tail.empty() ? "" : "; its last output: ", tail);
}

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
  stopping_ = false;
  unexpected_end_ = false;
  spdlog::info("started bot {} (pid {}{}): {}", name_, pid,
               exec_->sandboxed ? ", sandboxed" : ", NOT sandboxed", command_);
  return absl::OkStatus();
}

bool BotProcess::RunningLocked() {
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
  } else {
    exit_status_ = absl::StrCat("lost (waitpid: ", std::strerror(errno), ")");
  }
  // What it left behind in its process group (a child holding its stream
  // open, say) goes with it: a bot is its whole group.
  ::kill(-pid_, SIGKILL);
  if (stopping_) {
    spdlog::info("bot {} (pid {}) stopped: {}", name_, pid_, exit_status_);
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

void BotProcess::Stop(absl::Duration grace) {
  absl::MutexLock lock(&mu_);
  if (pid_ <= 0) return;
  stopping_ = true;  // an end from now on was asked for (even one just before)
  if (!RunningLocked()) return;
  const pid_t pid = pid_;
  ::kill(-pid, SIGTERM);
  const absl::Time until = absl::Now() + grace;
  while (absl::Now() < until) {
    if (!RunningLocked()) return;
    mu_.Unlock();
    absl::SleepFor(absl::Milliseconds(20));
    mu_.Lock();
  }
  if (!RunningLocked()) return;
  ::kill(-pid, SIGKILL);
  int status;
  ::waitpid(pid, &status, 0);
  exit_status_ = "killed by signal 9 (Killed) after SIGTERM";
  spdlog::info("bot {} (pid {}) killed after a grace of {}", name_, pid,
               absl::FormatDuration(grace));
  pid_ = -1;
}

void BotProcess::ExpectEnd() {
  absl::MutexLock lock(&mu_);
  if (pid_ > 0) stopping_ = true;
}

namespace {

// Why a process that was to connect did not: how it ended and its last
// output, or that it runs without connecting.
std::string NotConnectedReason(BotProcess& p, absl::Duration timeout) {
  if (p.Running()) {
    return absl::StrCat("its process runs but did not connect within ",
                        absl::FormatDuration(timeout));
  }
  return EndedProcess(p, p.exit_status(), " before connecting");
}

}  // namespace

BotSupervisor::BotSupervisor(BotHub* hub, SupervisorOptions options)
    : hub_(hub), options_(options) {
  // The pool, not the supervisor: a match could end after it is gone.
  hub_->SetMatchObserver([pool = pool_](const std::vector<std::string>& bots,
                                        bool live) {
    absl::MutexLock lock(&pool->mu);
    const absl::Time now = absl::Now();
    for (const std::string& b : bots) {
      auto it = pool->slots.find(b);
      if (it == pool->slots.end()) continue;  // not a bot arena starts
      Pool::Slot& s = it->second;
      if (live) {
        ++s.matches;
        ++pool->live_matches;
        s.pinned = false;  // its match holds it now
      } else {
        --s.matches;
        --pool->live_matches;
      }
      s.last_used = now;
    }
  });
}

BotSupervisor::~BotSupervisor() { StopAll(); }

void BotSupervisor::Add(std::unique_ptr<BotProcess> p) {
  auto e = std::make_unique<Entry>();
  const std::string name = p->name();
  e->process = std::move(p);
  bots_[name] = std::move(e);
  absl::MutexLock lock(&pool_->mu);
  pool_->slots[name];
}

void BotSupervisor::Pool::Take(Slot& s) {
  s.live = true;
  s.last_used = absl::Now();  // idle from its start, not from before
  ++live;
  counts.peak_live = std::max(counts.peak_live, live);
}

BotSupervisor::Pool::Slot* BotSupervisor::Pool::Victim(const std::string& self,
                                                       std::string* name) {
  Slot* best = nullptr;
  bool freeing = false;  // a process is being stopped: its slot comes free
  for (auto& [n, s] : slots) {
    freeing = freeing || (s.live && s.stopping);
    if (n == self || !s.live || s.stopping || s.matches > 0 || s.pinned) continue;
    if (best == nullptr || s.last_used < best->last_used) {
      best = &s;
      *name = n;
    }
  }
  if (best != nullptr || live_matches > 0 || freeing) return best;
  // Every live process without a match is pinned, none is being stopped and
  // no match can end to free one: the oldest pin is one whose match never
  // started (the bots of the match being prepared are pinned last, and
  // fewer than a match's seats, which max_live is at least).
  for (auto& [n, s] : slots) {
    if (n == self || !s.live || s.stopping || s.matches > 0) continue;
    if (best == nullptr || s.pinned_at < best->pinned_at) {
      best = &s;
      *name = n;
    }
  }
  return best;
}

void BotSupervisor::TakeSlot(const std::string& bot) {
  absl::MutexLock lock(&pool_->mu);
  Pool::Slot& s = pool_->slots[bot];
  if (!s.live) pool_->Take(s);
}

void BotSupervisor::FreeSlot(const std::string& bot) {
  absl::MutexLock lock(&pool_->mu);
  Pool::Slot& s = pool_->slots[bot];
  if (!s.live) return;
  s.live = false;
  --pool_->live;
}

bool BotSupervisor::Live(const std::string& bot) const {
  absl::MutexLock lock(&pool_->mu);
  return pool_->slots[bot].live;
}

ProcessCounts BotSupervisor::Counts() const {
  absl::MutexLock lock(&pool_->mu);
  ProcessCounts c = pool_->counts;
  c.on_demand = on_demand_;
  c.max_live = options_.max_live;
  return c;
}

bool BotSupervisor::StopPicked(const std::string& bot, Entry& e,
                               absl::Time pinned_at,
                               int64_t ProcessCounts::*counter,
                               const std::string& why) {
  {
    absl::MutexLock lock(&pool_->mu);
    Pool::Slot& s = pool_->slots[bot];
    const absl::Time pin = s.pinned ? s.pinned_at : absl::InfinitePast();
    if (!s.live || s.matches > 0 || pin != pinned_at || e.withdrawn) {
      s.stopping = false;
      return false;
    }
  }
  spdlog::info("stopping bot {}: {}", bot, why);
  e.process->Stop(options_.stop_grace);
  absl::MutexLock lock(&pool_->mu);
  Pool::Slot& s = pool_->slots[bot];
  s.stopping = false;
  s.live = false;
  --pool_->live;
  ++(pool_->counts.*counter);
  return true;
}

void BotSupervisor::MakeRoom(const std::string& bot) {
  Pool& pool = *pool_;
  for (;;) {
    std::string victim;
    absl::Time pinned_at;
    {
      absl::MutexLock lock(&pool.mu);
      Pool::Slot& self = pool.slots[bot];
      if (self.live) return;
      auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool.mu) {
        std::string unused;
        return pool.live < options_.max_live || pool.Victim(bot, &unused) != nullptr;
      };
      if (!ready()) {
        spdlog::debug("bot {} waits for room: {} processes live, each in a match",
                      bot, pool.live);
      }
      pool.mu.Await(absl::Condition(&ready));
      if (pool.live < options_.max_live) {
        pool.Take(self);
        ++pool.counts.demand_starts;
        return;
      }
      Pool::Slot* v = pool.Victim(bot, &victim);
      v->stopping = true;
      pinned_at = v->pinned ? v->pinned_at : absl::InfinitePast();
    }
    Entry& v = *bots_.at(victim);
    // Not waited for: whoever holds it (the watcher, a restart) lets go
    // soon, and two makers of room must not wait on each other.
    if (v.mu.TryLock()) {
      StopPicked(victim, v, pinned_at, &ProcessCounts::evictions,
                 absl::StrCat("no live match; its place goes to bot ", bot));
      v.mu.Unlock();
    } else {
      {
        absl::MutexLock lock(&pool.mu);
        pool.slots[victim].stopping = false;
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
  }
}

bool BotSupervisor::StartOnDemand(const std::string& bot, Entry& e) {
  const int before = hub_->Connections(bot);
  if (absl::Status s = e.process->Start(); !s.ok()) {
    return Revive(bot, e, std::string(s.message()));
  }
  if (AwaitConnection(bot, e, before)) return true;
  return Revive(bot, e, NotConnectedReason(*e.process, options_.connect_timeout));
}

void BotSupervisor::StopIdle() {
  std::vector<std::string> picked;
  {
    absl::MutexLock lock(&pool_->mu);
    const absl::Time now = absl::Now();
    for (auto& [name, s] : pool_->slots) {
      if (s.live && !s.stopping && !s.pinned && s.matches == 0 &&
          now - s.last_used >= options_.idle_timeout) {
        s.stopping = true;
        picked.push_back(name);
      }
    }
  }
  for (const std::string& name : picked) {
    Entry& e = *bots_.at(name);
    if (e.mu.TryLock()) {
      StopPicked(name, e, absl::InfinitePast(), &ProcessCounts::idle_stops,
                 absl::StrCat("no match for ", absl::FormatDuration(options_.idle_timeout),
                              " (it starts again for its next one)"));
      e.mu.Unlock();
    } else {
      absl::MutexLock lock(&pool_->mu);
      pool_->slots[name].stopping = false;
    }
  }
}

void BotSupervisor::NoteEnd(const std::string& bot, Entry& e, const std::string& how) {
  e.exits.push_back(how);
  const std::string detail = EndedProcess(*e.process, how);
  e.crashed = true;
  e.crash = detail;
  spdlog::warn("bot {}: {} (log: {})", bot, detail, e.process->log_path());
  // The hub leaves a stream it still sees live alone (it may be a restart's);
  // the dead process's stream ends within moments of its exit (the kernel
  // closes its socket), so wait for that, boundedly, before telling it.
  const absl::Time until = absl::Now() + absl::Seconds(2);
  while (hub_->IsConnected(bot) && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  hub_->SetBotDown(bot, v1::FAULT_KIND_CRASHED, detail);
}

bool BotSupervisor::ConnectedSince(const std::string& bot, int connections_before) const {
  return hub_->Connections(bot) > connections_before && hub_->IsConnected(bot);
}

bool BotSupervisor::AwaitConnection(const std::string& bot, Entry& e,
                                    int connections_before) {
  const absl::Time until = absl::Now() + options_.connect_timeout;
  for (;;) {
    if (ConnectedSince(bot, connections_before)) return true;
    if (auto how = e.process->PollUnexpectedEnd()) {
      NoteEnd(bot, e, *how);
      return false;
    }
    if (absl::Now() >= until) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
}

void BotSupervisor::Withdraw(const std::string& bot, Entry& e, std::string why) {
  // A bot the referee cut off (for flooding it, or for not reading) is
  // usually withdrawn as one that "runs but is not connected": the cut-offs
  // are the cause, so the reason names them first.
  if (const int cuts = hub_->CutOffs(bot); cuts > 0) {
    why = absl::StrCat("cut off by the referee ", cuts, cuts == 1 ? " time" : " times",
                       " (the last for ", hub_->LastCutOffReason(bot), "); ", why);
  }
  e.withdrawn = true;
  // The reason is public (standings, entrants.json, the HTML): no path of
  // this machine; the log below keeps the full text.
  e.reason = PublicText(why);
  e.process->Stop(absl::Seconds(1));
  FreeSlot(bot);
  spdlog::error("bot {} withdrawn after {} restart(s): {}; each of its remaining "
                "matches is recorded as its forfeit (no show); its log: {}",
                bot, e.restarts, why, e.process->log_path());
  hub_->SetBotDown(bot, v1::FAULT_KIND_NO_SHOW, absl::StrCat("withdrawn: ", PublicText(why)));
}


bool BotSupervisor::Revive(const std::string& bot, Entry& e, std::string why) {
  for (;;) {
    // A process that runs without connecting is not restarted: another try
    // of the same program would cost the whole connect timeout again.
    if (e.restarts >= options_.max_restarts || e.process->Running()) {
      Withdraw(bot, e, why);
      return false;
    }
    ++e.restarts;
    absl::Duration backoff = options_.backoff_first;
    for (int i = 1; i < e.restarts && backoff < options_.backoff_max; ++i) backoff *= 2;
    backoff = std::min(backoff, options_.backoff_max);
    spdlog::warn("restarting bot {} ({} of {}) in {}: {}", bot, e.restarts,
                 options_.max_restarts, absl::FormatDuration(backoff), why);
    absl::SleepFor(backoff);
    const int before = hub_->Connections(bot);
    if (absl::Status s = e.process->Start(); !s.ok()) {
      why = std::string(s.message());
      continue;
    }
    e.crashed = false;
    if (AwaitConnection(bot, e, before)) return true;
    why = NotConnectedReason(*e.process, options_.connect_timeout);
  }
}

absl::Status BotSupervisor::StartGroup(const std::vector<std::string>& names) {
  struct Pending {
    Entry* e;
    int before;
  };
  std::map<std::string, Pending> pending;
  for (const std::string& name : names) {
    Entry& e = *bots_.at(name);
    absl::MutexLock lock(&e.mu);
    if (e.withdrawn) continue;
    const int before = hub_->Connections(name);
    TakeSlot(name);
    if (absl::Status s = e.process->Start(); !s.ok()) {
      if (options_.on_failure == v1::BOT_FAILURE_POLICY_ABORT) return s;
      Withdraw(name, e, std::string(s.message()));
      continue;
    }
    pending[name] = {&e, before};
  }
  // Every bot connects, or fails, on its own: one that exits at once (a
  // wrong command, a crash at start) is seen at once, not at the timeout.
  const absl::Time until = absl::Now() + options_.connect_timeout;
  while (!pending.empty()) {
    for (auto it = pending.begin(); it != pending.end();) {
      const std::string& name = it->first;
      Entry& e = *it->second.e;
      absl::MutexLock lock(&e.mu);
      if (ConnectedSince(name, it->second.before)) {
        it = pending.erase(it);
        continue;
      }
      const bool ended = !e.process->Running();
      if (!ended && absl::Now() < until) {
        ++it;
        continue;
      }
      const std::string why = NotConnectedReason(*e.process, options_.connect_timeout);
      if (ended) e.exits.push_back(e.process->exit_status());
      (void)e.process->PollUnexpectedEnd();  // noted here, not by the watcher
      if (options_.on_failure == v1::BOT_FAILURE_POLICY_ABORT) {
        return absl::FailedPreconditionError(absl::StrCat(
            "bot ", name, ": ", why, " (log: ", e.process->log_path(), ")"));
      }
      Revive(name, e, why);  // withdraws one that runs without connecting
      it = pending.erase(it);
    }
    if (!pending.empty()) absl::SleepFor(absl::Milliseconds(10));
  }
  return absl::OkStatus();
}

absl::Status BotSupervisor::StartAll() {
  std::vector<std::string> names;
  for (const auto& [name, e] : bots_) names.push_back(name);
  const size_t group =
      options_.max_live > 0 ? static_cast<size_t>(options_.max_live) : names.size();
  on_demand_ = names.size() > group;
  if (!on_demand_) {
    if (absl::Status s = StartGroup(names); !s.ok()) return s;
  } else {
    const bool every_bot = options_.on_failure == v1::BOT_FAILURE_POLICY_ABORT;
    spdlog::info("{} bots, at most {} bot processes at once: each bot's process "
                 "starts when its matches come up and stops after {} without "
                 "one; {}",
                 names.size(), group, absl::FormatDuration(options_.idle_timeout),
                 every_bot ? "each bot is started once first, to abort early"
                           : "the first ones are started now");
    for (size_t i = 0; i < names.size(); i += group) {
      const std::vector<std::string> part(
          names.begin() + i, names.begin() + std::min(names.size(), i + group));
      if (absl::Status s = StartGroup(part); !s.ok()) return s;
      bool connected = false;
      for (const std::string& name : part) {
        Entry& e = *bots_.at(name);
        absl::MutexLock lock(&e.mu);
        connected = connected || !e.withdrawn;
      }
      if (i + group >= names.size() || (connected && !every_bot)) break;
      // Room for the next group: these start again for their matches.
      for (const std::string& name : part) {
        Entry& e = *bots_.at(name);
        absl::MutexLock lock(&e.mu);
        if (e.withdrawn) continue;
        e.process->Stop(options_.stop_grace);
        FreeSlot(name);
      }
    }
  }
  std::vector<std::string> reasons;
  for (auto& [name, e] : bots_) {
    absl::MutexLock lock(&e->mu);
    if (!e->withdrawn) {
      reasons.clear();
      break;
    }
    reasons.push_back(absl::StrCat(name, ": ", e->reason));
  }
  if (!reasons.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no bot could be started, so nothing can be played: ",
        absl::StrJoin(reasons, "; ")));
  }
  absl::MutexLock lock(&watch_mu_);
  if (!watcher_.joinable() && !stop_watch_) {
    watcher_ = std::thread([this] { WatchLoop(); });
  }
  return absl::OkStatus();
}

void BotSupervisor::WatchLoop() {
  for (;;) {
    {
      absl::MutexLock lock(&watch_mu_);
      if (watch_mu_.AwaitWithTimeout(absl::Condition(&stop_watch_),
                                     options_.watch_every)) {
        return;
      }
    }
    for (auto& [name, e] : bots_) {
      // A bot being restarted or withdrawn is watched by whoever does it.
      if (!e->mu.TryLock()) continue;
      if (!e->withdrawn) {
        if (auto how = e->process->PollUnexpectedEnd()) NoteEnd(name, *e, *how);
      }
      e->mu.Unlock();
    }
    if (on_demand_) StopIdle();
  }
}

bool BotSupervisor::Ensure(const std::string& bot) {
  auto it = bots_.find(bot);
  if (it == bots_.end()) return hub_->IsConnected(bot);
  Entry& e = *it->second;
  if (on_demand_) {
    // Pinned before its lock: whoever picks a process to stop sees it.
    absl::MutexLock lock(&pool_->mu);
    Pool::Slot& s = pool_->slots[bot];
    s.pinned = true;
    s.pinned_at = s.last_used = absl::Now();
  }
  absl::MutexLock lock(&e.mu);
  if (e.withdrawn) return false;
  if (on_demand_ && !Live(bot)) {
    if (e.crashed) {
      // Its last process crashed and its slot was freed since: the start
      // is a restart like any other (none left: withdrawn, no room made).
      if (e.restarts >= options_.max_restarts) {
        Withdraw(bot, e, e.crash);
        return false;
      }
      MakeRoom(bot);
      return Revive(bot, e, e.crash);
    }
    MakeRoom(bot);
    return StartOnDemand(bot, e);
  }
  if (auto how = e.process->PollUnexpectedEnd()) NoteEnd(bot, e, *how);
  if (hub_->IsConnected(bot)) return true;
  if (e.process->Running()) {
    // Alive but not connected: it may be reconnecting (its stream broke).
    if (hub_->WaitForBot(bot, absl::Milliseconds(1000))) return true;
    if (auto how = e.process->PollUnexpectedEnd()) NoteEnd(bot, e, *how);
  }
  std::string why;
  if (e.process->Running()) {
    why = "its process runs but is not connected";
    // Revive withdraws a running process; this one is stopped and restarted.
    e.process->Stop(absl::Seconds(1));
  } else {
    why = EndedProcess(*e.process, e.process->exit_status());
  }
  return Revive(bot, e, why);
}

void BotSupervisor::RenewAll() {
  if (on_demand_) {
    int stopped = 0;
    for (auto& [name, e] : bots_) {
      absl::MutexLock lock(&e->mu);
      if (e->withdrawn || !Live(name)) continue;
      e->process->Stop(absl::Seconds(2));
      FreeSlot(name);
      ++stopped;
    }
    spdlog::info("bot processes stopped for fresh ones: {}; each bot's next "
                 "match starts a fresh one", stopped);
    return;
  }
  std::map<std::string, int> before;  // connections of each bot so far
  for (auto& [name, e] : bots_) {
    absl::MutexLock lock(&e->mu);
    // One whose process crashed starts again at its next Ensure, as a
    // restart (a fresh process here would be a free one).
    if (e->withdrawn || e->crashed) continue;
    e->process->Stop(absl::Seconds(2));
    before[name] = hub_->Connections(name);
    if (absl::Status s = e->process->Start(); !s.ok()) {
      spdlog::error("bot {}: {}", name, s.ToString());
    }
  }
  for (const auto& [name, count] : before) {
    Entry& e = *bots_[name];
    absl::MutexLock lock(&e.mu);
    if (AwaitConnection(name, e, count)) continue;
    Revive(name, e, NotConnectedReason(*e.process, options_.connect_timeout));
  }
}

std::vector<v1::EntrantReport> BotSupervisor::Reports() const {
  std::vector<v1::EntrantReport> out;
  for (const auto& [name, e] : bots_) {
    absl::MutexLock lock(&e->mu);
    v1::EntrantReport r;
    r.set_bot(name);
    r.set_restarts(e->restarts);
    r.set_withdrawn(e->withdrawn);
    r.set_reason(e->reason);
    r.set_log(e->process->log_path());
    for (const auto& x : e->exits) r.add_exits(x);
    out.push_back(std::move(r));
  }
  return out;
}

void BotSupervisor::StopWatching() {
  {
    absl::MutexLock lock(&watch_mu_);
    stop_watch_ = true;
  }
  if (watcher_.joinable()) watcher_.join();
}

void BotSupervisor::StopAll(absl::Duration own_exit) {
  StopWatching();
  for (auto& [name, e] : bots_) e->process->ExpectEnd();
  const absl::Time until = absl::Now() + own_exit;
  for (auto& [name, e] : bots_) {
    while (e->process->Running() && absl::Now() < until) {
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  for (auto& [name, e] : bots_) e->process->Stop(absl::Seconds(3));
}

}  // namespace arena
