// BotSupervisor (arena/tournament/bot_process.h), entrants on demand: the
// pool of live processes (room, pins, the process to stop for room),
// starts ahead of need (Expect and the starter thread), idle and stale
// processes stopped, and the summary a minute.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "arena/tournament/bot_process.h"
#include "referee/clock/mono_clock.h"
#include "spdlog/spdlog.h"

namespace arena {

void BotSupervisor::Pool::Take(Slot& s) {
  s.live = true;
  Fresh(s);
  s.last_used = MonoNow();  // idle from its start, not from before
  ++live;
  counts.peak_live = std::max(counts.peak_live, live);
}

void BotSupervisor::Pool::PinFor(Slot& s, bool early) {
  if (early) {
    ++s.pins;
    ++s.pre_pins;
  } else if (s.pre_pins > 0) {
    --s.pre_pins;  // Pin's, taken over
  } else {
    ++s.pins;
  }
  s.pinned = true;
  s.pinned_at = s.last_used = MonoNow();
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
                                                       std::string* name, bool ahead) {
  Slot* best = nullptr;
  int best_use = 0;
  bool freeing = false;  // a process is being stopped: its slot comes free
  for (auto& [n, s] : slots) {
    freeing = freeing || (s.live && s.stopping);
    if (n == self || !s.live || s.stopping || s.matches > 0 || s.pinned) continue;
    if (ahead && !s.used) continue;
    const int use = NextUse(n);
    if (best == nullptr || use > best_use ||
        (use == best_use && s.last_used < best->last_used)) {
      best = &s;
      best_use = use;
      *name = n;
    }
  }
  if (best != nullptr || live_matches > 0 || freeing || ahead) return best;
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

bool BotSupervisor::Ready(const std::string& bot) const {
  if (bots_.count(bot) == 0) return hub_->IsConnected(bot);
  return (!on_demand_ || Live(bot)) && hub_->IsConnected(bot);
}

bool BotSupervisor::Live(const std::string& bot) const {
  absl::MutexLock lock(&pool_->mu);
  return pool_->slots[bot].live;
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
  if (!s.used) ++pool_->counts.unused_stops;
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
        return pool.live < options_.max_live || pool.parked > 0 ||
               pool.Victim(bot, &unused) != nullptr;
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
      if (pool.parked > 0) {
        // A kept process's room first (the caller holds this bot's lock).
        pool.mu.Unlock();
        const bool stopped = StopAParked(bot, *bots_.at(bot));
        pool.mu.Lock();
        if (stopped) continue;
      }
      Pool::Slot* v = pool.Victim(bot, &victim);
      if (v == nullptr) {  // only parked ones, whose bots were busy: again
        pool.mu.Unlock();
        absl::SleepFor(absl::Milliseconds(5));
        pool.mu.Lock();
        continue;
      }
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

void BotSupervisor::StopIdle() {
  std::vector<std::string> picked;
  std::vector<std::string> spares;  // next processes no longer needed soon
  std::vector<std::string> parked;  // bots with kept processes
  {
    absl::MutexLock lock(&pool_->mu);
    const absl::Time now = MonoNow();
    // A next process waits for the bot's first match of a deal its
    // current process has played: NextUse, which calls the bot unneeded
    // while its current process is unfit, would drop it for waiting, and
    // a fresh one would start for that match. It is dropped only when the
    // bot is not listed among the next matches at all (Expect lists the
    // next max_live bots), and never when every bot has room.
    for (auto& [name, s] : pool_->slots) {
      if (s.next_live && !room_for_all_ && now - s.next_started >= options_.idle_timeout &&
          pool_->next_use.count(name) == 0) {
        spares.push_back(name);
      }
      if (s.parked > 0) parked.push_back(name);
    }
    for (auto& [name, s] : pool_->slots) {
      if (s.live && !s.stopping && !s.pinned && s.matches == 0 &&
          (pool_->Stale(s) || (!room_for_all_ && now - s.last_used >= options_.idle_timeout &&
                               !pool_->NeededSoon(name, options_.max_live)))) {
        s.stopping = true;
        picked.push_back(name);
      }
    }
  }
  for (const std::string& name : spares) {
    Entry& e = *bots_.at(name);
    if (!e.mu.TryLock()) continue;
    DropSuccessor(name, e);
    e.mu.Unlock();
  }
  // Kept processes from before a RenewAll (they are kept only where every
  // bot has room, so never for being idle).
  for (const std::string& name : parked) {
    Entry& e = *bots_.at(name);
    if (!e.mu.TryLock()) continue;
    for (size_t i = e.parked.size(); i-- > 0;) {
      bool stale;
      {
        absl::MutexLock lock(&pool_->mu);
        stale = pool_->StaleSince(e.parked[i].epoch);
      }
      if (stale) DropParked(name, e, i);
    }
    e.mu.Unlock();
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

void BotSupervisor::Expect(const std::vector<std::pair<std::string, int64_t>>& upcoming) {
  if (!on_demand_) return;
  absl::MutexLock lock(&pool_->mu);
  pool_->next_use.clear();
  pool_->next_deal.clear();
  pool_->later_deals.clear();
  pool_->order.clear();
  for (const auto& [bot, deal] : upcoming) {
    if (static_cast<int>(pool_->order.size()) >= options_.max_live) break;
    if (pool_->next_use.emplace(bot, static_cast<int>(pool_->order.size())).second) {
      pool_->next_deal[bot] = deal;
      pool_->order.emplace_back(bot, deal);
    } else {
      pool_->later_deals[bot].push_back(deal);
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
    for (const auto& [bot, listed] : order) {
      int64_t deal = listed;
      {
        // Ensure may have moved the bot on to its next deal since.
        absl::MutexLock lock(&pool_->mu);
        auto next = pool_->next_deal.find(bot);
        if (next != pool_->next_deal.end()) deal = next->second;
      }
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
  if (!e.withdrawn && !e.crashed && current && StartSuccessor(bot, e, deal)) {
    e.mu.Unlock();
    return true;
  }
  bool next_live;
  {
    absl::MutexLock lock(&pool_->mu);
    next_live = pool_->slots[bot].next_live;
  }
  // (With its next process on its way, the current one is handed over and
  // kept once its match is ensured, not stopped.)
  if (!e.withdrawn && current && !next_live) StopStale(bot, e, deal, /*own_pin=*/false);
  // Its next process, already connected, takes over from one just stopped
  // (not waited for here: else its Ensure does it).
  if (!e.withdrawn && !e.crashed && !Live(bot) && TakeOver(bot, e, deal, /*wait=*/false)) {
    e.mu.Unlock();
    return true;
  }
  {
    // Its next process is on its way: no other start for the bot.
    absl::MutexLock lock(&pool_->mu);
    if (pool_->slots[bot].next_live && !e.crashed) {
      e.mu.Unlock();
      return true;
    }
  }
  for (int tries = 0; tries < 2 && !e.withdrawn && !e.crashed; ++tries) {
    // (A crashed one's next start is a restart: its Ensure makes it.)
    if (tries == 0) {
      bool full;
      {
        absl::MutexLock lock(&pool_->mu);
        full = !pool_->slots[bot].live && pool_->live >= options_.max_live && pool_->parked > 0;
      }
      // A kept process's room before any other's.
      if (full) StopAParked(bot, e);
    }
    if (!victim.empty()) {
      EvictForLater(victim, absl::StrCat("needed later than bot ", bot,
                                         ", started ahead of its match"));
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
    Pool::Slot* v = pool_->Victim(bot, &victim, /*ahead=*/true);
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

void BotSupervisor::EvictForLater(const std::string& victim, const std::string& why) {
  Entry& v = *bots_.at(victim);
  // Not waited for: whoever holds it lets it go soon (and the caller holds
  // another bot's lock).
  if (v.mu.TryLock()) {
    StopPicked(victim, v, absl::InfinitePast(), &ProcessCounts::evictions, why);
    v.mu.Unlock();
  } else {
    absl::MutexLock lock(&pool_->mu);
    pool_->slots[victim].stopping = false;
  }
}

void BotSupervisor::AwaitStale(const std::string& bot, int64_t deal) {
  absl::MutexLock lock(&pool_->mu);
  const Pool::Slot& s = pool_->slots[bot];
  // (Nor while another Ensure holds it for a match not started yet.)
  auto playable = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool_->mu) {
    return !pool_->Unfit(s, deal) || (s.matches == 0 && s.pins <= 1);
  };
  // Or its next process may take over at once (HandOver), once connected:
  // the hub tells nothing of that, so it is looked for every 2 ms.
  auto next_may = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool_->mu) {
    return s.next_live && s.pins <= 1;
  };
  auto woken = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool_->mu) {
    return playable() || next_may();
  };
  for (;;) {
    pool_->mu.Await(absl::Condition(&woken));
    if (playable() || hub_->HasStandby(bot)) return;
    AwaitWithMonoTimeout(&pool_->mu, absl::Condition(&playable), absl::Milliseconds(2));
    if (playable()) return;
  }
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

}  // namespace arena
