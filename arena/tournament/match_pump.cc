#include "arena/tournament/match_pump.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/time/clock.h"
#include "arena/tournament/plan.h"
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
      holds_(hub, &load_.sample()) {}

MatchPump::~MatchPump() {
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
                                      std::vector<int>* todo) const {
  if (!duplicate_ || !hooks_.new_bot_processes) return {todo->size()};
  std::map<int, int> seen;  // deal -> matches of it so far
  std::vector<int> rotation(schedule.matches.size(), 0);
  for (size_t i = 0; i < schedule.matches.size(); ++i) {
    rotation[i] = seen[schedule.matches[i].deal]++;
  }
  std::stable_sort(todo->begin(), todo->end(),
                   [&](int a, int b) { return rotation[a] < rotation[b]; });
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
  const std::vector<size_t> phase_ends = Phases(schedule, &todo);
  size_t t = 0;
  for (size_t p = 0; p < phase_ends.size() && !stopped(); ++p) {
    if (p > 0) {
      WaitBelow(1);  // the rotation's matches are all over
      spdlog::info("rotation {} of {}: every bot process is replaced by a fresh one",
                   p + 1, phase_ends.size());
      if (absl::Status s = hooks_.new_bot_processes(); !s.ok()) {
        spdlog::error("cannot start fresh bot processes: {}", s.ToString());
        // Played on: each bot that is not connected faults (policy decides).
      }
    }
    for (; t < phase_ends[p]; ++t) {
      if (!StartNext(schedule, entrants, todo[t])) break;
    }
  }
  WaitBelow(1);
}

bool MatchPump::StartNext(const Schedule& schedule, const std::vector<std::string>& entrants,
                          int index) {
  WaitBelow(jobs_, /*to_start=*/true);
  if (stopped() || StorageStopped()) return false;
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
  if (hooks_.ensure_bot) {
    std::set<std::string> needed(spec.seat_bots.begin(), spec.seat_bots.end());
    for (const auto& b : needed) hooks_.ensure_bot(b);
  }
  auto writer = OpenRecord(config_, hooks_, spec.match_id);
  if (!writer.ok()) {
    spdlog::error("match {}: {}", spec.match_id, writer.status().ToString());
    booker_.Skip();
    return true;
  }
  Launch(std::move(spec), *std::move(writer));
  return true;
}

void MatchPump::Launch(MatchSpec spec, std::unique_ptr<RecordWriter> writer) {
  const int64_t seq = started_++;
  spec.on_first_answer = [this, seq] {
    absl::MutexLock lock(&live_mu_);
    opening_.erase(seq);
  };
  {
    absl::MutexLock lock(&live_mu_);
    peak_live_ = std::max(peak_live_, ++live_);
    opening_.emplace(seq, absl::Now());
  }
  std::shared_ptr<SeatLink> link = hub_.NewMatchLink(spec.match_id, spec.seat_bots);
  MatchSpec booked = spec;
  auto match = Match::Create(game_, std::move(spec), std::move(link),
                             std::shared_ptr<RecordWriter>(std::move(writer)),
                             [this, booked = std::move(booked)](MatchOutcome outcome) {
                               absl::MutexLock lock(&live_mu_);
                               --live_;
                               finished_.push_back({booked, std::move(outcome)});
                             });
  match->Start();
}

void MatchPump::WaitBelow(int limit, bool to_start) {
  std::deque<Finished> batch;
  bool waited_opening = false;
  for (;;) {
    {
      absl::MutexLock lock(&live_mu_);
      auto room = [&] {
        return live_ < limit &&
               (!to_start || static_cast<int>(opening_.size()) < max_opening_);
      };
      auto ready = [&] { return room() || !finished_.empty(); };
      for (;;) {
        const absl::Time now = absl::Now();
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
        live_mu_.AwaitWithTimeout(absl::Condition(&ready), wait);
      }
      batch.swap(finished_);
      if (batch.empty()) break;  // room
    }
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
  {
    absl::MutexLock lock(&live_mu_);
    spdlog::info("{} matches played, at most {} of them at once", started_, peak_live_);
  }
  load_.Report(max_opening_);
}

}  // namespace arena
