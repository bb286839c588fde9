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
//                              keys or a slider, omniscient or as one seat;
//   OUT/replays/<match>.steps/<k>.js  a long match's steps, in chunks that
//                              its page loads as the viewer moves;
//   OUT/replays/replay-page.{js,css}  the replay pages' script and style.
// Files get the modes the umask arena was started with allows (0644 and
// 0755 under umask 022: the site can be published), unlike the records.
// Every page is self-contained (no network access, no CDN), so the site
// works offline from file://: the index has its style, script and data
// inline; the replay pages share one style and one script file
// (replays/replay-page.css and .js, a copy each rather than one a page),
// and a long match's page loads its chunks of steps with script elements
// (file:// pages may not fetch). Records are read one at a time and their replays
// streamed (ReplayPageBuilder): memory is one record and one chunk. Charts are
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

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/v1/replay.pb.h"
#include "arena/views/page_decisions.h"
#include "arena/views/replay.h"
#include "arena/views/replay_json.h"
#include "google/protobuf/message.h"

namespace arena {

// A long match's page loads its steps in parts: past this many positions,
// the page holds none, and they come in chunks of this many, each loaded
// as the viewer reaches it (about 1 MB of JSON, 60 to 80 KB compressed, for
// 4-seat Pesten).
inline constexpr int kReplayChunkSteps = 500;

struct HtmlOptions {
  std::string out_dir;   // empty: <records>/html
  int max_replays = -1;  // replay pages to write (-1: one per record)
  // Past this many positions a replay page's steps are in chunks beside it
  // (replays/<match>.steps/<k>.js), loaded as the viewer moves.
  int chunk_steps = kReplayChunkSteps;
  // The bots' notes beside their decisions in the replay pages
  // (ReplayOptions::notes): off unless asked for, since a contest's
  // entrants may read each other's replays.
  bool show_notes = false;
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

// Builds a replay page as the steps come (StreamReplay, seat -1), holding
// one chunk of steps at most. The page holds the replay without its steps
// ("replay-data": header, cards, forfeit, result) and says where they are
// ("replay-parts": positions, chunk_steps, chunks, inline, script, url).
// The steps are in chunks of `chunk_steps` positions, each the gzip of the
// JSON of their PageStepColumns (arena/views/replay_json.h: views as deltas
// within the chunk), in base64. A match of at most `chunk_steps` positions
// has its one chunk in the page ("replay-chunk-0": one document); a longer
// one hands each chunk to `on_chunk` as it fills, and the page's script
// loads chunk k as the viewer reaches it, from `chunk_script` (a script
// file beside the page, ReplayChunkScript: the static site, whose file://
// pages may not fetch) or else `chunk_url` (fetched, ReplayChunkJson: the
// live server), "{k}" replaced by k.
class ReplayPageBuilder : public ReplaySink {
 public:
  struct Options {
    std::string index_href = "../index.html";
    std::string standings_json = "null";
    int chunk_steps = kReplayChunkSteps;
    std::string chunk_script;  // e.g. "<page>.steps/{k}.js", relative to the page
    std::string chunk_url;     // e.g. "<page>.steps.json?chunk={k}"
    // Called with each chunk as it fills (and the last at End), for a long
    // match only; its error stops the build.
    std::function<absl::Status(int k, const std::string& data)> on_chunk;
    // Non-empty: the page's style and script are the files <this>.css and
    // <this>.js beside it (ReplayPageStyle, ReplayPageScript: the static
    // site writes them once for all its pages); empty: in the page (the
    // live server's pages, whose policy allows inline script only). With
    // shared assets, an empty `standings_json` means the standings are in
    // the shared script (ReplayPageScript), not in each page.
    std::string shared_assets;
    // Whether chunk k's steps are wanted (null: all); the others are
    // counted, neither written nor handed over (a server that builds one
    // chunk). Chunk 0 is always made: a short match's page holds it.
    std::function<bool(int k)> want_chunk;
    // Whether a match of a game the pages' script can re-simulate
    // (BrowserEngineGame, arena/views/page_decisions.h) carries its
    // decisions instead of its steps ("replay-inputs", with a check of each
    // chunk of steps; "replay-parts" names the engine): no chunk is handed
    // to on_chunk, and the page rebuilds the steps as the viewer moves. For
    // the static site, whose pages would otherwise cost their steps.
    bool browser_engine = false;
  };
  explicit ReplayPageBuilder(Options options) : options_(std::move(options)) {}
  absl::Status Begin(const v1::Replay& head) override;
  absl::Status Step(v1::ReplayStep& step) override;
  absl::Status End(const v1::Replay& tail) override;

  // After End: the page, and whether its steps are in chunks.
  const std::string& page() const { return page_; }
  bool chunked() const { return chunks_ > 0; }
  int64_t positions() const { return positions_; }
  // The replay without its steps (header, cards, forfeit, result), e.g.
  // for MatchEntryJson.
  const v1::Replay& summary() const { return summary_; }

 private:
  absl::Status FlushChunk();
  std::string ChunkData();  // of columns_, which it empties
  Options options_;
  v1::Replay summary_;
  v1::ReplayStep prev_;     // the step before, for its views
  PageStepColumns columns_;  // the current chunk's steps
  std::unique_ptr<PageDecisionColumns> decisions_;  // with the browser's engine
  int in_chunk_ = 0;        // positions in the current chunk
  int chunks_ = 0;          // chunks handed over
  int64_t positions_ = 0;
  std::string page_;
};

// The static site's replay pages' shared files: OUT/replays/<this>.js
// (ReplayPageScript: the enum words, what the pages show of the standings
// (`standings_json`, ReplayStandingsJson, or "null"), common.js, board.js,
// replay.js) and <this>.css (ReplayPageStyle).
inline constexpr char kSharedReplayAssets[] = "replay-page";
std::string ReplayPageScript(const std::string& standings_json = "null");
std::string ReplayPageStyle();

// A chunk as the static site's script file holds it:
// arenaReplayChunk(k, "<data>");
std::string ReplayChunkScript(int k, const std::string& data);
// A chunk as the live server sends it: {"chunk":k,"steps":"<data>"}.
std::string ReplayChunkJson(int k, const std::string& data);

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
