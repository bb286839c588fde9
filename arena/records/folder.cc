#include "arena/records/folder.h"

#include "absl/strings/str_cat.h"
#include "arena/common/json_file.h"
#include "referee/games/registry.h"

namespace arena {

absl::Status MakeRecordsDir(const std::string& dir) {
  // Published like the site and standings it holds (the records in it are
  // 0600, the folder of matches in progress 0700, the bots' logs 0700).
  return MakePublicDirs(dir);
}

absl::StatusOr<v1::TournamentManifest> ReadManifest(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/manifest.json");
  v1::TournamentManifest m;
  if (absl::Status s = ReadJsonFile(path, &m); !s.ok()) {
    return absl::IsNotFound(s) ? absl::NotFoundError(absl::StrCat("no manifest: ", s.message()))
                               : s;
  }
  if (m.format_version() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": manifest format ", m.format_version(), " is not supported (1 is)"));
  }
  return m;
}
StandingsContext StandingsContextFor(const v1::TournamentConfig& config,
                                     int matches_planned) {
  StandingsContext ctx;
  ctx.game = config.game();
  ctx.options = {config.options().begin(), config.options().end()};
  ctx.seats = config.seats();
  if (const GameInfo* info = FindGameInfo(config.game()); info != nullptr) {
    ctx.higher_score_wins = info->higher_score_wins;
    if (ctx.seats == 0) ctx.seats = info->default_seats;
  }
  for (const auto& b : config.bots()) ctx.bots.push_back(b.name());
  // An adaptive schedule plans round by round: its manifest holds the
  // budget, and what it played is what it planned. So does an open-ended
  // run (a ladder's segment), whose manifest says -1.
  ctx.matches_planned = config.schedule() == v1::SCHEDULE_KIND_ADAPTIVE || matches_planned < 0
                            ? -1
                            : matches_planned;
  ctx.deal_mode = config.deal_mode() == v1::DEAL_MODE_UNSPECIFIED
                      ? v1::DEAL_MODE_DUPLICATE
                      : config.deal_mode();
  return ctx;
}
absl::Status FolderContext::Init() {
  auto manifest = ReadManifest(dir_);
  if (manifest.ok()) {
    ctx_ = StandingsContextFor(manifest->config(), manifest->matches_planned());
    from_manifest_ = true;
    return absl::OkStatus();
  }
  if (!absl::IsNotFound(manifest.status())) return manifest.status();
  ctx_.deal_mode = v1::DEAL_MODE_INDEPENDENT;
  return absl::OkStatus();
}

void FolderContext::See(const MatchSummary& m, const std::vector<v1::RecordLine>& lines) {
  ++seen_;
  if (from_manifest_) return;
  if (!have_header_ && !lines.empty() && lines.front().has_header()) {
    const auto& h = lines.front().header();
    ctx_.game = h.game();
    ctx_.options = {h.options().begin(), h.options().end()};
    ctx_.seats = h.num_seats();
    if (lines.back().has_result()) {
      ctx_.higher_score_wins = lines.back().result().higher_score_wins();
    }
    have_header_ = true;
  }
  if (!m.deal_group.empty() && m.deal_group != m.match_id) {
    ctx_.deal_mode = v1::DEAL_MODE_DUPLICATE;
  }
}

absl::StatusOr<StandingsContext> FolderContext::Get() const {
  if (!from_manifest_ && seen_ == 0) {
    return absl::NotFoundError(absl::StrCat("no records in ", dir_));
  }
  return ctx_;
}
}  // namespace arena
