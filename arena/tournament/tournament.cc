#include "arena/tournament/tournament.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "arena/common/thread_priority.h"
#include "arena/records/folder.h"
#include "arena/tournament/plan.h"
#include "arena/tournament/resume.h"
#include "arena/tournament/adaptive.h"
#include "arena/tournament/schedule.h"
#include "referee/games/registry.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"
#include "referee/records/storage_fault.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// Builds and writes the standings on a thread of its own, from a copy of the
// accumulator, so that a refresh (the ratings' bootstrap: seconds in a field
// of a hundred entrants) never holds up the start of the next match. One
// copy waits at most: a newer one replaces it. The destructor drops a copy
// not yet started and waits for the one being built. Its thread runs at a
// background priority (arena/common/thread_priority.h).
class StandingsRefresher {
 public:
  explicit StandingsRefresher(std::function<void(const StandingsAccumulator&)> refresh)
      : refresh_(std::move(refresh)), thread_([this] { Run(); }) {}
  ~StandingsRefresher() {
    {
      absl::MutexLock lock(&mu_);
      quit_ = true;
    }
    thread_.join();
  }
  StandingsRefresher(const StandingsRefresher&) = delete;
  StandingsRefresher& operator=(const StandingsRefresher&) = delete;

  void Refresh(const StandingsAccumulator& standings) {
    StandingsAccumulator copy(standings);  // outside the lock
    absl::MutexLock lock(&mu_);
    pending_.reset();
    pending_.emplace(std::move(copy));
  }

 private:
  void Run() {
    NameThisThread("standings");
    RunThisThreadWhenIdle();
    for (;;) {
      std::optional<StandingsAccumulator> next;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(this, &StandingsRefresher::Ready));
        if (quit_) return;
        next.emplace(std::move(*pending_));
        pending_.reset();
      }
      refresh_(*next);
    }
  }
  bool Ready() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return quit_ || pending_.has_value();
  }

  const std::function<void(const StandingsAccumulator&)> refresh_;
  absl::Mutex mu_;
  std::optional<StandingsAccumulator> pending_ ABSL_GUARDED_BY(mu_);
  bool quit_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: it starts once the rest exists
};

}  // namespace

void PrintProgress(const std::string& game, int64_t done, int64_t total,
                   absl::Duration elapsed, bool terminal, int64_t first) {
  const double secs = absl::ToDoubleSeconds(elapsed);
  const double rate = secs > 0 ? (done - first) / secs : 0.0;
  std::string eta = "?";
  if (rate > 0) {
    const int64_t left = static_cast<int64_t>((total - done) / rate + 0.5);
    eta = absl::StrFormat("%d:%02d:%02d", left / 3600, left / 60 % 60, left % 60);
  }
  const double share = total > 0 ? static_cast<double>(done) / total : 1.0;
  if (terminal) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(share * kWidth);
    std::fprintf(stderr, "\r[%s] [%s%s] %lld/%lld (%.0f%%) %.1f matches/s, %s left%s",
                 game.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(),
                 static_cast<long long>(done), static_cast<long long>(total),
                 100.0 * share, rate, eta.c_str(), done == total ? "\n" : "  ");
  } else {
    std::fprintf(stderr, "[%s] %lld/%lld matches (%.0f%%), %.1f matches/s, %s left\n",
                 game.c_str(), static_cast<long long>(done),
                 static_cast<long long>(total), 100.0 * share, rate, eta.c_str());
  }
  std::fflush(stderr);
}

void FillMatchSpec(const v1::TournamentConfig& config, const TournamentSecret& secret,
                   uint64_t deal, MatchSpec* spec) {
  const MatchSecrets ms = secret.ForMatch(deal, spec->match_id);
  spec->seed = ms.seed;
  spec->seed_salt = ms.salt;
  spec->seed_commitment = ms.commitment;
  spec->tournament_id = secret.TournamentId();
  spec->predictable_seed = secret.predictable();
  spec->time_control = config.time_control();
  spec->fault_policy = config.fault_policy();
  spec->auto_moves = config.auto_moves();
  spec->decision_cap = config.decision_cap();
}

LoadVerdict AssessLoad(const LoadSample& sample) {
  LoadVerdict v;
  const double deadline_us = 1000.0 * static_cast<double>(sample.decision_ms);
  int64_t answered = 0, think_us = 0;
  int fast_timing_out = 0;
  // A load slows every bot alike; a slow bot stands out from the others.
  std::vector<double> means;
  for (const LoadSample::Bot& b : sample.bots) {
    if (b.answered > 0) means.push_back(static_cast<double>(b.think_us_sum) / b.answered);
  }
  double median = 0;
  if (!means.empty()) {
    std::sort(means.begin(), means.end());
    median = means.size() % 2 == 1
                 ? means[means.size() / 2]
                 : (means[means.size() / 2 - 1] + means[means.size() / 2]) / 2;
  }
  const double fast_below = std::max(deadline_us / 2, 2 * median);
  for (const LoadSample::Bot& b : sample.bots) {
    v.timeouts += b.timeouts;
    answered += b.answered;
    think_us += b.think_us_sum;
    const bool fast = b.answered > 0 &&
                      static_cast<double>(b.think_us_sum) / b.answered < fast_below;
    if (fast && b.timeouts > 0) {
      v.load_timeouts += b.timeouts;
      ++fast_timing_out;
    }
  }
  const double mean_lag_us =
      sample.requests > 0
          ? static_cast<double>(sample.send_lag_us_sum) / sample.requests
          : 0.0;
  const bool referee_lagged = mean_lag_us >= deadline_us / 20 ||
                              sample.send_lag_us_max >= deadline_us / 2;
  v.summary = absl::StrFormat(
      "%d timeouts in %d answers; the referee's requests waited %.2f ms on "
      "average to be sent (at most %.1f ms); mean answer time by bot:",
      v.timeouts, answered, mean_lag_us / 1000, sample.send_lag_us_max / 1000.0);
  for (const LoadSample::Bot& b : sample.bots) {
    absl::StrAppendFormat(&v.summary, " %s %.2f ms (%d timeouts)", b.name,
                          b.answered > 0 ? b.think_us_sum / 1000.0 / b.answered : 0.0,
                          b.timeouts);
  }
  if (v.load_timeouts == 0 || deadline_us <= 0 || !referee_lagged) return v;
  v.saturated = true;
  const double mean_think_us =
      answered > 0 ? static_cast<double>(think_us) / answered : deadline_us;
  const int jobs = std::max(1, sample.jobs);
  const double fit = jobs * deadline_us / (8 * std::max(1.0, mean_think_us));
  v.suggested_jobs = static_cast<int>(
      std::clamp<double>(std::floor(fit), 1, std::max(1, jobs - 1)));
  v.text = absl::StrFormat(
      "%d of the %d timeouts look caused by the machine's load, not by slow "
      "bots: %d bot(s) that answer about as fast as the others, in %.2f ms "
      "on average (deadline %d ms), timed out, and the "
      "referee itself lagged: its requests waited %.2f ms on average to be "
      "sent (at most %.1f ms). %d matches at once are too many for this "
      "machine at this deadline; try --jobs %d (or a longer --decision_ms).",
      v.load_timeouts, v.timeouts, fast_timing_out, mean_think_us / 1000,
      sample.decision_ms, mean_lag_us / 1000, sample.send_lag_us_max / 1000.0,
      jobs, v.suggested_jobs);
  return v;
}

absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            const TournamentSecret& secret,
                                            BotHub& hub,
                                            const TournamentHooks& hooks) {
  Options opts(config.options().begin(), config.options().end());
  auto game_or = CreateGame(config.game(), opts, config.seats());
  if (!game_or.ok()) return game_or.status();
  const Game& game = **game_or;

  const v1::ScheduleKind kind = ScheduleKindFor(config, hooks.fixed_seating);
  if (absl::Status s = CheckSchedule(config, hooks.fixed_seating); !s.ok()) return s;
  const bool adaptive = kind == v1::SCHEDULE_KIND_ADAPTIVE;
  const bool duplicate = config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  const int per_table = MatchesPerTable(config);
  // Every match planned so far: the whole schedule, or an adaptive
  // schedule's rounds up to the one being played.
  Schedule schedule;
  std::unique_ptr<AdaptivePlanner> planner;
  v1::SchedulePlan plan;
  plan.set_kind(kind);
  plan.set_bots(config.bots_size());
  plan.set_seats(config.seats());
  // Every schedule of distinct bots is checked against the adaptive target at
  // the end (schedule.json says how sure its top is); an adaptive one is
  // planned by it.
  const AdaptiveOptions ao = AdaptiveOptionsFor(config);
  if (config.bots_size() >= 2 && config.bots_size() >= config.seats() &&
      hooks.fixed_seating.empty()) {
    planner = std::make_unique<AdaptivePlanner>(config.bots_size(), config.seats(), duplicate,
                                                secret.ScheduleSeed(), ao);
    plan.set_top_k(planner->top_k());
    plan.set_confidence(ao.confidence);
  }
  if (adaptive) {
    plan.set_budget(config.matches());
    spdlog::info(
        "adaptive schedule: rounds of at least {} tables ({} matches), until the top {} "
        "are separated at {:.0f} % (Holm) or {} matches are spent",
        planner->tables_per_round(), planner->tables_per_round() * per_table,
        planner->top_k(), 100 * ao.confidence, config.matches());
  } else {
    auto schedule_or = ScheduleFor(config, hooks.fixed_seating, secret.ScheduleSeed());
    if (!schedule_or.ok()) return schedule_or.status();
    schedule = *std::move(schedule_or);
    plan.set_rounds(1);
    plan.set_matches_planned(static_cast<int>(schedule.matches.size()));
    plan.add_round_matches(static_cast<int>(schedule.matches.size()));
    const int total = static_cast<int>(schedule.matches.size());
    if (total != config.matches()) {
      spdlog::warn("{} matches rounded up to {}: {} whole deal groups", config.matches(),
                   total, schedule.deal_groups);
    }
    if (!schedule.balanced && hooks.fixed_seating.empty()) {
      spdlog::warn(
          "{} matches are not whole cycles of the {} seatings: seat positions "
          "are balanced only approximately",
          total, schedule.cycle);
    }
  }
  // This run's matches (all of them but with --shard), in schedule order.
  const std::vector<int> mine = ShardMatches(config, schedule);
  const int planned = adaptive ? config.matches() : static_cast<int>(mine.size());
  if (config.shard_count() > 0) {
    spdlog::info("shard {}/{}: {} of {} matches (deal groups g with g % {} == {})",
                 config.shard_index(), config.shard_count(), planned,
                 schedule.matches.size(), config.shard_count(), config.shard_index());
  }
  if (absl::Status s = MakeRecordsDir(config.records_dir()); !s.ok()) return s;
  const std::string tournament_id = secret.TournamentId();
  const StandingsContext context = StandingsContextFor(config, planned);
  auto match_id = [&](int64_t i) { return MatchId(config.game(), tournament_id, i); };
  auto deal_group = [&](const ScheduledMatch& sm, const std::string& id) {
    return DealGroupId(config.game(), tournament_id, duplicate, sm, id);
  };
  std::map<std::string, int> bot_index;
  for (int b = 0; b < config.bots_size(); ++b) bot_index[config.bots(b).name()] = b;
  // The adaptive schedule learns each recorded match, played or resumed.
  auto observe = [&](const MatchSummary& m) {
    if (!planner) return;
    std::vector<int> seats;
    for (const std::string& name : m.seat_bots) {
      auto it = bot_index.find(name);
      seats.push_back(it == bot_index.end() ? -1 : it->second);
    }
    planner->Observe(seats, m.placements);
  };
  // The standings so far: tallies, not matches (memory does not grow with
  // the tournament).
  StandingsAccumulator standings(context);
  bool stop_at_start = false;  // on_recorded said stop while resuming
  if (!hooks.resume) {
    const int deal_groups = adaptive ? 0 : schedule.deal_groups;
    if (absl::Status s = WriteManifest(config, planned, deal_groups, tournament_id); !s.ok()) {
      return s;
    }
  }
  // The matches of `round` (schedule indices) still to play: all of them,
  // or with --resume those without a record that counts.
  auto to_play_of = [&](const std::vector<int>& round) -> absl::StatusOr<std::vector<int>> {
    if (!hooks.resume) return round;
    auto resumed = ResumeFromRecords(
        config, secret, schedule, round, planned, &standings,
        [&](const MatchSummary& m) {
          observe(m);
          return !hooks.on_recorded || hooks.on_recorded(m);
        });
    if (!resumed.ok()) return resumed.status();
    stop_at_start = stop_at_start || resumed->stop;
    return std::move(resumed->todo);
  };

  // On a terminal, one line redrawn in place (a bar and the time left);
  // otherwise (a log, CI) a plain line every tenth of the matches.
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  absl::Mutex mu;
  int64_t done = 0;
  int64_t first_done = 0;  // of `done`: recorded before this run (--resume)
  // Known up front but for an adaptive schedule (its budget, then).
  int64_t to_play = 0;
  int64_t progress_every = 1;
  std::atomic<bool> stopped{false};
  const absl::Time t0 = absl::Now();
  absl::Time last_progress = t0;
  const int every = config.standings_every() > 0 ? config.standings_every() : 20;
  absl::Mutex write_mu;  // standings refreshes, one at a time
  // A refresh that took d holds the next one off for 9 d (under mu), so that
  // refreshes cost at most about a tenth of the time however large the
  // tournament grows (the final standings are always written).
  absl::Time next_refresh = absl::InfinitePast();

  // On the refresher's thread, from a copy (StandingsRefresher).
  auto refresh = [&](const StandingsAccumulator& copy) {
    absl::MutexLock lock(&write_mu);
    const absl::Time start = absl::Now();
    auto st = copy.Build();
    {
      absl::MutexLock lock(&mu);
      next_refresh = absl::Now() + 9 * (absl::Now() - start);
    }
    if (!st.ok()) {
      spdlog::error("standings: {}", st.status().ToString());
      return;
    }
    if (absl::Status s = WriteStandings(*st, config.records_dir()); !s.ok()) {
      spdlog::error("{}", s.ToString());
    }
  };
  // Destroyed before anything it reads: the final standings are written
  // after it has stopped, so no older refresh can land on them.
  std::optional<StandingsRefresher> refresher;
  refresher.emplace(refresh);

  // Matches are state machines driven by the bots' answers on gRPC's
  // threads and by the deadline timer (referee/match/match_runner.h): this thread
  // only starts them, `jobs` at a time, and books each one as it ends.
  struct Finished {
    MatchSpec spec;
    MatchOutcome outcome;
  };
  // The decisions' times, summed over the matches played (AssessLoad).
  LoadSample load;
  load.decision_ms = config.time_control().decision_ms() > 0
                         ? config.time_control().decision_ms()
                         : kDefaultDecisionMs;
  std::map<std::string, size_t> load_bot;  // name -> index in load.bots
  auto add_timing = [&](const MatchSpec& spec, const MatchOutcome& outcome) {
    auto bot = [&](int seat) -> LoadSample::Bot& {
      const std::string& name = spec.seat_bots[seat];
      auto [it, added] = load_bot.emplace(name, load.bots.size());
      if (added) load.bots.push_back({name});
      return load.bots[it->second];
    };
    const MatchTiming& t = outcome.timing;
    for (size_t s = 0; s < t.seats.size() && s < spec.seat_bots.size(); ++s) {
      LoadSample::Bot& b = bot(static_cast<int>(s));
      b.answered += t.seats[s].answered;
      b.think_us_sum += t.seats[s].think_us_sum;
    }
    for (const SeatFault& f : outcome.faults) {
      if (f.kind == v1::FAULT_KIND_TIMEOUT) ++bot(f.seat).timeouts;
    }
    load.requests += t.left;
    load.send_lag_us_sum += t.send_lag_us_sum;
    load.send_lag_us_max = std::max(load.send_lag_us_max, t.send_lag_us_max);
    load.clock_restarts += t.clock_restarts;
    load.referee_lag_us_sum += t.referee_lag_us_sum;
  };
  // Holds a match's start while the referee is behind its own clock (its
  // deadline timer late, or its requests slow to leave), or while one of
  // the match's bots still owes the answer to a decision that timed out in
  // the last few decision times (its process is behind): a match started
  // into a stall would open its decisions' clocks there, time out at once,
  // end, and make room for the next one to do the same. At most a second a
  // match, so a lag that never clears slows the contest but cannot stop it;
  // and the holds for bots at most a tenth of the time so far, so that a
  // bot that times out again and again (one that hangs) cannot slow the
  // contest by more than that.
  const absl::Duration lag_tolerance = RefereeLagTolerance(load.decision_ms);
  const absl::Duration owed_within =
      std::max(absl::Milliseconds(100), 4 * absl::Milliseconds(load.decision_ms));
  absl::Duration held_for_bots;  // in all
  auto hold_while_behind = [&](const std::vector<std::string>& bots) {
    const absl::Time from = absl::Now();
    bool held = false, for_bots = false;
    for (;;) {
      const absl::Time now = absl::Now();
      if (stopped.load() || now - from >= absl::Seconds(1)) break;
      if (DeadlineTimer::Shared().Behind() > lag_tolerance) {
        held = true;
      } else if (held_for_bots + (for_bots ? now - from : absl::ZeroDuration()) <
                     (now - t0) / 10 &&
                 std::any_of(bots.begin(), bots.end(), [&](const std::string& b) {
                   return hub.OwesLateAnswer(b, owed_within);
                 })) {
        held = for_bots = true;
      } else {
        break;
      }
      absl::SleepFor(absl::Milliseconds(1));
    }
    if (held) {
      ++load.start_holds;
      load.start_hold_us += absl::ToInt64Microseconds(absl::Now() - from);
    }
    if (for_bots) {
      ++load.start_holds_for_bots;
      held_for_bots += absl::Now() - from;
    }
  };
  absl::Mutex live_mu;
  int live = 0;                     // matches started and not yet booked
  // Matches started in the last opening_window that have had no answer
  // from a bot yet (MatchSpec::on_first_answer), by start number, at most
  // max_opening: when many matches can start at once (the first ones, or
  // after a stall ended many), they start as the earlier ones get going
  // rather than in one burst whose first requests all reach the bots at
  // once, where they time out together. The window keeps a bot that takes
  // its time (legally) from holding starts back for longer than that.
  std::map<int64_t, absl::Time> opening;
  const int max_opening = std::max(2, std::max(1, config.jobs()) / 8);
  const absl::Duration opening_window =
      std::min(2 * absl::Milliseconds(load.decision_ms), absl::Milliseconds(100));
  int peak_live = 0;                // the most matches live at once
  std::deque<Finished> finished;    // ended, to be booked by this thread
  auto book = [&](std::deque<Finished>& batch) {
    for (Finished& f : batch) {
      bool refresh_due = false;
      add_timing(f.spec, f.outcome);
      {
        absl::MutexLock lock(&mu);
        ++done;
        if (f.outcome.record_status.ok()) {  // a match without a whole record does not count
          const MatchSummary summary = SummarizeMatch(f.spec, f.outcome);
          if (absl::Status s = standings.Add(summary); !s.ok()) {
            spdlog::error("standings: {}", s.ToString());  // our own match: a bug
          }
          observe(summary);
          if (hooks.on_recorded && !hooks.on_recorded(summary)) {
            stopped.store(true);  // stop: no further match is started
          }
          if (standings.matches() % every == 0 && absl::Now() >= next_refresh) {
            refresh_due = true;
            next_refresh = absl::InfiniteFuture();  // until this one is done
          }
        }
        const bool progress_due =
            done >= to_play ||
            (terminal ? absl::Now() - last_progress > absl::Milliseconds(250)
                      : done % progress_every == 0);
        if (hooks.show_progress && progress_due) {
          last_progress = absl::Now();
          PrintProgress(config.game(), done, to_play, last_progress - t0, terminal,
                        first_done);
        }
      }
      if (refresh_due) refresher->Refresh(standings);
    }
    batch.clear();
  };
  // Waits until fewer than `limit` matches are live (and, to start one,
  // fewer than max_opening wait for their first answer), booking those
  // that end.
  auto wait_below = [&](int limit, bool to_start = false) {
    std::deque<Finished> batch;
    bool waited_opening = false;
    for (;;) {
      {
        absl::MutexLock lock(&live_mu);
        auto room = [&] {
          return live < limit &&
                 (!to_start || static_cast<int>(opening.size()) < max_opening);
        };
        auto ready = [&] { return room() || !finished.empty(); };
        for (;;) {
          const absl::Time now = absl::Now();
          while (!opening.empty() && opening.begin()->second + opening_window <= now) {
            opening.erase(opening.begin());  // no longer counted
          }
          if (ready()) break;
          if (to_start && live < limit) waited_opening = true;
          // Until the oldest opening match leaves the window, if that is
          // what is waited for.
          const absl::Duration wait =
              to_start && !opening.empty()
                  ? opening.begin()->second + opening_window - now
                  : absl::InfiniteDuration();
          live_mu.AwaitWithTimeout(absl::Condition(&ready), wait);
        }
        batch.swap(finished);
        if (batch.empty()) break;  // room
      }
      book(batch);
    }
    if (waited_opening) ++load.opening_waits;
  };
  // A write the disk could not take (referee/records/storage_fault.h: a
  // record, the standings, the log) stops the tournament: no match starts
  // after it; the live ones end (their records are written if the space
  // came back, else they stay unfinished in .inprogress/ and are played
  // again on resume). Called by this thread only.
  bool storage_stopped = false;
  auto storage_stop = [&]() {
    if (storage_stopped) return true;
    const absl::Status fault = FirstStorageFault();
    if (fault.ok()) return false;
    storage_stopped = true;
    stopped.store(true);
    int live_now = 0;
    {
      absl::MutexLock lock(&live_mu);
      live_now = live;
    }
    spdlog::error("{}; no further match is started ({} live ones end first)",
                  std::string(fault.message()), live_now);
    return true;
  };
  const int jobs = std::max(1, config.jobs());
  load.jobs = jobs;
  int64_t started = 0;
  // Plays `todo` (schedule indices), `jobs` at a time, and waits for all of
  // them to end. Duplicate deals with fresh bot processes between
  // rotations: rotation by rotation (phase k: the k-th match of every
  // group).
  auto play = [&](std::vector<int> todo) {
    std::vector<size_t> phase_ends;  // end of each phase in `todo`
    if (duplicate && hooks.new_bot_processes) {
      std::map<int, int> seen;  // deal -> matches of it so far
      std::vector<int> rotation(schedule.matches.size(), 0);
      for (size_t i = 0; i < schedule.matches.size(); ++i) {
        rotation[i] = seen[schedule.matches[i].deal]++;
      }
      std::stable_sort(todo.begin(), todo.end(),
                       [&](int a, int b) { return rotation[a] < rotation[b]; });
      for (size_t t = 1; t <= todo.size(); ++t) {
        if (t == todo.size() || rotation[todo[t]] != rotation[todo[t - 1]]) {
          phase_ends.push_back(t);
        }
      }
    } else {
      phase_ends.push_back(todo.size());
    }
    size_t t = 0;
    for (size_t p = 0; p < phase_ends.size() && !stopped.load(); ++p) {
      if (p > 0) {
        wait_below(1);  // the rotation's matches are all over
        spdlog::info("rotation {} of {}: every bot process is replaced by a fresh one",
                     p + 1, phase_ends.size());
        if (absl::Status s = hooks.new_bot_processes(); !s.ok()) {
          spdlog::error("cannot start fresh bot processes: {}", s.ToString());
          // Played on: each bot that is not connected faults (policy decides).
        }
      }
      for (; t < phase_ends[p]; ++t) {
        wait_below(jobs, /*to_start=*/true);
        if (stopped.load() || storage_stop()) break;
        const int64_t i = todo[t];
        const ScheduledMatch& sm = schedule.matches[i];
        MatchSpec spec;
        spec.match_id = match_id(i);
        spec.deal_group = deal_group(sm, spec.match_id);
        spec.game_name = config.game();
        spec.options = opts;
        for (int b : sm.seating) spec.seat_bots.push_back(config.bots(b).name());
        hold_while_behind(spec.seat_bots);
        if (stopped.load()) break;
        FillMatchSpec(config, secret, static_cast<uint64_t>(sm.deal), &spec);
        if (hooks.ensure_bot) {
          std::set<std::string> needed(spec.seat_bots.begin(), spec.seat_bots.end());
          for (const auto& b : needed) hooks.ensure_bot(b);
        }
        auto writer = RecordWriter::Open(
            config.records_dir(), spec.match_id,
            RecordFormatOf(config.record_format(), config.compress_records()));
        if (writer.ok()) {
          (*writer)->set_spill_every_line(hooks.live_records);
          if (hooks.on_record_finished) (*writer)->set_on_finished(hooks.on_record_finished);
        }
        if (!writer.ok()) {
          spdlog::error("match {}: {}", spec.match_id, writer.status().ToString());
          absl::MutexLock lock(&mu);
          ++done;
          continue;
        }
        const int64_t seq = started;
        spec.on_first_answer = [&live_mu, &opening, seq] {
          absl::MutexLock lock(&live_mu);
          opening.erase(seq);
        };
        {
          absl::MutexLock lock(&live_mu);
          peak_live = std::max(peak_live, ++live);
          opening.emplace(seq, absl::Now());
        }
        ++started;
        std::shared_ptr<SeatLink> link = hub.NewMatchLink(spec.match_id, spec.seat_bots);
        auto match = Match::Create(
            game, spec, std::move(link), std::shared_ptr<RecordWriter>(*std::move(writer)),
            [&live_mu, &live, &finished, spec](MatchOutcome outcome) {
              absl::MutexLock lock(&live_mu);
              --live;
              finished.push_back({spec, std::move(outcome)});
            });
        match->Start();
      }
    }
    wait_below(1);
  };

  std::vector<std::string> names;
  for (const auto& b : config.bots()) names.push_back(b.name());
  auto write_plan = [&](const AdaptiveCheck& check) {
    plan.clear_comparisons();
    for (const AdaptiveComparison& c : check.comparisons) {
      v1::PlanComparison* pc = plan.add_comparisons();
      pc->set_ahead(names[c.ahead]);
      pc->set_behind(names[c.behind]);
      pc->set_elo_diff(c.elo_diff);
      pc->set_sd(c.sd);
      pc->set_p(c.p);
      pc->set_separated(c.separated);
    }
    if (absl::Status s = WriteSchedulePlan(config.records_dir(), plan); !s.ok()) {
      spdlog::error("{}", s.ToString());
    }
  };
  // (An adaptive schedule has no fixed seating: CheckSchedule.)
  if (duplicate && !hooks.new_bot_processes && hooks.fixed_seating.empty()) {
    spdlog::warn(
        "duplicate deals with bot processes that live through the whole "
        "tournament: a bot that remembers a deal from one rotation knows "
        "other seats' hands when it comes round again; between untrusted "
        "bots, use independent deals");
  }
  if (!adaptive) {
    auto todo = to_play_of(mine);
    if (!todo.ok()) return todo.status();
    {
      // With --resume, the progress starts at the matches already recorded.
      absl::MutexLock lock(&mu);
      first_done = done = static_cast<int64_t>(mine.size() - todo->size());
      to_play = static_cast<int64_t>(mine.size());
      progress_every = std::max<int64_t>(1, to_play / 10);
      if (hooks.show_progress && first_done > 0) {
        PrintProgress(config.game(), done, to_play, absl::ZeroDuration(), terminal, first_done);
      }
    }
    stopped.store(stop_at_start);
    play(*std::move(todo));
    if (planner) {
      // How sure the top is after this schedule (the adaptive target).
      const AdaptiveCheck check = planner->Check();
      plan.set_finished(!stopped.load());
      plan.set_stop(check.Describe(names));
      write_plan(check);
    }
  } else {
    {
      absl::MutexLock lock(&mu);
      to_play = config.matches();
      progress_every = std::max<int64_t>(1, to_play / 10);
    }
    for (;;) {
      storage_stop();
      const AdaptiveCheck check = planner->Check();
      const int64_t left = config.matches() - static_cast<int64_t>(schedule.matches.size());
      const int tables = static_cast<int>(
          std::min<int64_t>(planner->tables_per_round(), left / per_table));
      if (check.met || tables < 1 || stopped.load() || stop_at_start) {
        plan.set_finished(check.met || tables < 1);
        plan.set_stop(check.met      ? "target met"
                      : tables < 1   ? "budget spent"
                                     : "stopped");
        write_plan(check);
        const std::string said = check.Describe(names);
        if (check.met) {
          spdlog::info("adaptive schedule: {} after {} rounds, {} matches", said,
                       plan.rounds(), schedule.matches.size());
        } else if (tables < 1) {
          spdlog::warn("adaptive schedule: the budget of {} matches is spent after {} "
                       "rounds; {}", config.matches(), plan.rounds(), said);
        }
        break;
      }
      const Schedule round = ScheduleOfTables(
          planner->NextRound(tables), duplicate, static_cast<int>(schedule.matches.size()),
          schedule.deal_groups);
      std::vector<int> indices;
      for (const ScheduledMatch& m : round.matches) {
        indices.push_back(m.index);
        schedule.matches.push_back(m);
      }
      schedule.deal_groups += round.deal_groups;
      plan.set_rounds(plan.rounds() + 1);
      plan.set_matches_planned(static_cast<int>(schedule.matches.size()));
      plan.add_round_matches(static_cast<int>(round.matches.size()));
      write_plan(check);
      spdlog::info("adaptive round {}: {} matches; {}", plan.rounds(),
                   round.matches.size(), check.Describe(names));
      auto todo = to_play_of(indices);
      if (!todo.ok()) return todo.status();
      if (const int64_t resumed = static_cast<int64_t>(indices.size() - todo->size());
          resumed > 0) {
        absl::MutexLock lock(&mu);
        done += resumed;
        first_done += resumed;
        if (hooks.show_progress) {
          PrintProgress(config.game(), done, to_play, absl::Now() - t0, terminal, first_done);
        }
      }
      play(*std::move(todo));
    }
  }
  wait_below(1);
  {
    absl::MutexLock lock(&live_mu);
    spdlog::info("{} matches played, at most {} of them at once", started, peak_live);
  }
  if (const LoadVerdict verdict = AssessLoad(load); verdict.saturated) {
    spdlog::warn("{}", verdict.text);
    spdlog::info("{}", verdict.summary);
  } else if (verdict.timeouts > 0) {
    spdlog::info("{}", verdict.summary);
  }
  if (load.clock_restarts > 0 || load.start_holds > 0 || load.opening_waits > 0) {
    spdlog::info(
        "fair clocks: {} decision clocks restarted while the referee was behind "
        "({:.1f} ms given back, not charged to the bots); {} match starts held "
        "back for {:.1f} ms in all ({} of them for a bot still owing a timed-out "
        "answer); {} starts waited for one of the {} matches opening to get its "
        "first answer",
        load.clock_restarts, load.referee_lag_us_sum / 1000.0, load.start_holds,
        load.start_hold_us / 1000.0, load.start_holds_for_bots, load.opening_waits,
        max_opening);
  }

  refresher.reset();  // a refresh under way ends first
  auto st = standings.Build();
  if (!st.ok()) return st.status();
  // A failure here is logged; the caller writes the final standings again
  // (with the descriptors it kept in reserve) and fails if that fails too.
  if (absl::Status s = WriteStandings(*st, config.records_dir()); !s.ok()) {
    spdlog::error("{}", s.ToString());
  }
  return st;
}

}  // namespace arena
