// BotSupervisor (arena/tournament/bot_process.h): starts, watches, restarts,
// withdraws and, on demand, starts ahead and stops bot processes.
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
  Fresh(s);
  s.last_used = MonoNow();  // idle from its start, not from before
  ++live;
  counts.peak_live = std::max(counts.peak_live, live);
}

bool BotSupervisor::Pool::NeededSoon(const std::string& bot, int horizon) const {
  return NextUse(bot) < horizon;
}

int BotSupervisor::Pool::NextUse(const std::string& bot) const {
  auto slot = slots.find(bot);
  auto deal = next_deal.find(bot);
  if (slot != slots.end() &&
      Unfit(slot->second, deal == next_deal.end() ? -1 : deal->second)) {
    return std::numeric_limits<int>::max();  // needs a fresh one anyway
  }
  auto it = next_use.find(bot);
  return it == next_use.end() ? std::numeric_limits<int>::max() : it->second;
}

BotSupervisor::Pool::Slot* BotSupervisor::Pool::Victim(const std::string& self,
                                                       std::string* name, bool oldest_pin) {
  Slot* best = nullptr;
  int best_use = 0;
  bool freeing = false;  // a process is being stopped: its slot comes free
  for (auto& [n, s] : slots) {
    freeing = freeing || (s.live && s.stopping);
    if (n == self || !s.live || s.stopping || s.matches > 0 || s.pinned) continue;
    const int use = NextUse(n);
    if (best == nullptr || use > best_use ||
        (use == best_use && s.last_used < best->last_used)) {
      best = &s;
      best_use = use;
      *name = n;
    }
  }
  if (best != nullptr || live_matches > 0 || freeing || !oldest_pin) return best;
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
  spdlog::debug("stopping bot {}: {}", bot, why);
  e.process->Stop(options_.stop_grace, /*quietly=*/true);
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
  e.ahead = false;
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
    const absl::Time now = MonoNow();
    for (auto& [name, s] : pool_->slots) {
      if (s.live && !s.stopping && !s.pinned && s.matches == 0 &&
          (pool_->Stale(s) || (!room_for_all_ && now - s.last_used >= options_.idle_timeout &&
                               !pool_->NeededSoon(name, options_.max_live)))) {
        s.stopping = true;
        picked.push_back(name);
      }
    }
  }
  for (const std::string& name : picked) {
    Entry& e = *bots_.at(name);
    if (e.mu.TryLock()) {
      bool stale;
      {
        absl::MutexLock lock(&pool_->mu);
        stale = pool_->Stale(pool_->slots[name]);
      }
      StopPicked(name, e, absl::InfinitePast(),
                 stale ? &ProcessCounts::renewals : &ProcessCounts::idle_stops,
                 stale ? "a new rotation of the deals (a fresh one starts for its next match)"
                       : absl::StrCat("no match for ",
                                      absl::FormatDuration(options_.idle_timeout),
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
  const std::string detail = e.process->DescribeEnd(how);
  e.crashed = true;
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
    e.ahead = false;
    if (absl::Status s = e.process->Start(); !s.ok()) {
      why = std::string(s.message());
      continue;
    }
    e.crashed = false;
    MarkFresh(bot);
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

void BotSupervisor::Expect(const std::vector<std::pair<std::string, int64_t>>& upcoming) {
  if (!on_demand_) return;
  absl::MutexLock lock(&pool_->mu);
  pool_->next_use.clear();
  pool_->next_deal.clear();
  pool_->order.clear();
  for (const auto& [bot, deal] : upcoming) {
    if (static_cast<int>(pool_->order.size()) >= options_.max_live) break;
    if (pool_->next_use.emplace(bot, static_cast<int>(pool_->order.size())).second) {
      pool_->next_deal[bot] = deal;
      pool_->order.emplace_back(bot, deal);
    }
  }
  ++pool_->expected;
}

void BotSupervisor::StartAheadLoop() {
  int64_t seen = 0;
  for (;;) {
    std::vector<std::pair<std::string, int64_t>> order;
    {
      absl::MutexLock lock(&pool_->mu);
      auto woken = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool_->mu) {
        return pool_->stop_starter || pool_->expected != seen;
      };
      pool_->mu.Await(absl::Condition(&woken));
      if (pool_->stop_starter) return;
      seen = pool_->expected;
      order = pool_->order;
    }
    for (const auto& [bot, deal] : order) {
      if (!StartAhead(bot, deal)) break;
    }
  }
}

bool BotSupervisor::StartAhead(const std::string& bot, int64_t deal) {
  auto it = bots_.find(bot);
  if (it == bots_.end()) return true;
  Entry& e = *it->second;
  // One being ensured, restarted or stopped is left to whoever does it.
  if (!e.mu.TryLock()) return true;
  bool room = true;
  bool start = false;
  std::string victim;  // needed later than `bot`: stopped for it
  // (Not if it is in a match or held for one, nor once the entry is used
  // up: `order` is a copy, and the match it named may be over by now.)
  bool current;
  {
    absl::MutexLock lock(&pool_->mu);
    auto next = pool_->next_deal.find(bot);
    current = next != pool_->next_deal.end() && next->second == deal;
  }
  if (!e.withdrawn && current) StopStale(bot, e, deal, /*own_pin=*/false);
  for (int tries = 0; tries < 2 && !e.withdrawn && !e.crashed; ++tries) {
    // (A crashed one's next start is a restart: its Ensure makes it.)
    if (!victim.empty()) {
      Entry& v = *bots_.at(victim);
      if (v.mu.TryLock()) {
        StopPicked(victim, v, absl::InfinitePast(), &ProcessCounts::evictions,
                   absl::StrCat("needed later than bot ", bot, ", started ahead of its match"));
        v.mu.Unlock();
      } else {
        absl::MutexLock lock(&pool_->mu);
        pool_->slots[victim].stopping = false;
      }
      victim.clear();
    }
    absl::MutexLock lock(&pool_->mu);
    Pool::Slot& s = pool_->slots[bot];
    room = s.live || pool_->live < options_.max_live;
    if (!s.live && room) {
      pool_->Take(s);
      ++pool_->counts.ahead_starts;
      start = true;
    }
    if (s.live || tries > 0) break;
    Pool::Slot* v = pool_->Victim(bot, &victim, /*oldest_pin=*/false);
    if (v == nullptr || pool_->NextUse(victim) <= pool_->NextUse(bot)) break;
    v->stopping = true;
  }
  if (start) {
    e.connections = hub_->Connections(bot);
    if (e.process->Start().ok()) {
      e.ahead = true;
    } else {
      FreeSlot(bot);  // its Ensure starts it, and counts a failure
    }
  }
  e.mu.Unlock();
  return room;
}

void BotSupervisor::LogMinute(ProcessCounts* last) {
  ProcessCounts c;
  int live;
  {
    absl::MutexLock lock(&pool_->mu);
    c = pool_->counts;
    live = pool_->live;
  }
  const int64_t started = c.ahead_starts + c.demand_starts - last->ahead_starts -
                          last->demand_starts;
  const int64_t idle = c.idle_stops - last->idle_stops;
  const int64_t room = c.evictions - last->evictions;
  const int64_t renewed = c.renewals - last->renewals;
  if (started + idle + room + renewed > 0) {
    spdlog::info("bot processes in the last minute: {} started ({} ahead of their "
                 "matches), {} stopped ({} idle, {} for room, {} before a deal they had played); "
                 "{} live now",
                 started, c.ahead_starts - last->ahead_starts, idle + room + renewed, idle,
                 room, renewed, live);
  }
  *last = c;
}

void BotSupervisor::SampleUsage() {
  for (auto& [name, e] : bots_) e->process->SampleUsage();
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
      }
      e->mu.Unlock();
    }
    if (on_demand_) StopIdle();
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
  if (deal >= 0) {
    absl::MutexLock lock(&pool_->mu);
    pool_->slots[bot].deals.insert(deal);
    // Expect's entry for this match is used up: until the next Expect, the
    // bot's next deal is not known. Left in place, it would call the process
    // just ensured for it unfit, and the starter would replace it (or the
    // pool stop it for room) for a match it is about to play or has played.
    auto next = pool_->next_deal.find(bot);
    if (next != pool_->next_deal.end() && next->second == deal) pool_->next_deal.erase(next);
  }
  return true;
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
      Pool::Slot& s = pool_->slots[bot];
      s.pinned = true;
      ++s.pins;
      s.pinned_at = s.last_used = MonoNow();
    }
    AwaitStale(bot, deal);
  }
  absl::MutexLock lock(&e.mu);
  if (e.withdrawn) return false;
  if (on_demand_) StopStale(bot, e, deal, /*own_pin=*/true);
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

void BotSupervisor::AwaitStale(const std::string& bot, int64_t deal) {
  absl::MutexLock lock(&pool_->mu);
  const Pool::Slot& s = pool_->slots[bot];
  // (Nor while another Ensure holds it for a match not started yet.)
  auto playable = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool_->mu) {
    return !pool_->Unfit(s, deal) || (s.matches == 0 && s.pins <= 1);
  };
  pool_->mu.Await(absl::Condition(&playable));
}

void BotSupervisor::StopStale(const std::string& bot, Entry& e, int64_t deal,
                              bool own_pin) {
  {
    absl::MutexLock lock(&pool_->mu);
    const Pool::Slot& s = pool_->slots[bot];
    // Pinned by another Ensure (or, from the starter, by any): kept.
    if (!pool_->Unfit(s, deal) || s.matches > 0 || s.pins > (own_pin ? 1 : 0)) return;
  }
  spdlog::debug("stopping bot {}: its next match is of a deal it played (or a new "
                "rotation began); a fresh one starts", bot);
  e.ahead = false;
  e.process->Stop(options_.stop_grace, /*quietly=*/true);
  absl::MutexLock lock(&pool_->mu);
  Pool::Slot& s = pool_->slots[bot];
  if (!s.live) return;
  s.live = false;
  --pool_->live;
  ++pool_->counts.renewals;
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
    const UsageTally u = e->process->usage();
    r.set_processes(u.processes());
    r.set_cpu_seconds(std::round(u.cpu_seconds() * 1000) / 1000);  // to the ms
    r.set_peak_rss_kib(static_cast<int32_t>(
        std::min<int64_t>(u.peak_rss_kib(), std::numeric_limits<int32_t>::max())));
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
  StopWatching();
  for (auto& [name, e] : bots_) e->process->ExpectEnd();
  const absl::Time until = MonoNow() + own_exit;
  for (auto& [name, e] : bots_) {
    while (e->process->Running() && MonoNow() < until) {
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  for (auto& [name, e] : bots_) e->process->Stop(absl::Seconds(3));
}

}  // namespace arena
