#include "arena/cli/ladder_state.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/common/json_file.h"
#include "arena/tournament/config.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace fs = std::filesystem;

std::string LadderSubmissionsDir(const std::string& dir) {
  return absl::StrCat(dir, "/submissions");
}
std::string LadderRecordsDir(const std::string& dir) { return absl::StrCat(dir, "/records"); }
std::string LadderSegmentDir(const std::string& dir, int segment) {
  return absl::StrFormat("%s/records/segment-%06d", dir, segment);
}

std::vector<std::string> LadderSegments(const std::string& dir) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(LadderRecordsDir(dir), ec)) {
    const std::string name = e.path().filename().string();
    int n = 0;
    if (!absl::StartsWith(name, "segment-") || !absl::SimpleAtoi(name.substr(8), &n)) continue;
    found.emplace_back(n, e.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

namespace {

// Why `name` cannot be an entrant's ("" if it can): it names files too.
std::string EntrantNameProblem(const std::string& name) {
  if (IsValidBotName(name) && name.size() <= 56) return "";
  return absl::StrCat("invalid entrant name '", name,
                      "': 1 to 56 letters, digits, '-', '_' or '.'");
}

}  // namespace

absl::StatusOr<std::string> WriteLadderSubmission(const std::string& dir,
                                                  const v1::LadderSubmission& s) {
  // Checked before the name goes into a file name (a '/' would write it
  // elsewhere); the ladder checks again whatever file it reads.
  if (std::string p = EntrantNameProblem(s.entrant()); !p.empty()) {
    return absl::InvalidArgumentError(p);
  }
  const std::string sub = LadderSubmissionsDir(dir);
  if (absl::Status st = MakePublicDirs(sub); !st.ok()) return st;
  // Named by time, so that name order is arrival order; a counter for two
  // in one microsecond.
  const std::string stamp = absl::FormatTime("%Y%m%dT%H%M%E6S", absl::Now(), absl::UTCTimeZone());
  std::string path;
  for (int i = 0;; ++i) {
    path = absl::StrCat(sub, "/", stamp, "-", i, "-", s.entrant(), ".json");
    if (!fs::exists(path)) break;
  }
  if (absl::Status st = WriteJsonFile(path, s); !st.ok()) return st;
  return path;
}

namespace {

// Whether the command's program can be run: a path (with '/') must be an
// executable file; a bare name must be one on PATH.
std::string ProgramProblem(const std::string& command) {
  std::vector<std::string> words =
      absl::StrSplit(command, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (words.empty()) return "the command is empty";
  const std::string& p = words[0];
  auto runnable = [](const std::string& f) {
    std::error_code ec;
    return fs::is_regular_file(f, ec) && ::access(f.c_str(), X_OK) == 0;
  };
  if (absl::StrContains(p, '/')) {
    if (!fs::exists(p)) return absl::StrCat("the program ", p, " does not exist");
    if (!runnable(p)) return absl::StrCat("the program ", p, " is not an executable file");
    return "";
  }
  const char* path = ::getenv("PATH");
  for (absl::string_view d : absl::StrSplit(path ? path : "", ':', absl::SkipEmpty())) {
    if (runnable(absl::StrCat(d, "/", p))) return "";
  }
  return absl::StrCat("the program ", p, " is not on PATH");
}

}  // namespace

LadderState::LadderState(std::string dir, std::string game, int seats)
    : dir_(std::move(dir)), game_(std::move(game)), field_([&] {
        LadderFieldOptions o;
        o.seats = seats;
        return o;
      }()) {}

int LadderState::VersionOf(const std::string& bot) const {
  auto it = by_bot_.find(bot);
  return it == by_bot_.end() ? -1 : it->second;
}

std::vector<int> LadderState::Active() const {
  std::vector<int> out;
  for (size_t i = 0; i < field_.versions().size(); ++i) {
    if (field_.versions()[i].active) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string LadderState::Check(const v1::LadderSubmission& s, bool frozen) const {
  if (frozen) return "submissions are closed (the ladder is frozen)";
  if (std::string p = EntrantNameProblem(s.entrant()); !p.empty()) return p;
  auto e = entrant_index_.find(s.entrant());
  const int active = e == entrant_index_.end() ? -1 : field_.ActiveVersion(e->second);
  switch (s.action()) {
    case v1::LADDER_ACTION_SUBMIT: {
      if (std::string p = ProgramProblem(s.command()); !p.empty()) return p;
      if (active >= 0 && versions_[active].command == s.command()) {
        return absl::StrCat("a duplicate of ", versions_[active].bot, " (the same command)");
      }
      return "";
    }
    case v1::LADDER_ACTION_WITHDRAW:
      if (active < 0) return absl::StrCat("entrant '", s.entrant(), "' has no version on the ladder");
      return "";
    default:
      return "no action (submit or withdraw)";
  }
}

bool LadderState::Scan(bool frozen, const std::vector<std::string>* only) {
  std::vector<std::string> names;
  if (only != nullptr) {
    names = *only;
  } else {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(LadderSubmissionsDir(dir_), ec)) {
      const std::string name = e.path().filename().string();
      if (absl::EndsWith(name, ".json") && !absl::StartsWith(name, ".")) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
  }
  bool changed = false;
  for (const std::string& name : names) {
    if (!seen_.insert(name).second) continue;
    taken_.push_back(name);
    v1::LadderSubmission s;
    v1::LadderSubmissionReport* r = entrants_.add_submissions();
    r->set_file(name);
    std::string why;
    if (absl::Status st = ReadJsonFile(absl::StrCat(LadderSubmissionsDir(dir_), "/", name), &s);
        !st.ok()) {
      why = absl::StrCat("malformed submission file: ", st.message());
    } else {
      r->set_entrant(s.entrant());
      r->set_action(s.action());
      why = Check(s, frozen);
    }
    if (!why.empty()) {
      r->set_state(v1::SUBMISSION_STATE_REJECTED);
      r->set_reason(why);
      spdlog::error("ladder: submission {} rejected: {}", name, why);
      continue;
    }
    r->set_state(v1::SUBMISSION_STATE_ACCEPTED);
    changed = true;
    auto [it, added] = entrant_index_.emplace(s.entrant(), static_cast<int>(entrant_index_.size()));
    if (s.action() == v1::LADDER_ACTION_WITHDRAW) {
      const int v = field_.ActiveVersion(it->second);
      entrants_.mutable_submissions(versions_[v].report)->set_retired(true);
      field_.Withdraw(it->second);
      spdlog::info("ladder: {} withdrawn ({} retired)", s.entrant(), versions_[v].bot);
      continue;
    }
    const int before = field_.ActiveVersion(it->second);
    if (before >= 0) entrants_.mutable_submissions(versions_[before].report)->set_retired(true);
    const int v = field_.Submit(it->second);
    Version ver;
    ver.entrant = s.entrant();
    ver.number = field_.versions()[v].number;
    ver.bot = absl::StrCat(s.entrant(), ".v", ver.number);
    ver.command = s.command();
    ver.report = entrants_.submissions_size() - 1;
    ver.replaced = before;
    r->set_version(ver.number);
    r->set_bot(ver.bot);
    by_bot_[ver.bot] = v;
    versions_.resize(field_.versions().size());
    versions_[v] = std::move(ver);
    spdlog::info("ladder: {} accepted as {}{}", name, versions_[v].bot,
                 before >= 0 ? absl::StrCat(" (", versions_[before].bot, " retired)") : "");
  }
  return changed;
}

void LadderState::Fail(const std::string& bot, const std::string& reason) {
  const int v = VersionOf(bot);
  if (v < 0) return;
  v1::LadderSubmissionReport* r = entrants_.mutable_submissions(versions_[v].report);
  r->set_state(v1::SUBMISSION_STATE_REJECTED);
  r->set_reason(absl::StrCat("its bot failed as a program: ", reason));
  r->set_retired(true);
  const int e = entrant_index_[versions_[v].entrant];
  spdlog::error("ladder: {} rejected: its bot failed as a program: {}", bot, reason);
  if (field_.ActiveVersion(e) != v) return;
  field_.Withdraw(e);
  const int before = versions_[v].replaced;
  if (before >= 0) {
    field_.Reinstate(e, before);
    entrants_.mutable_submissions(versions_[before].report)->set_retired(false);
    spdlog::info("ladder: {} plays again ({} was refused)", versions_[before].bot, bot);
  }
}

void LadderState::Apply(const MatchSummary& m) {
  std::vector<int> seating;
  for (const std::string& b : m.seat_bots) {
    const int v = VersionOf(b);
    if (v < 0) {
      spdlog::warn("ladder: match {} has bot {}, no version of the ladder; not rated",
                   m.match_id, b);
      return;
    }
    seating.push_back(v);
  }
  if (m.placements.size() != seating.size()) return;
  field_.Record(seating, m.placements);
  ++matches_;
  if (on_rated_) on_rated_(seating);
}

void LadderState::ReplaySegment(const std::string& seg) {
  RecordListing listing = ListRecordFiles(seg);
  for (const std::string& f : listing.files) {
    if (absl::EndsWith(f, ".part")) continue;
    auto lines = ReadRecordFileWithoutEvents(f);
    if (!lines.ok()) {
      spdlog::warn("ladder: {} not rated: {}", f, lines.status().ToString());
      continue;
    }
    auto m = SummarizeRecord(*lines, f);
    if (!m.ok()) {
      spdlog::warn("ladder: {} not rated: {}", f, m.status().ToString());
      continue;
    }
    Apply(*m);
  }
}

absl::Status LadderState::WriteLeaderboard(bool frozen) const {
  v1::LadderLeaderboard lb;
  lb.set_game(game_);
  lb.set_matches(matches_);
  lb.set_frozen(frozen);
  lb.set_ranked_by("mu - 3 sigma (a conservative bound: a version earns its place by playing)");
  int rank = 0;
  for (int v : field_.Leaderboard()) {
    const auto& fv = field_.versions()[v];
    v1::LadderRow* row = lb.add_rows();
    row->set_rank(++rank);
    row->set_entrant(versions_[v].entrant);
    row->set_version(fv.number);
    row->set_bot(versions_[v].bot);
    row->set_mu(fv.rating.mu);
    row->set_sigma(fv.rating.sigma);
    row->set_conservative(ConservativeRating(fv.rating));
    row->set_matches(fv.matches);
  }
  return WriteJsonFile(absl::StrCat(dir_, "/leaderboard.json"), lb);
}

absl::Status LadderState::WriteEntrants() const {
  return WriteJsonFile(absl::StrCat(dir_, "/entrants.json"), entrants_);
}

}  // namespace arena
