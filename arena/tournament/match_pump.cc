#include "arena/tournament/match_pump.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/time/clock.h"
#include "arena/tournament/plan.h"
#include "referee/clock/mono_clock.h"
#include "spdlog/spdlog.h"

namespace arena {

MatchPump::MatchPump(const v1::TournamentConfig& config, const TournamentSecret& secret,
                     const Game& game, BotHub& hub, const TournamentHooks& hooks,
                     Booker& booker)
    : config_(config),
      secret_(secret),
      game_(game),
      hub_(hub),
      hooks_(hooks),
      booker_(booker),
      options_(config.options().begin(), config.options().end()),
      duplicate_(config.deal_mode() != v1::DEAL_MODE_INDEPENDENT),
      jobs_(std::max(1, config.jobs())),
      max_opening_(std::max(2, jobs_ / 8)),
      load_(config),
      opening_window_(std::min(2 * absl::Milliseconds(load_.sample().decision_ms),
                               absl::Milliseconds(100))),
      holds_(hub, &load_.sample()),
      seats_(std::max(1, config.seats())),
      max_live_bots_(hooks.max_live_bots),
      fresh_deals_(duplicate_ && hooks.ensure_fresh_bot && hooks.max_live_bots > 0) {}

MatchPump::~MatchPump() {
  Reap(/*all=*/true);
  // A live match still calls back into the pump: its outcome is dropped
  // (none is live after Play).
  absl::MutexLock lock(&live_mu_);
  live_mu_.Await(absl::Condition(
      +[](int* live) { return *live == 0; }, &live_));
}

int MatchPump::Live() {
  absl::MutexLock lock(&live_mu_);
  return live_;
}

bool MatchPump::StorageStopped() {
  if (!storage_.Check([this] { return Live(); })) return false;
  Stop();
  return true;
}

std::vector<size_t> MatchPump::Phases(const Schedule& schedule,
                                      const std::vector<std::string>& entrants,
                                      std::vector<int>* todo) const {
  if (!duplicate_ || (!hooks_.new_bot_processes && !fresh_deals_)) return {todo->size()};
  std::map<int, int> seen;  // deal -> matches of it so far
  std::vector<int> rotation(schedule.matches.size(), 0);
  for (size_t i = 0; i < schedule.matches.size(); ++i) {
    rotation[i] = seen[schedule.matches[i].deal]++;
  }
  std::stable_sort(todo->begin(), todo->end(),
                   [&](int a, int b) { return rotation[a] < rotation[b]; });
  // Fresh processes per deal: one phase, in that order (each deal's
  // rotations far apart), and within a rotation the matches whose bots are
  // ready first: at a batch's start the planner has just named its
  // tables, and a match of bots still to start would wait for them.
  if (fresh_deals_) {
    if (hooks_.bot_ready) {
      std::map<std::string, bool> ready;
      auto all_ready = [&](int m) {
        for (int b : schedule.matches[m].seating) {
          auto [it, added] = ready.emplace(entrants[b], false);
          if (added) it->second = hooks_.bot_ready(entrants[b]);
          if (!it->second) return false;
        }
        return true;
      };
      std::vector<bool> first(schedule.matches.size(), false);
      for (int m : *todo) first[m] = all_ready(m);
      std::stable_sort(todo->begin(), todo->end(), [&](int a, int b) {
        return std::make_pair(rotation[a], !first[a]) < std::make_pair(rotation[b], !first[b]);
      });
    }
    return {todo->size()};
  }
  std::vector<size_t> ends;
  for (size_t t = 1; t <= todo->size(); ++t) {
    if (t == todo->size() || rotation[(*todo)[t]] != rotation[(*todo)[t - 1]]) {
      ends.push_back(t);
    }
  }
  return ends;
}

void MatchPump::Play(const Schedule& schedule, const std::vector<std::string>& entrants,
                     std::vector<int> todo) {
  const std::vector<size_t> phase_ends = Phases(schedule, entrants, &todo);
  size_t t = 0;
  for (size_t p = 0; p < phase_ends.size() && !stopped(); ++p) {
    if (p > 0) {
      WaitBelow(1);  // the rotation's matches are all over
      spdlog::debug("rotation {} of {}: every bot process is replaced by a fresh one",
                    p + 1, phase_ends.size());
      if (absl::Status s = hooks_.new_bot_processes(); !s.ok()) {
        spdlog::error("cannot start fresh bot processes: {}", s.ToString());
        // Played on: each bot that is not connected faults (policy decides).
      }
    }
    for (; t < phase_ends[p]; ++t) {
      if (!StartNext(schedule, entrants, todo, t, phase_ends[p])) break;
    }
  }
  WaitBelow(1);
  Reap(/*all=*/true);
}

std::vector<std::pair<std::string, int64_t>> MatchPump::Upcoming(
    const Schedule& schedule, const std::vector<std::string>& entrants,
    const std::vector<int>& todo, size_t t, size_t end) const {
  std::vector<std::pair<std::string, int64_t>> out;
  std::set<int> distinct;
  for (; t < end && static_cast<int>(distinct.size()) < max_live_bots_; ++t) {
    const ScheduledMatch& sm = schedule.matches[todo[t]];
    for (int b : sm.seating) {
      out.emplace_back(entrants[b], fresh_deals_ ? sm.deal : -1);
      distinct.insert(b);
    }
  }
  return out;
}

bool MatchPump::StartNext(const Schedule& schedule, const std::vector<std::string>& entrants,
                          const std::vector<int>& todo, size_t t, size_t end) {
  Reap(/*all=*/false);
  WaitBelow(jobs_, /*to_start=*/true);
  if (stopped() || StorageStopped()) return false;
  const int index = todo[t];
  const ScheduledMatch& sm = schedule.matches[index];
  const std::string& tournament_id = secret_.TournamentId();
  MatchSpec spec;
  spec.match_id = MatchId(config_.game(), tournament_id, index);
  spec.deal_group = DealGroupId(config_.game(), tournament_id, duplicate_, sm, spec.match_id);
  spec.game_name = config_.game();
  spec.options = options_;
  for (int b : sm.seating) spec.seat_bots.push_back(entrants[b]);
  holds_.Hold(spec.seat_bots, stopped_);
  if (stopped()) return false;
  FillMatchSpec(config_, secret_, static_cast<uint64_t>(sm.deal), &spec);
  if (hooks_.expect_bots && max_live_bots_ > 0) {
    hooks_.expect_bots(Upcoming(schedule, entrants, todo, t, end));
  }
  {
    // Under a bound on live processes, side by side only while the seats
    // of every match being prepared or played fit in it (else two matches
    // could each hold part of the room the other needs); one at a time is
    // always possible (the supervisor makes room for it).
    // Nor while a match of the same deal or with one of the same bots is
    // being prepared: that match must hold its bots' processes (be live)
    // before this one's Ensure may replace them once it is over (fresh
    // processes per deal), and two preparations that each hold a bot the
    // other waits for would wait for ever.
    absl::MutexLock lock(&live_mu_);
    auto fits = [&, deal = sm.deal]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(live_mu_) {
      if (preparing_ > 0 && max_live_bots_ > 0 &&
          (live_ + 1) * seats_ > max_live_bots_) {
        return false;
      }
      if (!fresh_deals_) return true;
      if (preparing_deals_.count(deal) > 0) return false;
      for (const std::string& b : spec.seat_bots) {
        if (preparing_bots_.count(b) > 0) return false;
      }
      return true;
    };
    live_mu_.Await(absl::Condition(&fits));
    ++live_;
    ++preparing_;
    preparing_deals_.insert(sm.deal);
    preparing_bots_.insert(spec.seat_bots.begin(), spec.seat_bots.end());
  }
  if (hooks_.pin_bot) {
    const std::set<std::string> bots(spec.seat_bots.begin(), spec.seat_bots.end());
    for (const std::string& b : bots) hooks_.pin_bot(b);
  }
  Prep& prep = preps_.emplace_back();
  prep.thread = std::thread([this, &prep, spec = std::move(spec), deal = sm.deal]() mutable {
    Prepare(std::move(spec), deal);
    prep.done.store(true);
  });
  return true;
}

void MatchPump::Prepared(const MatchSpec& spec, int64_t deal) {
  preparing_deals_.erase(preparing_deals_.find(deal));
  for (const std::string& b : spec.seat_bots) {
    preparing_bots_.erase(preparing_bots_.find(b));
  }
}

void MatchPump::Reap(bool all) {
  for (auto it = preps_.begin(); it != preps_.end();) {
    if (all || it->done.load()) {
      it->thread.join();
      it = preps_.erase(it);
    } else {
      ++it;
    }
  }
}

void MatchPump::WaitingForBots(int delta) {
  const absl::Time now = MonoNow();
  if (delta > 0 && waiting_++ == 0) waiting_since_ = now;
  if (delta < 0 && --waiting_ == 0) waited_ += now - waiting_since_;
}

void MatchPump::Prepare(MatchSpec spec, int64_t deal) {
  const absl::Time begin = MonoNow();
  if (hooks_.ensure_bot) {
    {
      absl::MutexLock lock(&live_mu_);
      if (first_start_ == absl::InfinitePast()) first_start_ = begin;
      WaitingForBots(+1);
    }
    std::set<std::string> needed(spec.seat_bots.begin(), spec.seat_bots.end());
    std::vector<std::thread> others;
    auto ensure = [this, deal, &spec](const std::string& bot) {
      const absl::Time t0 = MonoNow();
      const bool ok = fresh_deals_ ? hooks_.ensure_fresh_bot(bot, deal) : hooks_.ensure_bot(bot);
      if (const absl::Duration took = MonoNow() - t0; took >= absl::Milliseconds(10)) {
        spdlog::debug("match {} waited {} for bot {}", spec.match_id,
                      absl::FormatDuration(absl::Trunc(took, absl::Milliseconds(1))), bot);
      }
      return ok;
    };
    for (auto it = std::next(needed.begin()); it != needed.end(); ++it) {
      others.emplace_back([&ensure, &bot = *it] { ensure(bot); });
    }
    ensure(*needed.begin());
    for (std::thread& t : others) t.join();
    absl::MutexLock lock(&live_mu_);
    WaitingForBots(-1);
    longest_wait_ = std::max(longest_wait_, MonoNow() - begin);
  }
  auto writer = OpenRecord(config_, hooks_, spec.match_id);
  if (!writer.ok()) {
    spdlog::error("match {}: {}", spec.match_id, writer.status().ToString());
    absl::MutexLock lock(&live_mu_);
    --preparing_;
    Prepared(spec, deal);
    --live_;
    ++skipped_;  // booked as skipped by the pump's thread
    return;
  }
  Launch(std::move(spec), deal, *std::move(writer));
}

void MatchPump::Launch(MatchSpec spec, int64_t deal, std::unique_ptr<RecordWriter> writer) {
  // The link first: from then on the hub counts the match as live for its
  // bots (its processes are no longer merely pinned), and only then may
  // another match be prepared in its place (preparing_), whose bots could
  // otherwise take the room of this one's.
  std::shared_ptr<SeatLink> link = hub_.NewMatchLink(spec.match_id, spec.seat_bots);
  int64_t seq;
  {
    absl::MutexLock lock(&live_mu_);
    seq = started_++;
    --preparing_;
    Prepared(spec, deal);
    peak_playing_ = std::max(peak_playing_, ++playing_);
    opening_.emplace(seq, MonoNow());
  }
  spec.on_first_answer = [this, seq] {
    absl::MutexLock lock(&live_mu_);
    opening_.erase(seq);
  };
  MatchSpec booked = spec;
  auto match = Match::Create(game_, std::move(spec), std::move(link),
                             std::shared_ptr<RecordWriter>(std::move(writer)),
                             [this, booked = std::move(booked)](MatchOutcome outcome) {
                               absl::MutexLock lock(&live_mu_);
                               --live_;
                               --playing_;
                               finished_.push_back({booked, std::move(outcome)});
                             });
  match->Start();
}

void MatchPump::WaitBelow(int limit, bool to_start) {
  std::deque<Finished> batch;
  int skipped = 0;
  bool waited_opening = false;
  for (;;) {
    {
      absl::MutexLock lock(&live_mu_);
      auto room = [&] {
        return live_ < limit &&
               (!to_start || static_cast<int>(opening_.size()) < max_opening_);
      };
      auto ready = [&] { return room() || !finished_.empty() || skipped_ > 0; };
      for (;;) {
        const absl::Time now = MonoNow();
        while (!opening_.empty() && opening_.begin()->second + opening_window_ <= now) {
          opening_.erase(opening_.begin());  // no longer counted
        }
        if (ready()) break;
        if (to_start && live_ < limit) waited_opening = true;
        // Until the oldest opening match leaves the window, if that is
        // what is waited for.
        const absl::Duration wait = to_start && !opening_.empty()
                                        ? opening_.begin()->second + opening_window_ - now
                                        : absl::InfiniteDuration();
        AwaitWithMonoTimeout(&live_mu_, absl::Condition(&ready), wait);
      }
      batch.swap(finished_);
      std::swap(skipped, skipped_);
      if (batch.empty() && skipped == 0) break;  // room
    }
    for (; skipped > 0; --skipped) booker_.Skip();
    Book(&batch);
  }
  if (waited_opening) ++load_.sample().opening_waits;
}

void MatchPump::Book(std::deque<Finished>* batch) {
  for (Finished& f : *batch) {
    load_.Add(f.spec, f.outcome);
    if (!booker_.Book(f.spec, f.outcome)) Stop();  // no further match is started
  }
  batch->clear();
}

void MatchPump::Report() {
  WaitBelow(1);
  Reap(/*all=*/true);
  {
    absl::MutexLock lock(&live_mu_);
    spdlog::info("{} matches played, at most {} of them at once ({} decisions asked)",
                 started_, peak_playing_, load_.sample().requests);
    if (hooks_.ensure_bot && started_ > 0) {
      const absl::Duration wall = MonoNow() - first_start_;
      spdlog::info(
          "matches waiting for their bots (processes starting, or room for them): {} "
          "of the {} since the first one was prepared ({:.1f}%); the longest wait {}",
          absl::FormatDuration(absl::Trunc(waited_, absl::Milliseconds(1))),
          absl::FormatDuration(absl::Trunc(wall, absl::Milliseconds(1))),
          100.0 * absl::FDivDuration(waited_, std::max(wall, absl::Milliseconds(1))),
          absl::FormatDuration(absl::Trunc(longest_wait_, absl::Milliseconds(1))));
    }
  }
  load_.Report(max_opening_);
}

}  // namespace arena
