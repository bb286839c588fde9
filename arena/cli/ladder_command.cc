#include "arena/cli/ladder_command.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/cli/command.h"
#include "arena/cli/ladder_state.h"
#include "arena/cli/standings_command.h"
#include "arena/cli/stop_signals.h"
#include "arena/common/json_file.h"
#include "arena/tournament/config.h"
#include "arena/tournament/engine.h"
#include "arena/tournament/planner.h"
#include "arena/tournament/run_stop.h"
#include "arena/views/reports.h"
#include "referee/game_api/rng.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace fs = std::filesystem;
namespace {

std::string SegmentFile(const std::string& dir, int segment) {
  return absl::StrFormat("%s/segments/segment-%06d.json", dir, segment);
}

// A segment's bound without --matches or --freeze_at (it ends sooner).
constexpr int64_t kOpenBudget = 1000000;

std::string SecretFile(const std::string& dir, int segment) {
  return absl::StrFormat("%s/secrets/segment-%06d.secret", dir, segment);
}

// A segment that played no match (a submission came while its bots
// started) keeps no records folder: it has nothing to rate or verify (and
// `arena verify` fails an empty folder). Its marker keeps what it took.
void DropIfEmpty(const std::string& dir, int segment) {
  const std::string seg_dir = LadderSegmentDir(dir, segment);
  std::error_code ec;
  if (!fs::exists(seg_dir, ec) || !ListRecordFiles(seg_dir).files.empty()) return;
  spdlog::info("ladder: segment {} played no match; its folder is removed", segment);
  fs::remove_all(seg_dir, ec);
  fs::remove(SecretFile(dir, segment), ec);
}

bool FreezeFileExists(const std::string& dir) {
  std::error_code ec;
  return fs::exists(absl::StrCat(dir, "/freeze"), ec);
}

// Whether a submission file has appeared that `state` has not taken.
bool NewSubmission(const std::string& dir, const LadderState& state) {
  std::error_code ec;
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(LadderSubmissionsDir(dir), ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 5 && name.substr(name.size() - 5) == ".json" && name[0] != '.') ++n;
  }
  return n > state.taken().size();
}

// One segment's planner: tables from the ladder's matchmaking, a batch of
// `jobs` tables at a time, until something calls for a new segment.
class LadderPlanner : public Planner {
 public:
  LadderPlanner(const std::string& dir, LadderState* state, const LadderRunOptions& options,
                std::vector<int> versions, int64_t budget, uint64_t seed)
      : dir_(dir), state_(state), options_(options), versions_(std::move(versions)),
        budget_(budget), rng_(seed) {
    for (size_t i = 0; i < versions_.size(); ++i) {
      entrant_of_[versions_[i]] = static_cast<int>(i);
      names_.push_back(state_->versions()[versions_[i]].bot);
    }
  }

  // Open-ended: a segment plans a batch at a time until something ends it
  // (its budget is only a bound), so what it plays is what it planned.
  Outline outline() const override { return {Outline::kOpenEnded, 0}; }
  const Schedule& schedule() const override { return schedule_; }
  const std::vector<std::string>& entrants() const override { return names_; }

  std::optional<std::vector<int>> NextBatch(const std::function<bool()>& stopping) override {
    Flush();
    const int64_t planned = static_cast<int64_t>(schedule_.matches.size());
    if (stopping() || !failed_.empty() || planned >= budget_ || FreezeFileExists(dir_) ||
        (options_.freeze_at > 0 && state_->matches() >= options_.freeze_at) ||
        NewSubmission(dir_, *state_)) {
      return std::nullopt;
    }
    const int jobs = std::max(1, options_.base.jobs());
    const int tables = static_cast<int>(std::min<int64_t>(jobs, budget_ - planned));
    std::vector<int> batch;
    // A version may sit at several of the batch's tables (a pass each), so
    // that a field smaller than jobs x seats still plays `jobs` at once.
    for (const std::vector<int>& table : state_->field().NextBatch(tables, rng_, tables)) {
      ScheduledMatch m;
      m.index = static_cast<int>(schedule_.matches.size());
      m.deal = m.index;
      for (int v : table) m.seating.push_back(entrant_of_.at(v));
      batch.push_back(m.index);
      schedule_.matches.push_back(std::move(m));
    }
    schedule_.deal_groups = static_cast<int>(schedule_.matches.size());
    if (batch.empty()) return std::nullopt;
    return batch;
  }

  // Rated in match order (as a restart replays them): a result waits for
  // those before it in its batch.
  void Learn(const MatchSummary& match) override {
    const size_t dash = match.match_id.rfind('-');
    int64_t n = 0;
    if (dash == std::string::npos || !absl::SimpleAtoi(match.match_id.substr(dash + 1), &n)) {
      state_->Apply(match);
      Wrote();
      return;
    }
    for (const SeatFault& f : match.faults) {
      if (f.kind == v1::FAULT_KIND_NO_SHOW && f.seat < static_cast<int>(match.seat_bots.size())) {
        failed_[match.seat_bots[f.seat]] = match.forfeit_detail.empty()
                                               ? std::string("it did not start or connect")
                                               : match.forfeit_detail;
      }
    }
    waiting_.emplace(n - 1, match);
    while (!waiting_.empty() && waiting_.begin()->first == next_) {
      state_->Apply(waiting_.begin()->second);
      waiting_.erase(waiting_.begin());
      ++next_;
      Wrote();
    }
  }

  void Finish(bool /*stopped*/) override { Flush(); }

  // Bots that did not show up for a match, with why.
  const std::map<std::string, std::string>& failed() const { return failed_; }

 private:
  // A batch is over: what waits (after a match without a record) is rated.
  void Flush() {
    for (auto& [n, m] : waiting_) state_->Apply(m);
    if (!waiting_.empty()) Wrote();
    waiting_.clear();
    next_ = static_cast<int64_t>(schedule_.matches.size());
  }
  void Wrote() {
    const bool frozen = FreezeFileExists(dir_) ||
                        (options_.freeze_at > 0 && state_->matches() >= options_.freeze_at);
    if (absl::Status s = state_->WriteLeaderboard(frozen); !s.ok()) {
      spdlog::error("ladder: {}", s.ToString());
    }
  }

  const std::string dir_;
  LadderState* state_;
  const LadderRunOptions& options_;
  const std::vector<int> versions_;  // this segment's, by entrant index
  std::map<int, int> entrant_of_;    // version -> entrant index
  std::vector<std::string> names_;
  const int64_t budget_;
  Rng rng_;
  Schedule schedule_;
  std::map<int64_t, MatchSummary> waiting_;
  int64_t next_ = 0;
  std::map<std::string, std::string> failed_;
};

// The config's bots: these versions, each with a fresh token.
absl::Status SetBots(const LadderState& state, const std::vector<int>& versions,
                     v1::TournamentConfig* c) {
  c->clear_bots();
  for (int v : versions) {
    v1::BotConfig* b = c->add_bots();
    b->set_name(state.versions()[v].bot);
    b->set_command(state.versions()[v].command);
    auto token = NewToken();
    if (!token.ok()) return token.status();
    b->set_token(*token);
  }
  return absl::OkStatus();
}

// Rebuilds the state from DIR: each segment's submissions, then its
// records, in order. Returns the next segment's number.
int Rebuild(const std::string& dir, LadderState* state) {
  int next = 0;
  std::vector<std::pair<int, std::string>> markers;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(absl::StrCat(dir, "/segments"), ec)) {
    v1::LadderSegment seg;
    if (e.path().extension() != ".json") continue;
    if (absl::Status s = ReadJsonFile(e.path().string(), &seg); !s.ok()) {
      spdlog::warn("ladder: {}", s.ToString());
      continue;
    }
    markers.emplace_back(seg.segment(), e.path().string());
  }
  std::sort(markers.begin(), markers.end());
  for (const auto& [n, path] : markers) {
    v1::LadderSegment seg;
    if (!ReadJsonFile(path, &seg).ok()) continue;
    const std::vector<std::string> names(seg.submissions().begin(), seg.submissions().end());
    state->Scan(/*frozen=*/false, &names);
    const std::string seg_dir = LadderSegmentDir(dir, n);
    if (!seg.finished()) {
      // Killed while it played: its unfinished matches never happened; its
      // standings come again from its records.
      fs::remove_all(absl::StrCat(seg_dir, "/.inprogress"), ec);
      if (fs::exists(absl::StrCat(seg_dir, "/manifest.json"), ec)) {
        StandingsCommandOptions so;
        so.dirs = {seg_dir};
        if (RunStandings(so) != 0) spdlog::error("ladder: the standings of {}", seg_dir);
      }
      seg.set_finished(true);
      if (absl::Status s = WriteJsonFile(path, seg); !s.ok()) spdlog::error("{}", s.ToString());
    }
    DropIfEmpty(dir, n);
    state->ReplaySegment(seg_dir);
    for (const auto& f : seg.failures()) state->Fail(f.bot(), f.reason());
    next = std::max(next, n + 1);
  }
  // A segment folder without its marker (none is made so) is not rated.
  for (const std::string& s : LadderSegments(dir)) {
    const std::string name = fs::path(s).filename().string();
    int n = 0;
    if (absl::SimpleAtoi(name.substr(8), &n)) next = std::max(next, n + 1);
  }
  if (!markers.empty()) {
    spdlog::info("ladder: rebuilt from {}: {} segments, {} submissions, {} rated matches", dir,
                 markers.size(), state->taken().size(), state->matches());
  }
  return next;
}

// The final: the top N of the leaderboard, the adaptive schedule from
// fresh ratings, into DIR/final.
int RunFinal(const LadderRunOptions& options, LadderState& state) {
  const std::string final_dir = absl::StrCat(options.dir, "/final");
  if (fs::exists(absl::StrCat(final_dir, "/standings.json"))) {
    std::cout << "the final was played: " << final_dir << "/standings.json\n";
    return 0;
  }
  std::vector<int> top = state.field().Leaderboard();
  if (static_cast<int>(top.size()) > options.final_top) top.resize(options.final_top);
  if (static_cast<int>(top.size()) < std::max(2, options.base.seats())) {
    return Fail(absl::FailedPreconditionError(
        absl::StrCat("no final: ", top.size(), " versions on the leaderboard")));
  }
  if (fs::exists(final_dir)) fs::remove_all(final_dir);  // an interrupted final: again
  v1::TournamentConfig c = options.base;
  if (absl::Status s = SetBots(state, top, &c); !s.ok()) return Fail(s);
  c.set_records_dir(final_dir);
  c.set_secret_file(absl::StrCat(options.dir, "/secrets/final.secret"));
  c.set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
  c.mutable_adaptive()->set_top_k(static_cast<int>(top.size()) - 1);
  c.set_matches(options.final_matches > 0 ? options.final_matches
                                          : 200 * static_cast<int>(top.size()));
  LaunchOptions lo = options.launch;
  lo.run_instead = nullptr;
  lo.show_progress = false;
  spdlog::info("ladder: the final of the top {} into {}", top.size(), final_dir);
  auto st = RunConfiguredTournament(c, lo);
  if (!st.ok()) return Fail(st.status());
  std::cout << "final (" << final_dir << "; each rank's interval in standings.json):\n"
            << StandingsTable(*st);
  return 0;
}

}  // namespace

int RunLadderSubmit(const std::string& dir, const std::string& entrant,
                    const std::string& command) {
  v1::LadderSubmission s;
  s.set_entrant(entrant);
  s.set_action(v1::LADDER_ACTION_SUBMIT);
  s.set_command(command);
  s.set_submitted_at(absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone()));
  auto path = WriteLadderSubmission(dir, s);
  if (!path.ok()) return Fail(path.status());
  std::cout << *path << "\n";
  return 0;
}

int RunLadderWithdraw(const std::string& dir, const std::string& entrant) {
  v1::LadderSubmission s;
  s.set_entrant(entrant);
  s.set_action(v1::LADDER_ACTION_WITHDRAW);
  s.set_submitted_at(absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone()));
  auto path = WriteLadderSubmission(dir, s);
  if (!path.ok()) return Fail(path.status());
  std::cout << *path << "\n";
  return 0;
}

int RunLadder(LadderRunOptions options) {
  const std::string& dir = options.dir;
  for (const char* sub : {"submissions", "records", "segments"}) {
    if (absl::Status s = MakePublicDirs(absl::StrCat(dir, "/", sub)); !s.ok()) return Fail(s);
  }
  if (absl::Status s = MakePublicDirs(absl::StrCat(dir, "/secrets")); !s.ok()) return Fail(s);
  ::chmod(absl::StrCat(dir, "/secrets").c_str(), 0700);
  SetStopMessage([dir](int sig) {
    return absl::StrCat("arena: the ladder stopped (signal ", sig,
                        "); run `arena ladder run ", dir, "` again to go on\n");
  });
  const int seats = std::max(2, options.base.seats());
  options.base.set_seats(seats);
  options.base.set_deal_mode(v1::DEAL_MODE_INDEPENDENT);
  if (options.base.jobs() <= 0) options.base.set_jobs(1);
  LadderState state(dir, options.base.game(), seats);
  auto site = ServeLadder(dir, options.serve, &state);  // before Rebuild: it plots what is rated
  if (!site.ok()) return Fail(site.status());
  int segment = Rebuild(dir, &state);
  const uint64_t seed =
      options.seed != 0 ? options.seed : static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
  auto frozen = [&] {
    return FreezeFileExists(dir) ||
           (options.freeze_at > 0 && state.matches() >= options.freeze_at);
  };
  auto done = [&] { return options.matches > 0 && state.matches() >= options.matches; };
  bool waiting_said = false;
  while (!StopRequested()) {
    state.Scan(frozen());
    (void)state.WriteEntrants();
    (void)state.WriteLeaderboard(frozen());
    if (done() || frozen()) break;
    const std::vector<int> active = state.Active();
    if (static_cast<int>(active.size()) < seats) {
      if (!waiting_said) {
        spdlog::info("ladder: {} active versions, {} seats: waiting for submissions in {}",
                     active.size(), seats, LadderSubmissionsDir(dir));
        waiting_said = true;
      }
      absl::SleepFor(options.poll);
      continue;
    }
    waiting_said = false;
    v1::LadderSegment marker;
    marker.set_segment(segment);
    for (const std::string& t : state.taken()) marker.add_submissions(t);
    if (absl::Status s = WriteJsonFile(SegmentFile(dir, segment), marker); !s.ok()) return Fail(s);
    v1::TournamentConfig c = options.base;
    if (absl::Status s = SetBots(state, active, &c); !s.ok()) return Fail(s);
    c.set_records_dir(LadderSegmentDir(dir, segment));
    c.set_secret_file(SecretFile(dir, segment));
    const int64_t left = options.matches > 0 ? options.matches - state.matches() : kOpenBudget;
    const int64_t to_freeze =
        options.freeze_at > 0 ? options.freeze_at - state.matches() : left;
    const int64_t budget = std::max<int64_t>(1, std::min(left, to_freeze));
    c.set_matches(static_cast<int>(budget));
    spdlog::info("ladder: segment {}: {} versions, {}", segment, active.size(),
                 budget < kOpenBudget ? absl::StrCat("at most ", budget, " matches")
                                      : std::string("open-ended"));
    LaunchOptions lo = options.launch;
    lo.show_progress = false;
    lo.fresh_bots_per_rotation = false;
    std::map<std::string, std::string> failed;
    lo.run_instead = [&](const v1::TournamentConfig& config, const TournamentSecret& secret,
                         BotHub& hub, const TournamentHooks& hooks) {
      LadderPlanner planner(dir, &state, options, active, budget, seed + segment);
      auto r = RunContest(config, secret, hub, hooks, planner);
      failed = planner.failed();
      return r;
    };
    auto result = RunConfiguredTournament(c, lo);
    if (result.ok()) {
      for (const auto& e : result->entrants()) {
        if (e.withdrawn()) failed.emplace(e.bot(), e.reason());
      }
    } else if (!StopRequested()) {
      // It could not run at all (the sandbox, the folder, the disk): the
      // next segment would not either. A restart goes on from here.
      return Fail(result.status());
    }
    for (const auto& [bot, why] : failed) {
      state.Fail(bot, why);
      v1::LadderSubmissionReport* r = marker.add_failures();
      r->set_bot(bot);
      r->set_reason(why);
    }
    DropIfEmpty(dir, segment);
    marker.set_finished(true);
    if (absl::Status s = WriteJsonFile(SegmentFile(dir, segment), marker); !s.ok()) return Fail(s);
    ++segment;
  }
  if (StopRequested()) return 130;
  (void)state.WriteEntrants();
  (void)state.WriteLeaderboard(frozen());
  std::cout << "ladder: " << state.matches() << " rated matches; leaderboard in " << dir
            << "/leaderboard.json, records in " << LadderRecordsDir(dir) << "/segment-*\n";
  const int rc = frozen() && options.final_top > 0 ? RunFinal(options, state) : 0;
  if (frozen()) {
    // A submission that came after the last scan (while the segment ended
    // or the final played) gets its answer too: submissions are closed.
    state.Scan(/*frozen=*/true);
    (void)state.WriteEntrants();
  }
  return rc;
}

}  // namespace arena
