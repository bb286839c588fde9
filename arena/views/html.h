// A static HTML site of a tournament: `arena html DIR` (and `arena
// tournament --html`).
//
// From a records folder (its records, of any format, and standings.json), writes
//   OUT/index.html             standings (every field of standings.json, and
//                              rating interval bars when the rows hold
//                              ratings), head-to-head heat map, score
//                              distributions per bot, seat advantage, and the
//                              list of matches;
//   OUT/replays/<match>.html   a replay page per match: step through with the
//                              keys or a slider, omniscient or as one seat.
// Files get the modes the umask arena was started with allows (0644 and
// 0755 under umask 022: the site can be published), unlike the records.
// Every page is one self-contained file (inline style, script and data; no
// network access, no CDN), so the site works offline from file://. Charts are
// SVG drawn by the pages' own script (arena/views/html/*.js, embedded at build
// time).
//
// Records that do not verify get no replay page; they are listed on the index
// with the error, and counted in the summary.
//
// Thread safety: plain functions; WriteHtmlSite reads the folder and writes
// the site from the calling thread (two calls must not share an out_dir).
#ifndef ARENA_ARENA_VIEWS_HTML_H_
#define ARENA_ARENA_VIEWS_HTML_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/v1/replay.pb.h"

namespace arena {

struct HtmlOptions {
  std::string out_dir;   // empty: <records>/html
  int max_replays = -1;  // replay pages to write (-1: one per record)
};

struct HtmlSummary {
  std::string out_dir;
  int records = 0;
  int replay_pages = 0;
  std::vector<std::string> failures;  // "file: error", one per bad record
};

// Writes the site. Errors only when nothing useful can be written (no such
// folder, no records, an output folder that cannot be made).
absl::StatusOr<HtmlSummary> WriteHtmlSite(const std::string& records_dir,
                                          const HtmlOptions& options);

// One replay page (a whole HTML document) for a replay built with seat -1;
// `standings_json` (JSON of a Standings message, or "null") gives the bots'
// ratings and withdrawals that the page shows beside the seats.
std::string ReplayPage(const v1::Replay& replay, const std::string& index_href,
                       const std::string& standings_json = "null");

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_HTML_H_
