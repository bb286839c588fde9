#include "arena/tournament/resume.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/records/folder.h"
#include "arena/records/record_tools.h"
#include "arena/tournament/launch.h"
#include "arena/tournament/plan.h"
#include "google/protobuf/util/message_differencer.h"
#include "referee/games/registry.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// Moves `path` into the records folder's .rejected/ (never deletes it).
void Reject(const std::string& dir, const std::string& path, const std::string& why) {
  const std::string rejected = absl::StrCat(dir, "/", kRejectedDir);
  std::error_code ec;
  std::filesystem::create_directories(rejected, ec);
  const std::string to = absl::StrCat(
      rejected, "/", std::filesystem::path(path).filename().string(), ".",
      absl::ToUnixMicros(absl::Now()));
  std::filesystem::rename(path, to, ec);
  spdlog::warn("resume: {} moved to {} ({}); its match is played again", path, to,
               why);
}

// Whether `name` is a temporary file of WriteFileAtomically
// (".<file>.tmp-<pid>-<n>"), left behind when a run was killed mid-write.
bool IsStaleTempFile(const std::string& name) {
  const size_t at = name.rfind(".tmp-");
  if (name.empty() || name[0] != '.' || at == std::string::npos || at == 0) return false;
  const std::string tail = name.substr(at + 5);
  const size_t dash = tail.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == tail.size()) return false;
  for (size_t i = 0; i < tail.size(); ++i) {
    if (i != dash && !absl::ascii_isdigit(static_cast<unsigned char>(tail[i]))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<v1::TournamentConfig> ResumeConfig(const std::string& dir,
                                                  const ResumeFlags& flags) {
  auto manifest = ReadManifest(dir);
  if (!manifest.ok()) return manifest.status();
  v1::TournamentConfig c = manifest->config();
  c.set_records_dir(dir);
  if (c.secret_file().empty() && c.seed() == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot resume ", dir, ": its secret was kept in memory only (the "
        "matches' seeds cannot be made again); run tournaments with "
        "--secret_file FILE to be able to resume them"));
  }
  if (!flags.shard.empty() &&
      (flags.shard_index != c.shard_index() || flags.shard_count != c.shard_count())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--resume ", dir, " --shard ", flags.shard, ": that folder holds shard ",
        c.shard_index(), "/", c.shard_count(), " (0/0: unsharded); never mixed"));
  }
  if (flags.config) {
    auto given = flags.config();
    if (!given.ok()) return given.status();
    v1::TournamentConfig x = c, y = *given;
    for (v1::TournamentConfig* z : {&x, &y}) {
      z->clear_jobs();
      z->clear_records_dir();
      z->clear_connect_timeout_ms();
      z->clear_max_restarts();
      z->clear_on_bot_failure();
      z->clear_standings_every();
      for (auto& b : *z->mutable_bots()) b.clear_token();
      if (z->seats() == 0) {
        if (const GameInfo* info = FindGameInfo(z->game())) z->set_seats(info->default_seats);
      }
      if (z->fault_policy() == v1::FAULT_POLICY_UNSPECIFIED) {
        z->set_fault_policy(v1::FAULT_POLICY_FORFEIT);
      }
      if (z->auto_moves() == v1::AUTO_MOVES_UNSPECIFIED) {
        z->set_auto_moves(v1::AUTO_MOVES_SINGLE);
      }
    }
    google::protobuf::util::MessageDifferencer diff;
    std::string report;
    diff.ReportDifferencesToString(&report);
    if (!diff.Compare(x, y)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--resume ", dir, ": the flags describe another tournament than its "
          "manifest.json (never mixed): ", report));
    }
  }
  for (auto& b : *c.mutable_bots()) {
    auto token = NewToken();
    if (!token.ok()) return token.status();
    b.set_token(*token);
  }
  return c;
}

absl::StatusOr<ResumedMatches> ResumeFromRecords(
    const v1::TournamentConfig& config, const TournamentSecret& secret,
    const Schedule& schedule, const std::vector<int>& mine, int planned,
    StandingsAccumulator* standings,
    const std::function<bool(const MatchSummary&)>& on_recorded) {
  const std::string tournament_id = secret.TournamentId();
  const bool duplicate = config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  ResumedMatches out;
  const std::string dir = config.records_dir();
  auto manifest = ReadManifest(dir);
  if (!manifest.ok()) return manifest.status();
  if (manifest->tournament_id() != tournament_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot resume ", dir, ": its tournament id is ", manifest->tournament_id(),
        ", this secret's is ", tournament_id,
        " (another secret, or none was kept: give the tournament's --secret_file)"));
  }
  if (manifest->config().shard_index() != config.shard_index() ||
      manifest->config().shard_count() != config.shard_count()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot resume ", dir, ": it holds shard ", manifest->config().shard_index(),
        "/", manifest->config().shard_count(), ", this run is shard ",
        config.shard_index(), "/", config.shard_count(), " (0/0: unsharded)"));
  }
  if (manifest->matches_planned() != planned) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot resume ", dir, ": it plans ", manifest->matches_planned(),
        " matches, this config ", planned));
  }
  std::error_code ec;
  // Half-written summaries of a run that was killed (the files they were
  // to replace are whole): removed, they are written again.
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file(ec) || !IsStaleTempFile(name)) continue;
    std::filesystem::remove(e.path(), ec);
    spdlog::info("resume: removed {}, a temporary file of a run that was stopped", name);
  }
  // Unfinished records: their matches are played again from the start.
  const std::string hidden = absl::StrCat(dir, "/", kInProgressDir);
  for (const auto& e : std::filesystem::directory_iterator(hidden, ec)) {
    if (absl::EndsWith(e.path().string(), ".sent")) {
      // A match's sent log (referee/match/sent_log.h): only for its resyncs.
      std::filesystem::remove(e.path(), ec);
      continue;
    }
    Reject(dir, e.path().string(), "unfinished");
  }
  for (int i : mine) {
    const ScheduledMatch& sm = schedule.matches[i];
    const std::string id = MatchId(config.game(), tournament_id, i);
    // A record of any format (a folder holds one kind, but resume takes
    // each).
    const std::string path = FindRecordFile(dir, id);
    if (path.empty()) {
      out.todo.push_back(i);
      continue;
    }
    // Only a regular file counts (a FIFO or link named like the record
    // is moved aside, never opened or followed, and the match replayed).
    absl::Status regular = CheckRegularFile(path, /*follow_symlink=*/false);
    auto lines = regular.ok() ? ReadRecordFile(path)
                              : absl::StatusOr<std::vector<v1::RecordLine>>(regular);
    absl::Status ok = lines.ok() ? VerifyRecord(*lines, path) : lines.status();
    if (ok.ok()) {
      const v1::RecordHeader& h = lines->front().header();
      std::vector<std::string> bots;
      for (int b : sm.seating) bots.push_back(config.bots(b).name());
      const uint64_t seed = secret.ForMatch(static_cast<uint64_t>(sm.deal), id).seed;
      if (h.match_id() != id || h.seed() != seed ||
          std::vector<std::string>(h.seat_bots().begin(), h.seat_bots().end()) != bots ||
          h.deal_group() != DealGroupId(config.game(), tournament_id, duplicate, sm, id)) {
        ok = absl::FailedPreconditionError("not the scheduled match");
      }
    }
    absl::StatusOr<MatchSummary> m =
        ok.ok() ? SummarizeRecord(*lines, path) : absl::StatusOr<MatchSummary>(ok);
    if (!m.ok()) {
      Reject(dir, path, std::string(m.status().message()));
      out.todo.push_back(i);
      continue;
    }
    if (absl::Status s = standings->Add(*m); !s.ok()) {
      Reject(dir, path, std::string(s.message()));
      out.todo.push_back(i);
      continue;
    }
    if (on_recorded && !on_recorded(*m)) out.stop = true;
  }
  spdlog::info("resume: {} of {} matches recorded, {} to play", mine.size() - out.todo.size(),
               mine.size(), out.todo.size());
  return out;
}

}  // namespace arena
