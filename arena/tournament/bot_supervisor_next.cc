// BotSupervisor (arena/tournament/bot_process.h), a bot's next process:
// started ahead while the current one plays (StartSuccessor), taking over
// (TakeOver, HandOver), the previous processes that finish their matches
// (retiring) and those kept for a later deal they have not met (parked,
// RestoreParked), and their stops.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "arena/tournament/bot_process.h"
#include "referee/clock/mono_clock.h"
#include "spdlog/spdlog.h"

namespace arena {

bool BotSupervisor::StartSuccessor(const std::string& bot, Entry& e, int64_t deal) {
  // A parked process that has not met the deal: no start at all.
  if (RestoreParked(bot, e, deal)) return true;
  if (e.next == nullptr && e.unused.empty() && !e.parked.empty()) {
    // Every spare is kept, none fit for the deal: the oldest makes way.
    bool wanted;  // a next process for the deal
    {
      absl::MutexLock lock(&pool_->mu);
      const Pool::Slot& s = pool_->slots[bot];
      wanted = !s.next_live && s.live && pool_->Unfit(s, deal);
    }
    if (wanted) DropParked(bot, e, 0);  // (in the order kept: the oldest first)
  }
  if (e.next == nullptr && !e.unused.empty()) {  // a spare not running
    e.next = std::move(e.unused.back().process);
    e.next_token = std::move(e.unused.back().token);
    e.unused.pop_back();
  }
  if (e.next == nullptr || e.next->Running()) return false;
  for (int tries = 0;; ++tries) {
    std::string victim;
    {
      absl::MutexLock lock(&pool_->mu);
      Pool::Slot& s = pool_->slots[bot];
      // Busy or idle, the current one is kept (parked once it is done)
      // for a later deal it has not met.
      if (s.next_live || !s.live || !pool_->Unfit(s, deal)) return false;
      if (pool_->live < options_.max_live) break;
    }
    // No room: a parked process's first.
    if (tries == 0 && StopAParked(bot, e)) continue;
    {
      absl::MutexLock lock(&pool_->mu);
      // Else that of an idle process needed later than this bot (its
      // place in the order, not NextUse, which an unfit process has not).
      auto at = pool_->next_use.find(bot);
      Pool::Slot* v = pool_->Victim(bot, &victim, /*ahead=*/true);
      if (tries > 0 || at == pool_->next_use.end() || v == nullptr ||
          pool_->NextUse(victim) <= at->second) {
        return false;
      }
      v->stopping = true;
    }
    EvictForLater(victim, absl::StrCat("needed later than bot ", bot, "'s next process"));
  }
  {
    absl::MutexLock lock(&pool_->mu);
    Pool::Slot& s = pool_->slots[bot];
    if (s.next_live || pool_->live >= options_.max_live) return false;
    s.next_live = true;
    s.next_started = MonoNow();
    ++pool_->live;
    pool_->counts.peak_live = std::max(pool_->counts.peak_live, pool_->live);
    ++pool_->counts.ahead_starts;
    e.next_deals.clear();
    e.next_epoch = pool_->epoch;
  }
  hub_->ExpectStandby(bot, e.next_token);
  if (absl::Status st = e.next->Start(); !st.ok()) {
    spdlog::debug("bot {}: its next process did not start: {}", bot, st.ToString());
    DropSuccessor(bot, e);
    return false;
  }
  spdlog::debug("bot {}: its next process starts while its current one plays", bot);
  return true;
}

bool BotSupervisor::TakeOver(const std::string& bot, Entry& e, int64_t deal, bool wait) {
  bool unfit;
  {
    absl::MutexLock lock(&pool_->mu);
    if (!pool_->slots[bot].next_live) return false;
    unfit = pool_->MayNotPlay(e.next_deals, e.next_epoch, deal);
  }
  if (unfit) {
    // A parked process restored for another deal, which has met this one
    // (or from before a RenewAll): not for this match.
    DropSuccessor(bot, e);
    return false;
  }
  // Its stream is the hub's standby, almost always there by now.
  if (wait) AwaitStandby(bot, e);
  if (!hub_->HasStandby(bot)) {
    if (!wait) return false;
    auto how = e.next->PollUnexpectedEnd();
    DropSuccessor(bot, e, how.has_value() ? *how : "");
    return false;
  }
  if (!hub_->PromoteStandby(bot)) {  // its stream ended just now
    DropSuccessor(bot, e);
    return false;
  }
  std::swap(e.process, e.next);
  std::swap(e.token, e.next_token);
  e.ahead = false;
  absl::MutexLock lock(&pool_->mu);
  Pool::Slot& s = pool_->slots[bot];
  s.next_live = false;  // its slot is the bot's now (counted once)
  s.live = true;
  pool_->Fresh(s);
  AdoptNextsHistory(e, s);
  ++pool_->counts.successor_takeovers;
  return true;
}

void BotSupervisor::AdoptNextsHistory(Entry& e, Pool::Slot& s) {
  s.deals = std::move(e.next_deals);
  s.epoch = e.next_epoch;
  e.next_deals.clear();
}

void BotSupervisor::DropRetired(const std::string& bot, Entry& e, size_t i,
                                const std::string& how) {
  DropPrevious(bot, e, /*parked=*/false, i, how);
}

void BotSupervisor::DropParked(const std::string& bot, Entry& e, size_t i,
                               const std::string& how) {
  DropPrevious(bot, e, /*parked=*/true, i, how);
}

void BotSupervisor::DropPrevious(const std::string& bot, Entry& e, bool parked, size_t i,
                                 const std::string& how) {
  std::vector<Entry::Held>& from = parked ? e.parked : e.retiring;
  Entry::Held held = std::move(from[i]);
  from.erase(from.begin() + static_cast<std::ptrdiff_t>(i));
  if (held.process->Running()) held.process->Stop(options_.stop_grace, /*quietly=*/true);
  e.unused.push_back({std::move(held.process), std::move(held.token)});
  {
    absl::MutexLock lock(&pool_->mu);
    Pool::Slot& s = pool_->slots[bot];
    if (parked) {
      --s.parked;
      --pool_->parked;
      ++pool_->counts.parked_stops;
    } else {
      --s.retiring;
    }
    --pool_->live;
  }
  if (how.empty()) return;
  // The bot's own process, which was playing or had played: a crash like
  // any other (the hub fails the seats it held).
  const std::string detail = e.unused.back().process->DescribeEnd(how);
  e.exits.push_back(how);
  spdlog::warn("bot {}: {}: {} (log: {})", bot,
               parked ? "a previous process of it, kept for a later deal"
                      : "its previous process, finishing its matches",
               detail, e.unused.back().process->log_path());
  if (e.restarts >= options_.max_restarts) {
    Withdraw(bot, e, detail);
    return;
  }
  ++e.restarts;
}

void BotSupervisor::DropSuccessor(const std::string& bot, Entry& e, const std::string& how) {
  if (e.next == nullptr) return;
  hub_->CancelStandby(bot);
  e.next_deals.clear();  // its next start is a fresh process
  if (!how.empty()) {
    // Not the bot's crash: it may have failed for running beside the
    // current one (the limits are per bot uid). Its next process then
    // starts on the match's path, as without a spare, and a bot that is
    // broken fails there, counted.
    spdlog::info("bot {}: its next process, started ahead, ended before its turn: {}; "
                 "it starts again when needed",
                 bot, e.next->DescribeEnd(how));
  } else if (e.next->Running()) {
    e.next->Stop(options_.stop_grace, /*quietly=*/true);
  }
  absl::MutexLock lock(&pool_->mu);
  Pool::Slot& s = pool_->slots[bot];
  if (!s.next_live) return;
  s.next_live = false;
  --pool_->live;
  ++pool_->counts.unused_stops;  // it never took the bot's matches
}

bool BotSupervisor::HandOver(const std::string& bot, Entry& e, int64_t deal) {
  {
    absl::MutexLock lock(&pool_->mu);
    const Pool::Slot& s = pool_->slots[bot];
    if (!s.live || !s.next_live || !pool_->Unfit(s, deal) || s.pins > 1 ||
        pool_->MayNotPlay(e.next_deals, e.next_epoch, deal)) {
      return false;
    }
  }
  if (!hub_->HasStandby(bot) || !hub_->PromoteStandby(bot, /*retire_live=*/true)) return false;
  Entry::Held previous{std::move(e.process), std::move(e.token)};
  e.process = std::move(e.next);
  e.token = std::move(e.next_token);
  e.next_token.clear();
  e.ahead = false;
  spdlog::debug("bot {}: its next process takes its matches from now on; its previous "
                "one finishes those it is in",
                bot);
  absl::MutexLock lock(&pool_->mu);
  Pool::Slot& s = pool_->slots[bot];
  previous.deals = std::move(s.deals);
  previous.epoch = s.epoch;
  e.retiring.push_back(std::move(previous));
  s.next_live = false;  // that slot is the retiring process's now
  ++s.retiring;
  pool_->Fresh(s);
  AdoptNextsHistory(e, s);
  ++pool_->counts.renewals;
  ++pool_->counts.successor_takeovers;
  ++pool_->counts.handovers;
  return true;
}

void BotSupervisor::StopRetired() {
  std::vector<std::string> retiring;
  {
    absl::MutexLock lock(&pool_->mu);
    for (auto& [name, s] : pool_->slots) {
      if (s.retiring > 0) retiring.push_back(name);
    }
  }
  for (const std::string& name : retiring) {
    Entry& e = *bots_.at(name);
    if (!e.mu.TryLock()) continue;
    // (No new seat is ever bound to a retiring stream: once it holds none,
    // it never will.)
    for (size_t i = e.retiring.size(); i-- > 0;) {
      if (hub_->RetiringBusy(name, e.retiring[i].token)) continue;
      bool stale;
      {
        absl::MutexLock lock(&pool_->mu);
        stale = pool_->StaleSince(e.retiring[i].epoch);
      }
      // (A field larger than the bound keeps none: there a bot meets its
      // next deal seldom, and the room goes to the processes needed next.)
      if (stale || e.withdrawn || !room_for_all_ || !e.retiring[i].process->Running()) {
        DropRetired(name, e, i);
        continue;
      }
      // Kept (parked) for a later deal it has not met: its stream stays
      // retiring in the hub, taking nothing, until RestoreParked.
      e.parked.push_back(std::move(e.retiring[i]));
      e.retiring.erase(e.retiring.begin() + static_cast<std::ptrdiff_t>(i));
      absl::MutexLock lock(&pool_->mu);
      Pool::Slot& s = pool_->slots[name];
      --s.retiring;
      ++s.parked;
      ++pool_->parked;
      ++pool_->counts.parked;
    }
    e.mu.Unlock();
  }
}

void BotSupervisor::AwaitStandby(const std::string& bot, Entry& e) {
  {
    absl::MutexLock lock(&pool_->mu);
    if (!pool_->slots[bot].next_live || e.next == nullptr) return;
  }
  const absl::Time until = MonoNow() + options_.connect_timeout;
  while (!hub_->HasStandby(bot) && e.next->Running() && MonoNow() < until) {
    absl::SleepFor(absl::Milliseconds(2));
  }
}

bool BotSupervisor::RestoreParked(const std::string& bot, Entry& e, int64_t deal) {
  if (e.parked.empty() || e.withdrawn || e.crashed) return false;
  if (e.next != nullptr && e.next->Running()) return false;
  {
    absl::MutexLock lock(&pool_->mu);
    const Pool::Slot& s = pool_->slots[bot];
    // (With none live, it takes over: TakeOver.)
    if (s.next_live || (s.live && !pool_->Unfit(s, deal))) return false;
  }
  for (size_t i = e.parked.size(); i-- > 0;) {
    Entry::Held& h = e.parked[i];
    bool fit;
    {
      absl::MutexLock lock(&pool_->mu);
      fit = !pool_->MayNotPlay(h.deals, h.epoch, deal);
    }
    if (!fit || !h.process->Running() || !hub_->RestoreStandby(bot, h.token)) continue;
    if (e.next != nullptr) {  // a spare not running: a spare still
      e.unused.push_back({std::move(e.next), std::move(e.next_token)});
    }
    e.next = std::move(h.process);
    e.next_token = std::move(h.token);
    e.next_deals = std::move(h.deals);
    e.next_epoch = h.epoch;
    e.parked.erase(e.parked.begin() + static_cast<std::ptrdiff_t>(i));
    absl::MutexLock lock(&pool_->mu);
    Pool::Slot& s = pool_->slots[bot];
    --s.parked;
    --pool_->parked;
    s.next_live = true;  // its slot (counted in live all along)
    s.next_started = MonoNow();
    ++pool_->counts.reused;
    spdlog::debug("bot {}: a process of it that has not met deal {} plays it (kept since "
                  "it finished its matches)",
                  bot, deal);
    return true;
  }
  return false;
}

bool BotSupervisor::StopAParked(const std::string& self, Entry& self_e) {
  std::string victim;
  {
    absl::MutexLock lock(&pool_->mu);
    if (pool_->parked == 0) return false;
    // Of another bot if any: the one needed last (NextUse).
    int victim_use = 0;
    for (const auto& [name, s] : pool_->slots) {
      if (s.parked == 0) continue;
      const int use = name == self ? -1 : pool_->NextUse(name);
      if (victim.empty() || use > victim_use) {
        victim = name;
        victim_use = use;
      }
    }
  }
  if (victim.empty()) return false;
  // The bot's oldest kept process (e.parked is in the order kept).
  auto stop_oldest = [&](Entry& v) ABSL_EXCLUSIVE_LOCKS_REQUIRED(v.mu) {
    if (v.parked.empty()) return false;
    spdlog::debug("stopping a kept process of bot {}: its room goes to bot {}", victim, self);
    DropParked(victim, v, 0);
    return true;
  };
  if (victim == self) return stop_oldest(self_e);
  Entry& v = *bots_.at(victim);
  // Not waited for: the caller holds another bot's lock.
  if (!v.mu.TryLock()) return false;
  const bool stopped = stop_oldest(v);
  v.mu.Unlock();
  return stopped;
}

}  // namespace arena
