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
#include "google/protobuf/message.h"

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

// The pieces the site is made of, for a server that builds it as the
// records land (arena/live/live_site.h).
//
// A match's entry in the index's list: JSON of a v1::MatchListEntry (its
// file name, its replay page's address (empty: none), and what the list
// shows of its header, result and forfeit), for a replay built with seat -1
// (or a spectator's).
std::string MatchEntryJson(const std::string& file, const std::string& page,
                           const v1::Replay& replay);
// The entry of a record that does not verify.
std::string MatchErrorJson(const std::string& file, const std::string& error);
// The index page: `standings_json` (standings.json's text, or "null"),
// `matches_json` (a JSON array of entries), `extra_script`, run after
// the page's own (empty for the static site); a page with extra_script is
// drawn by it (it calls window.arenaRenderIndex), not at load; and
// `schedule_json` (SchedulePlanJson, or "null"), of which the page names the
// comparisons of the schedule's target that are still undecided.
std::string IndexPage(const std::string& standings_json, const std::string& matches_json,
                      const std::string& extra_script = "",
                      const std::string& schedule_json = "null");
// schedule.json of a records folder (v1::SchedulePlan: an adaptive
// schedule's rounds, budget, why it stopped and its target's comparisons)
// as the pages read it, or "null" if there is none (or it is not a regular
// file, or not a plan).
std::string SchedulePlanJson(const std::string& dir);
// What a replay page shows of the standings (see ReplayPage).
std::string ReplayStandingsJson(const v1::Standings& standings);
// A page of the site's look: `body_data` (script elements of data) and
// `script` (run after common.js, arena/views/html/).
std::string SitePage(const std::string& title, const std::string& body_data,
                     const std::string& script);
// The live index's script (arena/views/html/live.js), for IndexPage's
// extra_script.
std::string LiveIndexScript();
// The page of a match in progress: `spectator_json` (a spectator's replay,
// ReplayOptions::spectator, or "null") drawn by live_match.js, which follows
// the match's stream and goes to the replay once it ends.
std::string LiveMatchPage(const std::string& match_id, const std::string& spectator_json);
// JSON inside <script type="application/json">: "</" would end the element.
std::string ScriptSafe(const std::string& json);
// Every enum value name of the protocol -> words, for the pages' script.
std::string EnumWordsJson();
// The file name of a match's replay page, without ".html" (ids are
// [A-Za-z0-9_-]; anything else is replaced by "_").
std::string PageName(const std::string& match_id);
// A JSON string of `s`.
std::string JsonString(const std::string& s);
// `m` as the pages read it: compact, field names as in the .proto, zeros
// and empty fields printed.
std::string MessageJson(const google::protobuf::Message& m);

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_HTML_H_
