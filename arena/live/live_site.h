// The live site of a records folder: `arena serve DIR` and `arena tournament
// ... --serve ADDR` (the HTTP side: arena/live/http_server.h).
//
// LiveSite follows a records folder as it grows, by polling (Poll(), called
// by one thread every LiveOptions::poll), never the process that writes it,
// so it follows a tournament of another process, or of shards on other
// machines writing into a shared folder: DIR's own records, and those of
// each folder directly inside DIR that holds a manifest.json (the shards
// of one tournament, combined as `arena standings` combines them).
//
// What it knows, and what the pages built from it show:
//  - the finished records (renamed into place, so always whole): a match
//    list entry each (header and result, as `arena html` writes them, read
//    from the record without re-simulating it; the replay page, built on
//    request, re-simulates and says if the record does not verify), and the
//    standings, rebuilt from the records (StandingsAccumulator) at most
//    every LiveOptions::rebuild;
//  - the matches in progress (.inprogress/<id>.*.part; finishing files
//    skipped): their ids only, until someone watches one; then its
//    spectator's replay (arena/views/replay.h, ReplayOptions::spectator:
//    public events, and the redacted version of private ones, never a
//    hand, a seat's view, an action's label or the seed), re-read when its
//    .part grows and shown LiveOptions::spectator_delay late. Once the match
//    ends, its full replay page (the one `arena html` writes).
// Nothing else of the folder is read: no path from a request names a file
// (matches are looked up by id among the files listed; ids are
// [A-Za-z0-9_-]), links are not followed (ListRecordFiles), and a
// .inprogress file's content never leaves this class but as a spectator's
// replay.
//
// A tournament's record writer spills a live match's lines to its .part
// only every 8 KiB unless told to spill every line (LaunchOptions /
// TournamentHooks::live_records, `--serve` and `--live_records` set it):
// without it, a short match is seen only once it ends.
//
// Thread safety: Poll() from one thread at a time; every other method from
// any thread (a mutex guards the state; pages are built outside it where
// they re-simulate).
#ifndef ARENA_ARENA_LIVE_LIVE_SITE_H_
#define ARENA_ARENA_LIVE_LIVE_SITE_H_

#include <cstdint>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/records/folder.h"
#include "arena/stats/standings.h"
#include "arena/v1/record.pb.h"
#include "arena/v1/replay.pb.h"

namespace arena {

struct LiveOptions {
  absl::Duration poll = absl::Milliseconds(200);   // how often the folder is read
  // A poll reads only the record files the kernel said arrived (inotify),
  // not the whole folder, which costs about 0.3 µs an entry: 0.8 s of a
  // 20,000-match tournament's CPU. The folder is still listed whole at
  // least this often, and whenever it changed with no word from the
  // kernel (a network file system that other machines write into).
  // `notify` false: listed whole on every poll that it changed.
  bool notify = true;
  absl::Duration full_listing = absl::Seconds(2);
  // Standings rebuilt at most this often, and at most every
  // rebuild_spacing times their last rebuild's duration, with
  // live_bootstrap replicates for the rating intervals while records keep
  // landing; once none has landed for `quiet` (or the writer is done:
  // Poll(true)), with the tournament's own count, so that the final
  // standings are the tournament's. A rebuild (about 10 ms at 20,000
  // matches of two bots) costs a tournament on the same machine several
  // times its own CPU, in preemptions and cold caches
  // (docs/live.md#load-1000-viewers-of-a-20000-match-tournament): the
  // spacing keeps it to about 1 % of a core, and a busier machine, which
  // makes a rebuild take longer, gets them less often.
  absl::Duration rebuild = absl::Milliseconds(500);
  int rebuild_spacing = 100;
  int live_bootstrap = 100;
  absl::Duration quiet = absl::Seconds(2);
  absl::Duration spectator_delay = absl::ZeroDuration();  // live matches shown this late
  // Matches in the live stream's list entries per update at most (the
  // newest; a page fetches the rest from /matches.json).
  int max_entries_per_update = 5;
  // Match list entries in the index page at most (the newest).
  int index_entries = 200;
  // Updates pushed to the open pages at most this often (a record is on the
  // pages within poll + push_every).
  absl::Duration push_every = absl::Milliseconds(750);
  // The bots' notes in finished matches' replay pages (as HtmlOptions's);
  // a match in progress never shows them (SpectatorJson).
  bool show_notes = false;
};

// The steps a live match's page and stream carry: its newest ones. (A match
// of 20,000 decisions would otherwise send 10 MB at every update.)
inline constexpr int64_t kLiveSpectatorSteps = 400;

// The spectator's replay of a match in progress as JSON (a v1::Replay,
// ReplayOptions::spectator), from its record's lines so far, with its last
// kLiveSpectatorSteps steps only (each keeps its number; the page says how
// many came before): what the live match page and its stream carry, and
// nothing else. Errors: lines that do not re-simulate.
absl::StatusOr<std::string> SpectatorJson(const std::vector<v1::RecordLine>& lines,
                                          const std::string& source);

class LiveSite {
 public:
  LiveSite(std::string dir, LiveOptions options);
  ~LiveSite();

  // Reads what changed in the folder(s) since the last call. Returns
  // whether anything the pages show changed (version() went up). `last`:
  // the standings are rebuilt now whatever LiveOptions::rebuild says (the
  // writer is done).
  bool Poll(bool last = false);
  // A record this process wrote at `path` (in DIR or a shard folder of
  // it), with the lines RecordWriter::set_on_finished gives: the next
  // Poll() takes them instead of reading the file back, unless it has read
  // the file already; each record counts once either way. Lines of a
  // folder the site does not follow are dropped unread. From any thread.
  void Offer(const std::string& path, std::vector<v1::RecordLine> lines);
  // Bumped on every change the pages show.
  int64_t version() const;
  const LiveOptions& options() const { return options_; }

  // The index page as `arena html` writes it, with the state at this moment,
  // and the script that follows the live stream; of the match list, only
  // the newest LiveOptions::index_entries and the summary of all
  // (v1::MatchListSummary), so that a page of a long contest stays small
  // and a viewer is never sent every entry.
  std::string IndexPage() const;
  // What an open page holds: its matches, and the versions of the
  // standings and the summary it was last sent (-1: none).
  struct PageState {
    int64_t have = 0;
    int64_t standings = -1;
    int64_t summary = -1;
  };
  // The live stream's update for a page in state `page`, which it then
  // advances to what the page holds: JSON of {"version", "standings" (null
  // if the page has these already, or there are none yet), "schedule" (DIR's
  // schedule.json, SchedulePlanJson: sent with the standings), "summary"
  // (v1::MatchListSummary; null likewise), "total", "from", "matches"
  // (entries from..total, at most max_entries_per_update, the newest),
  // "live" (ids of the matches in progress, at most 50)}. The standings of
  // a field of a hundred entrants are tens of KB: a page is sent them only
  // when they change, not with every match.
  std::string UpdateJson(PageState* page) const;
  // Match list entries [from, to) as a JSON array (clamped).
  std::string MatchesJson(int64_t from, int64_t to) const;
  int64_t total_matches() const;
  // The standings now (JSON of a Standings message, as standings.json), or "null".
  std::string standings_json() const;

  // The replay page of a finished match, by its page name (PageName of its
  // id); NotFound for any other name. Made by streaming the record
  // (ReplayPageBuilder, arena/views/html.h): a match of more than
  // kReplayChunkSteps positions gets a page without its steps, which it
  // fetches in chunks as the viewer moves, from
  // "<page_name>.steps.json?chunk=K" beside the page (ReplayStepsChunk).
  absl::StatusOr<std::string> ReplayPage(const std::string& page_name) const;
  // Chunk `chunk` of a finished match's steps, for its replay page: JSON of
  // {"chunk":K,"steps":"<gzip of the steps' JSON, base64>"}
  // (ReplayChunkJson). The record is streamed again and only this chunk's
  // steps written: memory is a chunk's, time about the record's
  // re-simulation. NotFound for an unknown page name or a chunk past the
  // last (a short match's page holds its one chunk: none here).
  absl::StatusOr<std::string> ReplayStepsChunk(const std::string& page_name, int chunk) const;
  // A live match's page by its id: the spectator's view; once it has ended,
  // NotFound with the replay page's name in the message's place (see
  // FinishedPage).
  absl::StatusOr<std::string> LiveMatchPage(const std::string& match_id);
  // The spectator's replay JSON of a live match now (after the delay), or
  // "" if none yet; `ended` set once the match has a finished record (then
  // the page goes to its replay).
  absl::StatusOr<std::string> LiveMatchJson(const std::string& match_id, bool* ended);
  // The page name of a finished match's replay, or "" if none.
  std::string FinishedPage(const std::string& match_id) const;
  // Whether `name`, a match id or a replay's page name, is one of this
  // site's matches as read so far (in progress, or finished).
  bool Holds(const std::string& name) const;
  // The matches in progress (those the update's "live" lists), at most
  // `max`: each id, and its seats' bots once its header was read (else
  // none).
  struct LiveMatchInfo {
    std::string id;
    std::vector<std::string> seats;
  };
  std::vector<LiveMatchInfo> LiveMatches(int max) const;

 private:
  std::vector<LiveMatchInfo> LiveMatchesLocked(int max) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct Folder;
  struct LiveMatch;
  void ScanFolders();
  void ReadNotifications();
  bool ReadFolder(Folder* f, bool last);
  void AddRecord(Folder* f, const std::string& name,
                 absl::StatusOr<std::vector<v1::RecordLine>> lines);
  bool ReadLiveMatches(Folder* f);
  // Reads a live match's .part if it changed since last read, and adds its
  // spectator's view; whether it did. From any thread (Poll()'s, or a
  // page's: LiveMatchJson).
  bool ReadLiveView(const std::string& id, LiveMatch* m);
  void RebuildStandings(bool full);
  void Tally(const MatchSummary* m);  // a record read (nullptr: one that is not whole)
  void PublishSummary();
  bool ReadSchedule();  // schedule.json of DIR, if it changed; whether it did

  const std::string dir_;
  const LiveOptions options_;
  std::vector<std::unique_ptr<Folder>> folders_;  // Poll()'s thread only
  int notify_fd_ = -1;  // inotify, for every folder (-1: none); Poll()'s thread only
  bool folders_notified_ = false;           // a folder was made in DIR (Poll()'s thread)
  timespec scan_mtime_{};                   // DIR's when last read for folders
  std::vector<std::string> unmanifested_;  // folders in DIR without a manifest yet
  absl::Time last_scan_ = absl::InfinitePast();
  absl::Time last_rebuild_ = absl::InfinitePast();
  absl::Duration last_rebuild_took_;
  bool standings_stale_ = false;
  bool standings_final_ = true;  // built with the full bootstrap since the last record
  absl::Time last_record_ = absl::InfinitePast();
  StandingsAccumulator all_{StandingsContext{}};  // every folder's matches
  // The match list's summary (Poll()'s thread), and every bot's scores.
  v1::MatchListSummary summary_;
  std::map<std::string, std::map<double, int64_t>> scores_;
  bool summary_stale_ = false;
  std::set<std::string> ids_;                     // their ids, each counted once

  // Offered records by folder path, then file name (Offer).
  absl::Mutex offer_mu_;
  std::map<std::string, std::vector<std::pair<std::string, std::vector<v1::RecordLine>>>>
      offered_ ABSL_GUARDED_BY(offer_mu_);

  mutable absl::Mutex mu_;
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> entries_ ABSL_GUARDED_BY(mu_);  // match list, arrival order
  std::map<std::string, std::string> finished_ ABSL_GUARDED_BY(mu_);  // page name -> path
  std::map<std::string, std::string> page_of_id_ ABSL_GUARDED_BY(mu_);  // match id -> page name
  std::string standings_json_ ABSL_GUARDED_BY(mu_) = "null";
  std::string summary_json_ ABSL_GUARDED_BY(mu_) = "{}";
  int64_t standings_version_ ABSL_GUARDED_BY(mu_) = 0;  // bumped with each
  int64_t summary_version_ ABSL_GUARDED_BY(mu_) = 0;
  std::string replay_standings_ ABSL_GUARDED_BY(mu_) = "null";
  // DIR's schedule.json (SchedulePlanJson), sent with the standings.
  std::string schedule_json_ ABSL_GUARDED_BY(mu_) = "null";
  timespec schedule_mtime_{};  // Poll()'s thread
  std::map<std::string, std::shared_ptr<LiveMatch>> live_ ABSL_GUARDED_BY(mu_);  // by id
};

}  // namespace arena

#endif  // ARENA_ARENA_LIVE_LIVE_SITE_H_
