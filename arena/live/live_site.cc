#include "arena/live/live_site.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/views/html.h"
#include "arena/views/replay.h"
#include "referee/clock/mono_clock.h"
#include "referee/records/json_writer.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// How long a live match is followed after its page or stream last asked.
constexpr absl::Duration kWatchedFor = absl::Seconds(30);
// Live match ids listed in an update at most.
constexpr int kMaxLiveListed = 50;
// A match's seats are read from its .part up to this size (its header is
// its first line; a bigger .part is not read again for them).
constexpr int64_t kSeatsReadBytes = 256 * 1024;

// The seats' bots of the header of the in-progress record at `path`, or
// none (not written yet, too big to read for them, unreadable).
std::vector<std::string> SeatsOfPart(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
      st.st_size > kSeatsReadBytes) {
    return {};
  }
  auto lines = ReadRecordFileWithoutEvents(path);
  if (!lines.ok() || lines->empty() || !(*lines)[0].has_header()) return {};
  const auto& bots = (*lines)[0].header().seat_bots();
  return std::vector<std::string>(bots.begin(), bots.end());
}

bool SameTime(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// A folder's listing can be skipped when its modification time is the one
// of the last listing, and that is old enough: the kernel stamps it from a
// coarse clock, so two entries made within one tick leave one time, and a
// listing between them would otherwise miss the second for good.
bool Unchanged(const timespec& now, const timespec& listed) {
  if (!SameTime(now, listed)) return false;
  timespec wall;
  ::clock_gettime(CLOCK_REALTIME, &wall);
  return wall.tv_sec - now.tv_sec >= 2;
}

// The folder's modification time (zero if it cannot be read).
timespec MTime(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return timespec{};
  return st.st_mtim;
}

// Whether `name` in the open folder `dirfd` is a record file not in `seen`:
// named like one, and a regular file by lstat (a link is skipped, never
// followed).
bool IsNewRecordFile(int dirfd, absl::string_view name,
                     const absl::flat_hash_set<std::string>& seen) {
  if (name.empty() || name[0] == '.' || seen.contains(name)) return false;
  const std::string n(name);
  struct stat st;
  return IsRecordFileName(n) && ::fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(st.st_mode);
}

// The record files in `dir` not in `seen`, regular files only (by lstat,
// relative to the open folder: a link is skipped, never followed), in name
// order. Only a new name is looked at: a folder of 20,000 records is read
// with its entries' names alone on every whole listing, each looked up in
// place (no copy of a name already seen).
std::vector<std::string> NewRecordFiles(const std::string& dir,
                                        const absl::flat_hash_set<std::string>& seen) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    const absl::string_view entry(e->d_name);
    if (IsNewRecordFile(::dirfd(d), entry, seen)) out.emplace_back(entry);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// The same among `names` (told by the kernel: see LiveSite::Folder).
std::vector<std::string> NewRecordFilesAmong(const std::string& dir,
                                             std::vector<std::string> names,
                                             const absl::flat_hash_set<std::string>& seen) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<std::string> out;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  for (std::string& n : names) {
    if (IsNewRecordFile(fd, n, seen)) out.push_back(std::move(n));
  }
  ::close(fd);
  return out;
}

// A match id from a record's or a .part's file name ("<id>.<suffix>").
std::string IdOfFile(const std::string& name) { return name.substr(0, name.find('.')); }

}  // namespace

absl::StatusOr<std::string> SpectatorJson(const std::vector<v1::RecordLine>& lines,
                                          const std::string& source) {
  ReplayOptions o;
  o.spectator = true;
  o.source = source;
  // A record in progress has no result yet: re-simulated as far as it goes
  // (a step beyond any match's end).
  o.step = int64_t{1} << 60;
  o.last_steps = kLiveSpectatorSteps;
  auto replay = BuildReplay(lines, o);
  if (!replay.ok()) return replay.status();
  // The events are in words; the deck's catalogue is not needed to show them.
  replay->clear_cards();
  return MessageJson(*replay);
}

struct LiveSite::Folder {
  explicit Folder(std::string p) : path(std::move(p)), context(path) {}
  std::string path;
  timespec mtime{};       // when last listed whole
  timespec polled_mtime{};  // at the last poll
  timespec parts_mtime{};  // of its .inprogress folder, when last listed
  timespec entrants_mtime{};
  absl::flat_hash_set<std::string> seen;  // record file names read
  FolderContext context;
  bool have_context = false;
  // Its inotify watch (-1: none): names that arrived since the last poll
  // (moved in or closed after writing), whether anything changed in it
  // then, and whether the kernel lost track (an overflow, the folder gone).
  int watch = -1;
  std::vector<std::string> arrived;
  bool notified = false;
  bool lost_track = false;
  absl::Time listed_at = absl::InfinitePast();  // its last whole listing

  // Whether a poll must read the folder whole (for records, or in DIR for
  // shard folders, each with its own time and modification time of that
  // last whole read) rather than only what the kernel said arrived: when
  // `forced`, without a watch, when the kernel lost track, when the folder
  // changed since the last poll with no word from the kernel (another
  // machine writing into a network file system), and every `every`; but,
  // unless forced or lost track, not when it has not changed since it was
  // last read whole (its time the same, and old enough for a coarse
  // clock: Unchanged).
  bool MustReadWhole(bool forced, timespec now, absl::Time wall, absl::Time read_at,
                     timespec read_mtime, absl::Duration every) const {
    if (forced || lost_track) return true;
    const bool due = watch < 0 || (!SameTime(now, polled_mtime) && !notified) ||
                     wall - read_at >= every;
    return due && !Unchanged(now, read_mtime);
  }
};

// Every field under LiveSite::mu_.
struct LiveSite::LiveMatch {
  std::string part_path;
  int64_t size = -1;  // of the .part when its newest view was read
  timespec mtime{};
  absl::Time last_asked = absl::InfinitePast();
  // Spectator's replays as they were seen, oldest first.
  std::deque<std::pair<absl::Time, std::shared_ptr<const std::string>>> views;
  absl::Time ended_at = absl::InfiniteFuture();  // when its finished record was seen
  // Its header's seats' bots (empty until read; public, as the standings
  // name them), read from its .part while that is small (kSeatsReadBytes).
  std::vector<std::string> seats;
};

LiveSite::LiveSite(std::string dir, LiveOptions options)
    : dir_(std::move(dir)), options_(std::move(options)) {
  if (options_.notify) notify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (options_.notify && notify_fd_ < 0) {
    spdlog::info("live site: no inotify ({}); {} is listed whole every poll",
                 std::strerror(errno), dir_);
  }
}

LiveSite::~LiveSite() {
  if (notify_fd_ >= 0) ::close(notify_fd_);
}

void LiveSite::ReadNotifications() {
  if (notify_fd_ < 0) return;
  alignas(inotify_event) char buf[65536];
  for (;;) {
    const ssize_t n = ::read(notify_fd_, buf, sizeof buf);
    if (n <= 0) return;  // EAGAIN: nothing more
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      if (e->mask & IN_Q_OVERFLOW) {
        for (auto& f : folders_) f->lost_track = true;
        continue;
      }
      for (auto& f : folders_) {
        if (f->watch != e->wd) continue;
        f->notified = true;
        if ((e->mask & IN_ISDIR) && f->path == dir_) folders_notified_ = true;
        if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
          f->lost_track = true;
          f->watch = -1;
        } else if ((e->mask & (IN_MOVED_TO | IN_CLOSE_WRITE)) && e->len > 0) {
          f->arrived.emplace_back(e->name);
        }
        break;
      }
    }
  }
}

int64_t LiveSite::version() const {
  absl::MutexLock lock(&mu_);
  return version_;
}

int64_t LiveSite::total_matches() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(entries_.size());
}

void LiveSite::ScanFolders() {
  // DIR itself, then each folder directly in it that holds a manifest.json
  // (a shard's), found as they appear: DIR is read whole when a folder was
  // made or moved into it (inotify), or it changed with no word from the
  // kernel, or every LiveOptions::full_listing; a folder seen without its
  // manifest yet is looked at again on every poll.
  if (folders_.empty()) folders_.push_back(std::make_unique<Folder>(dir_));
  const Folder& root = *folders_[0];
  const timespec now = MTime(dir_);
  const absl::Time wall = MonoNow();  // for intervals only
  const bool whole =
      root.MustReadWhole(last_scan_ == absl::InfinitePast() || folders_notified_, now, wall,
                         last_scan_, scan_mtime_, options_.full_listing);
  folders_notified_ = false;
  std::vector<std::string> subs;
  if (whole) {
    last_scan_ = wall;
    scan_mtime_ = now;
    if (DIR* d = ::opendir(dir_.c_str())) {
      while (dirent* e = ::readdir(d)) {
        if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;  // records: no lstat each
        const std::string name = e->d_name;
        if (name.empty() || name[0] == '.') continue;
        subs.push_back(absl::StrCat(dir_, "/", name));
      }
      ::closedir(d);
    }
  }
  subs.insert(subs.end(), unmanifested_.begin(), unmanifested_.end());
  if (subs.empty()) return;
  std::set<std::string> known;
  for (const auto& f : folders_) known.insert(f->path);
  std::set<std::string> found, waiting;
  for (const std::string& sub : subs) {
    struct stat st;
    // lstat: a link to a folder elsewhere is not followed.
    if (known.count(sub) || ::lstat(sub.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    struct stat mst;
    const std::string manifest = absl::StrCat(sub, "/manifest.json");
    if (::lstat(manifest.c_str(), &mst) == 0 && S_ISREG(mst.st_mode)) {
      found.insert(sub);
    } else {
      waiting.insert(sub);
    }
  }
  unmanifested_.assign(waiting.begin(), waiting.end());
  for (const auto& sub : found) folders_.push_back(std::make_unique<Folder>(sub));
}

bool LiveSite::ReadFolder(Folder* f, bool last) {
  // The folder's context: from its manifest once there is one (a tournament
  // writes it first), else learnt from its records.
  if (!f->have_context) {
    f->have_context = f->context.Init().ok();
  } else if (!f->context.from_manifest()) {
    struct stat st;
    if (::lstat(absl::StrCat(f->path, "/manifest.json").c_str(), &st) == 0) {
      FolderContext fresh(f->path);
      if (fresh.Init().ok() && fresh.from_manifest()) f->context = std::move(fresh);
    }
  }
  // entrants.json (restarts, withdrawals) counts in the standings too.
  const timespec entrants = MTime(absl::StrCat(f->path, "/", kEntrantsFile));
  if (!SameTime(entrants, f->entrants_mtime)) {
    f->entrants_mtime = entrants;
    standings_stale_ = true;
  }
  // Watched before it is first listed, so that nothing lands unseen between.
  if (notify_fd_ >= 0 && f->watch < 0) {
    f->watch = ::inotify_add_watch(
        notify_fd_, f->path.c_str(),
        IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF |
            IN_MOVE_SELF | IN_ONLYDIR | (f->path == dir_ ? 0 : IN_DONT_FOLLOW));
    f->lost_track = true;  // listed whole below
  }
  const timespec now = MTime(f->path);
  const absl::Time wall = MonoNow();  // for intervals only
  const bool whole =
      f->MustReadWhole(last, now, wall, f->listed_at, f->mtime, options_.full_listing);
  std::vector<std::string> arrived;
  arrived.swap(f->arrived);
  f->notified = false;
  f->polled_mtime = now;
  if (whole) {
    f->lost_track = false;
    f->listed_at = wall;
    f->mtime = now;
  }
  // The records this process wrote into this folder, as handed over (Offer):
  // not read back (a name the listing below already gave is not taken).
  bool changed = false;
  std::vector<std::pair<std::string, std::vector<v1::RecordLine>>> offered;
  {
    absl::MutexLock lock(&offer_mu_);
    auto& mine = offered_[f->path];
    offered.swap(mine);
  }
  for (auto& [name, lines] : offered) {
    if (!f->seen.insert(name).second) continue;
    AddRecord(f, name, std::move(lines));
    changed = true;
  }
  if (!whole && arrived.empty()) return changed;
  for (const std::string& name : whole ? NewRecordFiles(f->path, f->seen)
                                       : NewRecordFilesAmong(f->path, std::move(arrived),
                                                             f->seen)) {
    f->seen.insert(name);
    changed = true;
    // The events are not needed for the list and the standings (a replay
    // page reads the record whole).
    AddRecord(f, name, ReadRecordFileWithoutEvents(absl::StrCat(f->path, "/", name)));
  }
  return changed;
}

void LiveSite::Offer(const std::string& path, std::vector<v1::RecordLine> lines) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return;
  absl::MutexLock lock(&offer_mu_);
  offered_[path.substr(0, slash)].emplace_back(path.substr(slash + 1), std::move(lines));
}

void LiveSite::AddRecord(Folder* f, const std::string& name,
                         absl::StatusOr<std::vector<v1::RecordLine>> lines) {
  const std::string path = absl::StrCat(f->path, "/", name);
  std::string entry;
  std::string page;
  const std::string id = IdOfFile(name);
  if (!lines.ok() || lines->empty() || !lines->front().has_header() ||
      !lines->back().has_result()) {
    entry = MatchErrorJson(name, lines.ok() ? "not a whole record"
                                            : std::string(lines.status().message()));
    Tally(nullptr);
  } else {
    auto summary = SummarizeRecord(*lines, path);
    // Without think times: a record handed over by its writer (Offer) holds
    // only its faults' actions, so the live standings leave them out for
    // every record alike (standings.json and arena html have them).
    if (summary.ok()) summary->think.clear();
    if (summary.ok() && !ids_.insert(summary->match_id).second) {
      spdlog::warn("{}: match {} is in another folder too; counted once", path,
                   summary->match_id);
      return;
    }
    // A record the standings refuse (seats, placements and scores that do
    // not agree) counts as one that does not verify, so that the index's
    // count of the records the standings should hold is theirs.
    const bool added = summary.ok() && all_.Add(*summary).ok();
    Tally(added ? &*summary : nullptr);
    if (added) {
      f->context.See(*summary, *lines);
      standings_stale_ = true;
      standings_final_ = false;
      last_record_ = MonoNow();
    }
    // The lines are not needed after this: moved, not copied.
    v1::Replay r;
    r.mutable_header()->Swap(lines->front().mutable_header());
    r.mutable_result()->Swap(lines->back().mutable_result());
    for (auto& l : *lines) {
      if (l.has_forfeit()) r.mutable_forfeit()->Swap(l.mutable_forfeit());
    }
    page = PageName(r.header().match_id());
    entry = MatchEntryJson(name, absl::StrCat("replays/", page, ".html"), r);
  }
  absl::MutexLock lock(&mu_);
  entries_.push_back(std::move(entry));
  if (!page.empty()) {
    finished_[page] = path;
    page_of_id_[id] = page;
    if (auto it = live_.find(id); it != live_.end() &&
                                  it->second->ended_at == absl::InfiniteFuture()) {
      it->second->ended_at = MonoNow();
    }
  }
}

bool LiveSite::ReadLiveMatches(Folder* f) {
  const std::string parts_dir = absl::StrCat(f->path, "/", kInProgressDir);
  bool changed = false;
  const timespec now = MTime(parts_dir);
  if (!Unchanged(now, f->parts_mtime)) {
    f->parts_mtime = now;
    std::set<std::string> ids;
    for (const auto& path : ListRecordFiles(parts_dir, /*part_only=*/true).files) {
      const std::string name = path.substr(path.rfind('/') + 1);
      if (absl::EndsWith(name, ".finishing.part")) continue;
      const std::string id = IdOfFile(name);
      ids.insert(id);
      absl::MutexLock lock(&mu_);
      auto& m = live_[id];
      if (!m) {
        m = std::make_shared<LiveMatch>();
        changed = true;
      }
      m->part_path = path;
    }
    // The seats of each match not yet known, from its header.
    std::vector<std::pair<std::string, std::string>> unread;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [id, m] : live_) {
        if (m->seats.empty() && ids.count(id)) unread.emplace_back(id, m->part_path);
      }
    }
    for (const auto& [id, path] : unread) {
      std::vector<std::string> seats = SeatsOfPart(path);
      if (seats.empty()) continue;
      absl::MutexLock lock(&mu_);
      auto it = live_.find(id);
      if (it != live_.end()) it->second->seats = std::move(seats);
      changed = true;
    }
    absl::MutexLock lock(&mu_);
    for (auto it = live_.begin(); it != live_.end();) {
      // Gone from this folder's .inprogress: ended (its record is listed
      // once renamed) or aborted; kept while a page may still ask.
      const bool here = absl::StartsWith(it->second->part_path, parts_dir + "/");
      if (here && !ids.count(it->first) && it->second->ended_at == absl::InfiniteFuture() &&
          !page_of_id_.count(it->first) && MonoNow() - it->second->last_asked > kWatchedFor) {
        it = live_.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
  // The watched ones: re-read when their .part changed.
  std::vector<std::pair<std::string, std::shared_ptr<LiveMatch>>> watched;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, m] : live_) {
      if (MonoNow() - m->last_asked < kWatchedFor && m->ended_at == absl::InfiniteFuture()) {
        watched.emplace_back(id, m);
      }
    }
  }
  for (auto& [id, m] : watched) changed |= ReadLiveView(id, m.get());
  return changed;
}

bool LiveSite::ReadLiveView(const std::string& id, LiveMatch* m) {
  std::string path;
  {
    absl::MutexLock lock(&mu_);
    path = m->part_path;
  }
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  {
    absl::MutexLock lock(&mu_);
    if (st.st_size == m->size && SameTime(st.st_mtim, m->mtime)) return false;
  }
  auto lines = ReadRecordFile(path);
  if (!lines.ok()) {  // a line half written: read again next time
    spdlog::debug("live match {}: {}", id, lines.status().ToString());
    return false;
  }
  auto json = SpectatorJson(*lines, id);
  if (!json.ok()) {
    spdlog::debug("live match {}: {}", id, json.status().ToString());
    return false;
  }
  absl::MutexLock lock(&mu_);
  // Read at the same time by the poll and a page: the one that read more
  // (or first) counts.
  if (st.st_size < m->size || (st.st_size == m->size && SameTime(st.st_mtim, m->mtime))) {
    return false;
  }
  m->size = st.st_size;
  m->mtime = st.st_mtim;
  m->views.emplace_back(MonoNow(), std::make_shared<const std::string>(std::move(*json)));
  return true;
}

void LiveSite::Tally(const MatchSummary* m) {
  summary_stale_ = true;
  summary_.set_records(summary_.records() + 1);
  if (m == nullptr) {
    summary_.set_errors(summary_.errors() + 1);
    return;
  }
  const auto add = [](v1::MatchListSummary::Seat* s, int placement) {
    s->set_matches(s->matches() + 1);
    s->set_placement_sum(s->placement_sum() + placement);
    if (placement == 1) s->set_wins(s->wins() + 1);
  };
  for (size_t seat = 0; seat < m->seat_bots.size() && seat < m->placements.size(); ++seat) {
    while (summary_.by_seat_size() <= static_cast<int>(seat)) summary_.add_by_seat();
    add(summary_.mutable_by_seat(static_cast<int>(seat)), m->placements[seat]);
    auto& bot = (*summary_.mutable_bots())[m->seat_bots[seat]];
    while (bot.seats_size() <= static_cast<int>(seat)) bot.add_seats();
    add(bot.mutable_seats(static_cast<int>(seat)), m->placements[seat]);
    if (seat < m->scores.size()) ++scores_[m->seat_bots[seat]][m->scores[seat]];
  }
}

void LiveSite::PublishSummary() {
  if (!summary_stale_) return;
  summary_stale_ = false;
  // Each bot's scores, as (score, count) ascending; a bot with more than
  // kBins distinct scores gets kBins equal bins, each at its middle.
  constexpr int kBins = 1000;
  v1::MatchListSummary out = summary_;
  for (const auto& [bot, counts] : scores_) {
    auto* scores = (*out.mutable_bots())[bot].mutable_scores();
    if (static_cast<int>(counts.size()) <= kBins) {
      for (const auto& [score, count] : counts) {
        auto* s = scores->Add();
        s->set_score(score);
        s->set_count(count);
      }
      continue;
    }
    const double lo = counts.begin()->first;
    const double width = (counts.rbegin()->first - lo) / kBins;
    std::vector<int64_t> bins(kBins, 0);
    for (const auto& [score, count] : counts) {
      bins[std::min(kBins - 1, static_cast<int>((score - lo) / width))] += count;
    }
    for (int i = 0; i < kBins; ++i) {
      if (bins[i] == 0) continue;
      auto* s = scores->Add();
      s->set_score(lo + (i + 0.5) * width);
      s->set_count(bins[i]);
    }
  }
  std::string json;
  AppendJson(out, &json);
  absl::MutexLock lock(&mu_);
  summary_json_ = std::move(json);
  ++summary_version_;
}

void LiveSite::RebuildStandings(bool full) {
  StandingsContext combined;
  bool have = false;
  int planned = 0;
  std::vector<v1::EntrantReport> entrants;
  for (const auto& f : folders_) {
    auto ctx = f->context.Get();
    if (!ctx.ok()) continue;
    if (!have) {
      combined = *ctx;
      have = true;
    } else {
      for (const auto& b : ctx->bots) {
        if (std::find(combined.bots.begin(), combined.bots.end(), b) == combined.bots.end()) {
          combined.bots.push_back(b);
        }
      }
    }
    planned += ctx->matches_planned >= 0 ? ctx->matches_planned : 0;
    if (auto e = ReadEntrants(f->path); e.ok()) MergeEntrants(*e, &entrants);
  }
  if (!have) return;
  combined.matches_planned = std::max<int64_t>(planned, all_.matches());
  if (!full) combined.bootstrap = std::min(combined.bootstrap, options_.live_bootstrap);
  all_.SetContext(combined);
  auto st = all_.Build();
  if (!st.ok()) {
    spdlog::warn("live standings: {}", st.status().ToString());
    return;
  }
  SetEntrants(entrants, &*st);
  // standings.json's fields, without its indentation: the stream carries
  // it to every open page.
  std::string json = MessageJson(*st);
  if (json.empty()) return;
  std::string replay_standings = ReplayStandingsJson(*st);
  absl::MutexLock lock(&mu_);
  standings_json_ = std::move(json);
  ++standings_version_;
  replay_standings_ = std::move(replay_standings);
}

bool LiveSite::Poll(bool last) {
  ReadNotifications();
  ScanFolders();
  bool changed = false;
  for (auto& f : folders_) {
    changed |= ReadFolder(f.get(), last);
    changed |= ReadLiveMatches(f.get());
  }
  {
    // Offers for no folder followed (yet): dropped; their files are read
    // once the folder is.
    absl::MutexLock lock(&offer_mu_);
    for (auto it = offered_.begin(); it != offered_.end();) {
      const bool followed = std::any_of(folders_.begin(), folders_.end(),
                                        [&](const auto& f) { return f->path == it->first; });
      it = followed ? std::next(it) : offered_.erase(it);
    }
  }
  changed |= ReadSchedule();
  const absl::Time now = MonoNow();
  const bool quiet = now - last_record_ >= options_.quiet;
  if (last || (!standings_final_ && quiet) ||
      (standings_stale_ &&
       now - last_rebuild_ >=
           std::max(options_.rebuild, options_.rebuild_spacing * last_rebuild_took_))) {
    const bool full = last || quiet;
    standings_stale_ = false;
    standings_final_ = full;
    last_rebuild_ = now;
    RebuildStandings(full);
    last_rebuild_took_ = MonoNow() - now;
    changed = true;
  }
  // A delayed live view or an end becomes visible with time alone.
  if (options_.spectator_delay > absl::ZeroDuration()) {
    absl::MutexLock lock(&mu_);
    for (auto& [id, m] : live_) {
      if (m->views.size() > 1 || m->ended_at != absl::InfiniteFuture()) changed = true;
    }
  }
  PublishSummary();
  if (changed) {
    absl::MutexLock lock(&mu_);
    ++version_;
  }
  return changed;
}

bool LiveSite::ReadSchedule() {
  // schedule.json of DIR (an adaptive contest runs unsharded), rewritten
  // every round: sent with the standings (it names the comparisons still
  // undecided), so a new one makes the standings new to every page.
  const timespec now = MTime(absl::StrCat(dir_, "/schedule.json"));
  if (SameTime(now, schedule_mtime_)) return false;
  schedule_mtime_ = now;
  std::string json = SchedulePlanJson(dir_);
  absl::MutexLock lock(&mu_);
  if (json == schedule_json_) return false;
  schedule_json_ = std::move(json);
  ++standings_version_;
  return true;
}

std::string LiveSite::UpdateJson(PageState* page) const {
  absl::MutexLock lock(&mu_);
  const int64_t total = static_cast<int64_t>(entries_.size());
  const int64_t from =
      std::max<int64_t>(std::clamp<int64_t>(page->have, 0, total),
                        total - options_.max_entries_per_update);
  const bool standings = page->standings != standings_version_;
  const bool summary = page->summary != summary_version_;
  page->have = total;
  page->standings = standings_version_;
  page->summary = summary_version_;
  std::string out = absl::StrCat(
      "{\"version\":", version_, ",\"standings\":", standings ? standings_json_ : "null",
      ",\"schedule\":", standings ? schedule_json_ : "null",
      ",\"summary\":", summary ? summary_json_ : "null", ",\"total\":", total,
      ",\"from\":", from, ",\"matches\":[");
  for (int64_t i = from; i < total; ++i) absl::StrAppend(&out, i > from ? "," : "", entries_[i]);
  // The matches in progress, and each one's seats where known:
  // "live":["<id>",...],"live_seats":{"<id>":["<bot>",...],...}.
  const std::vector<LiveMatchInfo> live = LiveMatchesLocked(kMaxLiveListed);
  std::string seats;
  out += "],\"live\":[";
  for (size_t i = 0; i < live.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "", JsonString(live[i].id));
    if (live[i].seats.empty()) continue;
    absl::StrAppend(&seats, seats.empty() ? "" : ",", JsonString(live[i].id), ":[");
    for (size_t s = 0; s < live[i].seats.size(); ++s) {
      absl::StrAppend(&seats, s ? "," : "", JsonString(live[i].seats[s]));
    }
    seats += "]";
  }
  return absl::StrCat(out, "],\"live_seats\":{", seats, "}}");
}

std::vector<LiveSite::LiveMatchInfo> LiveSite::LiveMatches(int max) const {
  absl::MutexLock lock(&mu_);
  return LiveMatchesLocked(max);
}

std::vector<LiveSite::LiveMatchInfo> LiveSite::LiveMatchesLocked(int max) const {
  std::vector<LiveMatchInfo> out;
  for (const auto& [id, m] : live_) {
    if (static_cast<int>(out.size()) >= max) break;
    if (m->ended_at == absl::InfiniteFuture() && !page_of_id_.count(id)) {
      out.push_back({id, m->seats});
    }
  }
  return out;
}

absl::StatusOr<std::string> LiveSite::LiveMatchJson(const std::string& match_id, bool* ended) {
  *ended = false;
  std::shared_ptr<LiveMatch> unread;
  {
    absl::MutexLock lock(&mu_);
    auto it = live_.find(match_id);
    // A match no one watched has no view yet (the poll reads only the
    // watched ones): read now, so that a page opened mid-match holds the
    // match as it is, not nothing until the next poll. With a spectator
    // delay, what is read now is shown that much later, as any view.
    if (it != live_.end() && it->second->views.empty() &&
        it->second->ended_at == absl::InfiniteFuture()) {
      unread = it->second;
    }
  }
  if (unread != nullptr) ReadLiveView(match_id, unread.get());
  absl::MutexLock lock(&mu_);
  auto it = live_.find(match_id);
  if (it == live_.end()) {
    if (page_of_id_.count(match_id)) {
      *ended = true;
      return std::string();
    }
    return absl::NotFoundError("no such live match");
  }
  LiveMatch& m = *it->second;
  m.last_asked = MonoNow();
  const absl::Time shown = MonoNow() - options_.spectator_delay;
  if (m.ended_at <= shown) {
    *ended = true;
    return std::string();
  }
  // The newest view old enough; older ones are dropped.
  while (m.views.size() > 1 && m.views[1].first <= shown) m.views.pop_front();
  if (m.views.empty() || m.views.front().first > shown) return std::string();
  return *m.views.front().second;
}

absl::StatusOr<std::string> LiveSite::LiveMatchPage(const std::string& match_id) {
  bool ended = false;
  auto json = LiveMatchJson(match_id, &ended);
  if (!json.ok()) return json.status();
  if (ended) return absl::NotFoundError("ended");
  return arena::LiveMatchPage(match_id, json->empty() ? "null" : *json);
}

}  // namespace arena
