// BotSupervisor (arena/tournament/bot_process.h): starts, watches, restarts
// and withdraws bot processes; on demand, Ensure's part (the pool and the
// starts ahead are in bot_supervisor_demand.cc).
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "arena/common/public_text.h"
#include "arena/tournament/bot_process.h"
#include "referee/clock/mono_clock.h"
#include "spdlog/spdlog.h"

namespace arena {

namespace {

// Why a process that was to connect did not: how it ended and its last
// output, or that it runs without connecting.
std::string NotConnectedReason(BotProcess& p, absl::Duration timeout) {
  if (p.Running()) {
    return absl::StrCat("its process runs but did not connect within ",
                        absl::FormatDuration(timeout));
  }
  return p.DescribeEnd(p.exit_status(), " before connecting");
}

}  // namespace

BotSupervisor::BotSupervisor(BotHub* hub, SupervisorOptions options)
    : hub_(hub), options_(options) {
  // The pool, not the supervisor: a match could end after it is gone.
  hub_->SetMatchObserver([pool = pool_](const std::vector<std::string>& bots,
                                        bool live) {
    absl::MutexLock lock(&pool->mu);
    const absl::Time now = MonoNow();
    for (const std::string& b : bots) {
      auto it = pool->slots.find(b);
      if (it == pool->slots.end()) continue;  // not a bot arena starts
      Pool::Slot& s = it->second;
      if (live) {
        ++s.matches;
        ++pool->live_matches;
        s.pins = std::max(0, s.pins - 1);
        s.pinned = s.pins > 0;  // its match holds it now
      } else {
        --s.matches;
        --pool->live_matches;
      }
      s.last_used = now;
    }
    if (!live) ++pool->expected;  // room may have come free: the starter looks
  });
}

BotSupervisor::~BotSupervisor() { StopAll(); }

void BotSupervisor::Add(std::unique_ptr<BotProcess> p, std::string token,
                        std::vector<std::pair<std::unique_ptr<BotProcess>, std::string>> spares) {
  auto e = std::make_unique<Entry>();
  const std::string name = p->name();
  e->process = std::move(p);
  e->token = std::move(token);
  // (StartSuccessor takes the next process from these when it needs one.)
  for (auto& [spare, spare_token] : spares) {
    spare->QuietStarts();
    e->unused.push_back({std::move(spare), std::move(spare_token)});
  }
  bots_[name] = std::move(e);
  absl::MutexLock lock(&pool_->mu);
  pool_->slots[name];
}

ProcessCounts BotSupervisor::Counts() const {
  absl::MutexLock lock(&pool_->mu);
  ProcessCounts c = pool_->counts;
  c.on_demand = on_demand_;
  c.max_live = options_.max_live;
  return c;
}

bool BotSupervisor::StartOnDemand(const std::string& bot, Entry& e) {
  e.ahead = false;
  const int before = hub_->Connections(bot);
  if (absl::Status s = e.process->Start(); !s.ok()) {
    return Revive(bot, e, std::string(s.message()));
  }
  if (AwaitConnection(bot, e, before)) return true;
  return Revive(bot, e, NotConnectedReason(*e.process, options_.connect_timeout));
}

void BotSupervisor::NoteEnd(const std::string& bot, Entry& e, const std::string& how) {
  e.exits.push_back(how);
  const std::string detail = e.process->DescribeEnd(how);
  e.crashed = true;
  e.crashed_at = MonoNow();
  e.crash = detail;
  spdlog::warn("bot {}: {} (log: {})", bot, detail, e.process->log_path());
  // The hub leaves a stream it still sees live alone (it may be a restart's);
  // the dead process's stream ends within moments of its exit (the kernel
  // closes its socket), so wait for that, boundedly, before telling it.
  const absl::Time until = MonoNow() + absl::Seconds(2);
  while (hub_->IsConnected(bot) && MonoNow() < until) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  hub_->SetBotDown(bot, v1::FAULT_KIND_CRASHED, detail);
}

bool BotSupervisor::ConnectedSince(const std::string& bot, int connections_before) const {
  return hub_->Connections(bot) > connections_before && hub_->IsConnected(bot);
}

bool BotSupervisor::AwaitConnection(const std::string& bot, Entry& e,
                                    int connections_before) {
  const absl::Time until = MonoNow() + options_.connect_timeout;
  for (;;) {
    if (ConnectedSince(bot, connections_before)) return true;
    if (auto how = e.process->PollUnexpectedEnd()) {
      NoteEnd(bot, e, *how);
      return false;
    }
    if (!e.process->Running()) {  // ended (noted already, or now)
      if (auto how = e.process->PollUnexpectedEnd()) NoteEnd(bot, e, *how);
      return false;
    }
    if (MonoNow() >= until) return false;
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
  DropSuccessor(bot, e);
  for (size_t i = e.retiring.size(); i-- > 0;) DropRetired(bot, e, i);
  for (size_t i = e.parked.size(); i-- > 0;) DropParked(bot, e, i);
  e.process->Stop(absl::Seconds(1));
  FreeSlot(bot);
  spdlog::error("bot {} withdrawn after {} restart(s): {}; each of its remaining "
                "matches is recorded as its forfeit (no show); its log: {}",
                bot, e.restarts, why, e.process->log_path());
  hub_->SetBotDown(bot, v1::FAULT_KIND_NO_SHOW, absl::StrCat("withdrawn: ", PublicText(why)));
}


bool BotSupervisor::Revive(const std::string& bot, Entry& e, std::string why) {
  // The back-off counts from the failure: a crash seen well before the
  // bot's next match has been waited out by then, off the match's path.
  absl::Time failed_at = e.crashed ? e.crashed_at : MonoNow();
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
    const absl::Duration left =
        std::max(absl::ZeroDuration(), failed_at + backoff - MonoNow());
    spdlog::warn("restarting bot {} ({} of {}) in {} ({} after it failed): {}", bot, e.restarts,
                 options_.max_restarts,
                 absl::FormatDuration(absl::Trunc(left, absl::Milliseconds(1))),
                 absl::FormatDuration(backoff), why);
    absl::SleepFor(left);
    const int before = hub_->Connections(bot);
    e.ahead = false;
    if (absl::Status s = e.process->Start(); !s.ok()) {
      why = std::string(s.message());
      failed_at = MonoNow();
      continue;
    }
    e.crashed = false;
    MarkFresh(bot);
    if (AwaitConnection(bot, e, before)) return true;
    why = NotConnectedReason(*e.process, options_.connect_timeout);
    failed_at = MonoNow();
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
  const absl::Time until = MonoNow() + options_.connect_timeout;
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
      if (!ended && MonoNow() < until) {
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
  room_for_all_ = names.size() <= group;
  on_demand_ = !room_for_all_ || options_.fresh_per_deal;
  if (room_for_all_) {
    if (on_demand_) {
      spdlog::info("{} bots: each bot's process is replaced by a fresh one before a "
                   "match of a deal it has played (duplicate deals), once its "
                   "matches are over; the next ones are started ahead",
                   names.size());
    }
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
        e.process->Stop(options_.stop_grace, /*quietly=*/true);
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
    if (on_demand_) starter_ = std::thread([this] { StartAheadLoop(); });
  }
  return absl::OkStatus();
}

void BotSupervisor::SampleUsage() {
  for (auto& [name, e] : bots_) {
    for (BotProcess* p : e->AllProcesses()) p->SampleUsage();
  }
}

void BotSupervisor::WatchLoop() {
  ProcessCounts last;  // at the last summary line (on demand)
  absl::Time next_summary = MonoNow() + absl::Minutes(1);
  absl::Time next_sample = MonoNow();
  for (;;) {
    {
      absl::MutexLock lock(&watch_mu_);
      if (AwaitWithMonoTimeout(&watch_mu_, absl::Condition(&stop_watch_),
                               options_.watch_every)) {
        return;
      }
    }
    for (auto& [name, e] : bots_) {
      // A bot being restarted or withdrawn is watched by whoever does it.
      if (!e->mu.TryLock()) continue;
      if (!e->withdrawn) {
        if (auto how = e->process->PollUnexpectedEnd()) NoteEnd(name, *e, *how);
        if (e->next != nullptr) {
          if (auto how = e->next->PollUnexpectedEnd()) DropSuccessor(name, *e, *how);
        }
        for (size_t i = e->retiring.size(); i-- > 0 && !e->withdrawn;) {
          if (auto how = e->retiring[i].process->PollUnexpectedEnd()) {
            DropRetired(name, *e, i, *how);
          }
        }
        for (size_t i = e->parked.size(); i-- > 0 && !e->withdrawn;) {
          if (auto how = e->parked[i].process->PollUnexpectedEnd()) {
            DropParked(name, *e, i, *how);
          }
        }
      }
      e->mu.Unlock();
    }
    if (on_demand_) {
      StopIdle();
      StopRetired();
    }
    if (MonoNow() >= next_sample) {
      SampleUsage();
      // A reading costs about 0.15 ms a process: with many live, less often.
      int live;
      {
        absl::MutexLock lock(&pool_->mu);
        live = pool_->live;
      }
      next_sample = MonoNow() + std::max(kUsageEvery, live * absl::Milliseconds(5));
    }
    if (on_demand_ && MonoNow() >= next_summary) {
      LogMinute(&last);
      next_summary = MonoNow() + absl::Minutes(1);
    }
  }
}

bool BotSupervisor::Ensure(const std::string& bot, int64_t deal) {
  if (!EnsureProcess(bot, deal)) return false;
  // Under the bot's lock (if arena starts it): the starter acts on a bot
  // under it, and there reads whether `deal` is still the bot's next
  // (StartAhead). Without it, the starter could read that before this, and
  // the slot's deals after, and start a next process for the match this
  // one is about to play.
  auto it = bots_.find(bot);
  absl::MutexLockMaybe lock(it == bots_.end() ? nullptr : &it->second->mu);
  NoteDeal(bot, deal);
  return true;
}

void BotSupervisor::NoteDeal(const std::string& bot, int64_t deal) {
  absl::MutexLock lock(&pool_->mu);
  if (on_demand_) pool_->slots[bot].used = true;
  if (deal >= 0) {
    pool_->slots[bot].deals.insert(deal);
    // Expect's entry for this match is used up. Left in place, it would call
    // the process just ensured for it unfit, and the starter would replace
    // it (or the pool stop it for room) for a match it is about to play or
    // has played. The bot's next deal is the one after (if Expect listed
    // one), and the starter looks at once: if that is a deal this process
    // has now played, the bot's next process starts while this one plays,
    // not when the pump lists the matches again (once a match has ended).
    auto next = pool_->next_deal.find(bot);
    if (next != pool_->next_deal.end() && next->second == deal) {
      std::deque<int64_t>& later = pool_->later_deals[bot];
      if (later.empty()) {
        pool_->next_deal.erase(next);
      } else {
        next->second = later.front();
        later.pop_front();
        ++pool_->expected;
      }
    }
  }
}

void BotSupervisor::Pin(const std::string& bot) {
  if (!on_demand_ || bots_.count(bot) == 0) return;
  absl::MutexLock lock(&pool_->mu);
  pool_->PinFor(pool_->slots[bot], /*early=*/true);
}

void BotSupervisor::MarkFresh(const std::string& bot) {
  absl::MutexLock lock(&pool_->mu);
  pool_->Fresh(pool_->slots[bot]);
}

bool BotSupervisor::EnsureProcess(const std::string& bot, int64_t deal) {
  auto it = bots_.find(bot);
  if (it == bots_.end()) return hub_->IsConnected(bot);
  Entry& e = *it->second;
  if (on_demand_) {
    {
      // Pinned before its lock: whoever picks a process to stop sees it.
      absl::MutexLock lock(&pool_->mu);
      pool_->PinFor(pool_->slots[bot], /*early=*/false);
    }
    {
      // A kept process of the bot that has not met `deal` takes it (handed
      // over below) rather than a fresh start.
      absl::MutexLock lock(&e.mu);
      if (!e.withdrawn) RestoreParked(bot, e, deal);
    }
    // Until the bot's live process, if any, may play `deal`: a process
    // that has played it is never handed a match of it, whatever changed
    // between the wait and the bot's lock.
    for (;;) {
      AwaitStale(bot, deal);
      absl::MutexLock lock(&e.mu);
      if (e.withdrawn) return false;
      // Its next process takes this match while the current one finishes
      // its own (or, idle, is kept for a later deal): once its stream has
      // come, if it is on its way.
      if (!e.crashed) AwaitStandby(bot, e);
      if (!e.crashed && HandOver(bot, e, deal)) return true;
      StopStale(bot, e, deal, /*own_pin=*/true);
      absl::MutexLock pool_lock(&pool_->mu);
      if (!pool_->Unfit(pool_->slots[bot], deal)) break;
    }
  }
  absl::MutexLock lock(&e.mu);
  if (e.withdrawn) return false;
  // Its next process, started while this one played, takes over.
  if (on_demand_ && !e.crashed && !Live(bot)) {
    RestoreParked(bot, e, deal);
    if (TakeOver(bot, e, deal)) return true;
  }
  if (e.ahead && Live(bot)) {
    // Started ahead of need: its first connection may still be coming.
    e.ahead = false;
    if (!e.crashed && AwaitConnection(bot, e, e.connections)) return true;
  }
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
    why = e.process->DescribeEnd(e.process->exit_status());
  }
  return Revive(bot, e, why);
}

void BotSupervisor::RenewAll() {
  if (on_demand_) {
    absl::MutexLock lock(&pool_->mu);
    ++pool_->epoch;
    ++pool_->expected;  // the starter looks again
    spdlog::debug("every live bot process is stale: each bot's next match starts a fresh one");
    return;
  }
  // Every process asked to end at once, then each waited for: a bot ends on
  // SIGTERM within moments, and the waits overlap.
  for (auto& [name, e] : bots_) {
    absl::MutexLock lock(&e->mu);
    if (!e->withdrawn && !e->crashed) e->process->Terminate();
  }
  std::map<std::string, int> before;  // connections of each bot so far
  for (auto& [name, e] : bots_) {
    absl::MutexLock lock(&e->mu);
    // One whose process crashed starts again at its next Ensure, as a
    // restart (a fresh process here would be a free one).
    if (e->withdrawn || e->crashed) continue;
    e->process->Stop(absl::Seconds(2), /*quietly=*/true);
    before[name] = hub_->Connections(name);
    if (absl::Status s = e->process->Start(); !s.ok()) {
      spdlog::error("bot {}: {}", name, s.ToString());
    }
    MarkFresh(name);
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
    int64_t processes = 0, peak = 0;
    double cpu = 0;
    for (const BotProcess* p : e->AllProcesses()) {  // its spares' processes too
      const UsageTally u = p->usage();
      processes += u.processes();
      cpu += u.cpu_seconds();
      peak = std::max(peak, u.peak_rss_kib());
    }
    r.set_processes(static_cast<int32_t>(processes));
    r.set_cpu_seconds(std::round(cpu * 1000) / 1000);  // to the ms
    r.set_peak_rss_kib(static_cast<int32_t>(
        std::min<int64_t>(peak, std::numeric_limits<int32_t>::max())));
    out.push_back(std::move(r));
  }
  return out;
}

void BotSupervisor::StopWatching() {
  {
    absl::MutexLock lock(&watch_mu_);
    stop_watch_ = true;
  }
  {
    absl::MutexLock lock(&pool_->mu);
    pool_->stop_starter = true;
  }
  if (watcher_.joinable()) watcher_.join();
  if (starter_.joinable()) starter_.join();
  // The last look at every live process's usage before the streams close
  // (a bot then ends by itself, unsignalled: its end is not sampled).
  SampleUsage();
}

void BotSupervisor::StopAll(absl::Duration own_exit) {
  // Their ends are expected before anything reaps them (StopWatching reads
  // their usage, which reaps one that has ended): a bot ends by itself once
  // the referee has closed its stream, and that is not a crash.
  std::vector<std::pair<std::string, BotProcess*>> current;  // running at the end
  for (auto& [name, e] : bots_) {
    for (BotProcess* p : e->AllProcesses()) {
      if (p->ExpectEnd() && p == e->process.get()) current.emplace_back(name, p);
    }
  }
  StopWatching();
  const absl::Time until = MonoNow() + own_exit;
  for (auto& [name, e] : bots_) {
    for (BotProcess* p : e->AllProcesses()) {
      while (p->Running() && MonoNow() < until) absl::SleepFor(absl::Milliseconds(10));
    }
  }
  // Each bot's current process: one line for all (a field of hundreds would
  // otherwise log a line each), naming those that did not end by themselves
  // with status 0. (Its spares, and processes that finished their matches:
  // their stops are not news.)
  std::vector<bool> stopped(current.size(), false);
  for (size_t i = 0; i < current.size(); ++i) stopped[i] = current[i].second->Running();
  for (auto& [name, e] : bots_) {
    for (BotProcess* p : e->AllProcesses()) p->Stop(absl::Seconds(3), /*quietly=*/true);
  }
  int clean = 0;
  std::vector<std::string> others;
  for (size_t i = 0; i < current.size(); ++i) {
    const auto& [name, p] = current[i];
    if (!stopped[i] && p->exit_status() == "exited with code 0") {
      ++clean;
    } else {
      others.push_back(absl::StrCat(name, " (", stopped[i] ? "stopped, " : "",
                                    p->exit_status(), ")"));
    }
  }
  if (current.empty()) return;
  spdlog::info("bot processes at the end: {} of {} ended by themselves with status 0 once "
               "their streams closed{}{}",
               clean, current.size(), others.empty() ? "" : "; not: ",
               absl::StrJoin(others, ", "));
}

}  // namespace arena
