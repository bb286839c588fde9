// LiveSite's pages of what it has read: the index, the match list, the
// standings, and finished matches' replays (arena/live/live_site.h).
#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "arena/live/live_site.h"
#include "arena/views/html.h"
#include "arena/views/replay.h"
#include "referee/records/record.h"

namespace arena {

std::string LiveSite::IndexPage() const {
  std::string standings, schedule, init, matches = "[";
  {
    absl::MutexLock lock(&mu_);
    standings = standings_json_;
    schedule = schedule_json_;
    const size_t total = entries_.size();
    const size_t from =
        total - std::min<size_t>(total, static_cast<size_t>(std::max(0, options_.index_entries)));
    for (size_t i = from; i < total; ++i) {
      absl::StrAppend(&matches, i > from ? "," : "", entries_[i]);
    }
    init = absl::StrCat("window.arenaLiveInit = {\"total\":", total,
                        ",\"summary\":", ScriptSafe(summary_json_), "};\n");
  }
  matches += "]";
  return arena::IndexPage(standings, matches, init + LiveIndexScript(), schedule);
}

std::string LiveSite::standings_json() const {
  absl::MutexLock lock(&mu_);
  return standings_json_;
}

std::string LiveSite::MatchesJson(int64_t from, int64_t to) const {
  absl::MutexLock lock(&mu_);
  const int64_t total = static_cast<int64_t>(entries_.size());
  from = std::clamp<int64_t>(from, 0, total);
  to = std::clamp<int64_t>(to, from, total);
  std::string out = "[";
  for (int64_t i = from; i < to; ++i) absl::StrAppend(&out, i > from ? "," : "", entries_[i]);
  return out + "]";
}

absl::StatusOr<std::string> LiveSite::ReplayPage(const std::string& page_name) const {
  std::string path, standings;
  {
    absl::MutexLock lock(&mu_);
    auto it = finished_.find(page_name);
    if (it == finished_.end()) return absl::NotFoundError("no such match");
    path = it->second;
    standings = replay_standings_;
  }
  auto lines = ReadRecordFile(path);
  if (!lines.ok()) return lines.status();
  ReplayPageBuilder::Options po;
  po.standings_json = standings;
  po.chunk_url = absl::StrCat(page_name, ".steps.json?chunk={k}");
  po.want_chunk = [](int) { return false; };  // fetched on their own
  ReplayPageBuilder builder(std::move(po));
  ReplayOptions ro;
  ro.source = path;
  ro.notes = options_.show_notes;
  if (absl::Status s = StreamReplay(*lines, ro, builder); !s.ok()) return s;
  return builder.page();
}

absl::StatusOr<std::string> LiveSite::ReplayStepsChunk(const std::string& page_name,
                                                       int chunk) const {
  std::string path;
  {
    absl::MutexLock lock(&mu_);
    auto it = finished_.find(page_name);
    if (it == finished_.end()) return absl::NotFoundError("no such match");
    path = it->second;
  }
  if (chunk < 0) return absl::NotFoundError("no such chunk");
  auto lines = ReadRecordFile(path);
  if (!lines.ok()) return lines.status();
  std::string out;
  ReplayPageBuilder::Options po;
  po.want_chunk = [chunk](int k) { return k == chunk; };
  po.on_chunk = [&](int k, const std::string& data) {
    if (k == chunk) out = ReplayChunkJson(k, data);
    return absl::OkStatus();
  };
  ReplayPageBuilder builder(std::move(po));
  ReplayOptions ro;
  ro.source = path;
  ro.notes = options_.show_notes;
  if (absl::Status s = StreamReplay(*lines, ro, builder); !s.ok()) return s;
  // A short match's one chunk is in its page, not handed over.
  if (out.empty()) return absl::NotFoundError("no such chunk");
  return out;
}

std::string LiveSite::FinishedPage(const std::string& match_id) const {
  absl::MutexLock lock(&mu_);
  auto it = page_of_id_.find(match_id);
  return it == page_of_id_.end() ? "" : it->second;
}

bool LiveSite::Holds(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  return live_.count(name) > 0 || page_of_id_.count(name) > 0 || finished_.count(name) > 0;
}

}  // namespace arena
