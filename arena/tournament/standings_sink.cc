#include "arena/tournament/standings_sink.h"

#include <functional>
#include <optional>
#include <thread>
#include <utility>

#include "absl/time/clock.h"
#include "arena/common/thread_priority.h"
#include "arena/records/folder.h"
#include "referee/clock/mono_clock.h"
#include "spdlog/spdlog.h"

namespace arena {

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

StandingsSink::StandingsSink(const v1::TournamentConfig& config, int matches_planned)
    : dir_(config.records_dir()),
      every_(config.standings_every() > 0 ? config.standings_every() : 20),
      standings_(StandingsContextFor(config, matches_planned)),
      refresher_(std::make_unique<StandingsRefresher>(
          [this](const StandingsAccumulator& copy) { Write(copy); })) {}

StandingsSink::~StandingsSink() = default;

void StandingsSink::Add(const MatchSummary& match) {
  if (absl::Status s = standings_.Add(match); !s.ok()) {
    spdlog::error("standings: {}", s.ToString());  // our own match: a bug
  }
}

void StandingsSink::RefreshIfDue() {
  {
    absl::MutexLock lock(&mu_);
    if (standings_.matches() % every_ != 0 || MonoNow() < next_refresh_) return;
    next_refresh_ = absl::InfiniteFuture();  // until this one is done
  }
  refresher_->Refresh(standings_);
}

void StandingsSink::Write(const StandingsAccumulator& copy) {
  absl::MutexLock lock(&write_mu_);
  const absl::Time start = MonoNow();
  auto st = copy.Build();
  {
    absl::MutexLock lock(&mu_);
    next_refresh_ = MonoNow() + 9 * (MonoNow() - start);
  }
  if (!st.ok()) {
    spdlog::error("standings: {}", st.status().ToString());
    return;
  }
  if (absl::Status s = WriteStandings(*st, dir_); !s.ok()) {
    spdlog::error("{}", s.ToString());
  }
}

absl::StatusOr<v1::Standings> StandingsSink::Final() {
  refresher_.reset();  // a refresh under way ends first
  auto st = standings_.Build();
  if (!st.ok()) return st.status();
  // A failure here is logged; the caller writes the final standings again
  // (with the descriptors it kept in reserve) and fails if that fails too.
  if (absl::Status s = WriteStandings(*st, dir_); !s.ok()) {
    spdlog::error("{}", s.ToString());
  }
  return st;
}

}  // namespace arena
