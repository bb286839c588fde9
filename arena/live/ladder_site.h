// The live site of a ladder (`arena ladder run DIR --serve ADDR`, and
// `arena serve DIR` of a ladder's folder; docs/ladder.md#the-live-site):
// one page at "/" with
//  - the leaderboard, as DIR/leaderboard.json holds it (each current
//    version's rank, entrant, version, mean, uncertainty, the conservative
//    bound it is ranked by, matches), read whenever that file changes;
//  - each current version's rating history, a plot drawn here as inline
//    SVG: its mean after each of its rated matches, with a band of one
//    uncertainty either side (Rated(), fed by the ladder as it rates, and
//    on a restart as it rates its records again, so the history is rebuilt
//    as the leaderboard is). Bounded: a version keeps at most
//    `history_points` points; past that, every other point is dropped and
//    from then on only every 2nd (4th, ...) match adds one, so a point
//    stands for a bucket of matches (the page says how many);
//  - the newest submissions (DIR/entrants.json): accepted, or refused with
//    the reason, and each current version's placement progress;
//  - the final's result once its standings are written
//    (DIR/final/standings.json): each finalist's rank with its interval,
//    rating with its interval, matches, and the pairs surely ordered;
//  - the matches in progress of the segment playing now (the newest
//    DIR/records/segment-NNNNNN, or DIR/final once the final has begun),
//    linked to their live pages, which the
//    segment's LiveSite serves (arena/live/live_site.h): /live/<id>.html,
//    then the replay once the match has ended. The LiveSites of the
//    `earlier_segments` segments followed before it stay (LiveOf): a
//    viewer of a match that ended as its segment did still gets its
//    replay. Older segments' matches are not served (their records stay:
//    `arena serve DIR/records/segment-NNNNNN` shows them).
// Everything a bot or a submitter controls (names, reasons, ids) is
// escaped as text; no command line, deal, seed or note is on the page.
//
// Thread safety: Poll() from one thread (the server's); Rated() from any
// one other; the rest from any thread.
#ifndef ARENA_ARENA_LIVE_LADDER_SITE_H_
#define ARENA_ARENA_LIVE_LADDER_SITE_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/live/http_server.h"
#include "arena/live/live_site.h"
#include "arena/v1/config.pb.h"
#include "arena/v1/ladder.pb.h"
#include "google/protobuf/message.h"

namespace arena {

struct LadderSiteOptions {
  LiveOptions live;              // the segments' live sites'
  int history_points = 256;      // a version's plot's points at most (>= 2)
  int submissions_shown = 30;    // the newest submissions on the page
  int placement_matches = 10;    // a new version's placement (LadderFieldOptions's)
  int live_shown = 50;           // matches in progress listed
  // Whether the ladder feeds Rated() (`ladder run --serve`); without it
  // (`arena serve` of a ladder's folder) the page has no plots, and says so.
  bool history = true;
  // The top this many rows have their plot on the page (every version's
  // is at /history/<bot>.svg), so that a big field's page stays small
  // (about 6 KB a plot at history_points).
  int plots_inline = 100;
  // The segments' folders are looked for at most this often.
  absl::Duration segment_scan = absl::Seconds(1);
  // Segments followed before the current one whose matches stay served.
  int earlier_segments = 8;
};

// One seat of a rated match: its version's bot name and rating after it.
struct LadderRatedSeat {
  std::string bot;
  double mu = 0;
  double sigma = 0;
};

class LadderSite : public SiteFront {
 public:
  LadderSite(std::string dir, LadderSiteOptions options);

  // A rated match, the ladder's `match`-th (1, 2, ...): each seat's rating
  // after it.
  void Rated(int64_t match, const std::vector<LadderRatedSeat>& seats);

  // SiteFront: "/" and "/index.html" are the ladder's page,
  // "/history/<bot>.svg" a version's plot (retired ones' too); "/events" and
  // "/matches.json" (a single contest's index) are not served.
  std::shared_ptr<LiveSite> live() const override;
  // The current segment's site, or the earlier one that holds `name`.
  std::shared_ptr<LiveSite> LiveOf(const std::string& name) const override;
  bool Poll(bool last) override;
  std::optional<Route> RouteOf(const std::string& path) const override;

  // The ladder's page now.
  std::string Page() const;
  // Bumped by a Poll() that saw a change (a file, a rated match, the
  // segment's matches): the page is built at most once a version.
  int64_t version() const;

  // A version's history as plotted: (match, mean, uncertainty) points, and
  // the matches a point stands for.
  struct Point {
    int64_t match = 0;
    float mu = 0;
    float sigma = 0;
  };
  std::vector<Point> History(const std::string& bot, int* bucket) const;

 private:
  struct Track {
    std::vector<Point> points;
    int64_t stride = 1;   // a point every `stride` of its matches
    int64_t count = 0;    // its rated matches
    Point last;           // after the newest
  };
  struct Stamp {
    uint64_t inode = 0;
    int64_t sec = 0, nsec = 0;
    bool operator!=(const Stamp& o) const {
      return inode != o.inode || sec != o.sec || nsec != o.nsec;
    }
  };
  static Stamp StampOf(const std::string& path);
  // Reads DIR/`name` into `into` if it changed since `stamp`; whether it did.
  bool ReadIfChanged(const std::string& name, Stamp* stamp,
                     google::protobuf::Message* into) const;
  bool ReadFiles();  // leaderboard.json, entrants.json, final/standings.json
  bool FollowSegment(bool last);

  const std::string dir_;
  const LadderSiteOptions options_;
  // Poll()'s thread.
  Stamp board_stamp_, entrants_stamp_, final_stamp_;
  int64_t seen_rated_ = 0;  // rated_version_ at the last Poll()
  absl::Time last_scan_ = absl::InfinitePast();
  std::string segment_dir_;

  mutable absl::Mutex mu_;
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  v1::LadderLeaderboard board_ ABSL_GUARDED_BY(mu_);
  v1::LadderEntrants entrants_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<LiveSite> segment_ ABSL_GUARDED_BY(mu_);
  // The sites of the segments followed before, newest first; at most
  // options_.earlier_segments.
  std::deque<std::shared_ptr<LiveSite>> earlier_ ABSL_GUARDED_BY(mu_);
  bool following_final_ ABSL_GUARDED_BY(mu_) = false;  // segment_ is DIR/final's
  // The final's standings (DIR/final/standings.json), once written.
  std::optional<v1::Standings> final_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Track> history_ ABSL_GUARDED_BY(mu_);  // by bot
  int64_t last_rated_ ABSL_GUARDED_BY(mu_) = 0;  // the newest Rated() match
  int64_t rated_version_ ABSL_GUARDED_BY(mu_) = 0;  // bumped by Rated()
  // The page of version page_version_ (RouteOf).
  mutable absl::Mutex page_mu_;
  mutable int64_t page_version_ ABSL_GUARDED_BY(page_mu_) = -1;
  mutable std::string page_ ABSL_GUARDED_BY(page_mu_);
};

}  // namespace arena

#endif  // ARENA_ARENA_LIVE_LADDER_SITE_H_
