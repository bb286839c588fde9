#include "arena/views/html.h"

#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "arena/common/json_file.h"
#include "arena/views/html_assets.h"
#include "arena/views/replay.h"
#include "arena/views/page_decisions.h"
#include "arena/views/replay_json.h"
#include "arena/v1/config.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "referee/game_api/game.h"
#include "referee/games/registry.h"
#include "referee/records/json_writer.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"
#include "zlib.h"

namespace arena {
namespace {

using google::protobuf::EnumDescriptor;
using google::protobuf::FileDescriptor;

// Text for an HTML element or attribute.
std::string Escape(const std::string& s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"},
                                 {"\"", "&quot;"}, {"'", "&#39;"}});
}

// gzip (RFC 1952) of `in`, which the pages' script inflates with the
// browser's DecompressionStream.
std::string Gzip(const std::string& in) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}


}  // namespace

std::string MessageJson(const google::protobuf::Message& m) {
  google::protobuf::util::JsonPrintOptions po;
  po.always_print_primitive_fields = true;
  po.preserve_proto_field_names = true;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(m, &out, po);
  return out;
}

std::string ScriptSafe(const std::string& json) {
  return absl::StrReplaceAll(json, {{"</", "<\\/"}, {"<!--", "<\\!--"}});
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          absl::StrAppend(&out, "\\u00", c < 0x10 ? "0" : "", absl::Hex(c));
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Every enum value name of the protocol and of every registered game's own
// messages (GameInfo::proto_files) -> words ("PESTEN_SUIT_HEARTS" ->
// "hearts"), for the pages' script.
std::string EnumWordsJson() {
  static const std::string* const kWords = new std::string([] {
  std::string out = "{";
  auto add_enum = [&](const EnumDescriptor* e) {
    for (int i = 0; i < e->value_count(); ++i) {
      absl::StrAppend(&out, out.size() > 1 ? "," : "", JsonString(e->value(i)->name()), ":",
                      JsonString(EnumWords(e->value(i))));
    }
  };
  std::function<void(const google::protobuf::Descriptor*)> add_message =
      [&](const google::protobuf::Descriptor* d) {
        for (int i = 0; i < d->enum_type_count(); ++i) add_enum(d->enum_type(i));
        for (int i = 0; i < d->nested_type_count(); ++i) add_message(d->nested_type(i));
      };
  std::vector<const FileDescriptor*> files = {
      v1::Replay::descriptor()->file(), v1::RecordLine::descriptor()->file(),
      v1::RefereeMessage::descriptor()->file(), v1::Standings::descriptor()->file()};
  for (const std::string& game : GameNames()) {
    for (const FileDescriptor* f : FindGameInfo(game)->proto_files) files.push_back(f);
  }
  std::set<const FileDescriptor*> done;
  for (const FileDescriptor* f : files) {
    if (f == nullptr || !done.insert(f).second) continue;
    for (int i = 0; i < f->enum_type_count(); ++i) add_enum(f->enum_type(i));
    for (int i = 0; i < f->message_type_count(); ++i) add_message(f->message_type(i));
  }
  return out + "}";
  }());
  return *kWords;
}

namespace {

std::string Page(const std::string& title, const std::string& body_data,
                 const std::string& script) {
  return absl::StrCat(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>", Escape(title), "</title>\n<style>\n", kHtml_style_css,
      "</style>\n</head>\n<body>\n<div id=\"app\"><noscript>This page needs "
      "JavaScript (it uses no network).</noscript></div>\n",
      body_data, "<script>\n", kHtml_common_js, "\n", script, "</script>\n</body>\n</html>\n");
}

// A page whose style and script are files beside it (`shared`.css,
// `shared`.js), for the static site's replay pages: one copy for every page.
std::string PageWithSharedAssets(const std::string& title, const std::string& body_data,
                                 const std::string& shared) {
  return absl::StrCat(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>", Escape(title), "</title>\n<link rel=\"stylesheet\" href=\"", shared,
      ".css\">\n</head>\n<body>\n<div id=\"app\"><noscript>This page needs "
      "JavaScript (it uses no network).</noscript></div>\n",
      body_data, "<script src=\"", shared, ".js\"></script>\n</body>\n</html>\n");
}

}  // namespace

std::string ReplayPageScript(const std::string& standings_json) {
  return absl::StrCat("window.ARENA_ENUM_WORDS = ", ScriptSafe(EnumWordsJson()), ";\n",
                      "window.arenaReplayStandings = ",
                      ScriptSafe(standings_json.empty() ? "null" : standings_json), ";\n",
                      kHtml_common_js, "\n", kHtml_board_js, "\n", kHtml_pesten_js, "\n",
                      kHtml_resim_js, "\n", kHtml_replay_js);
}

std::string ReplayPageStyle() { return kHtml_style_css; }

std::string PageName(const std::string& match_id) {
  std::string out;
  for (char c : match_id) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "match" : out;
}

std::string SitePage(const std::string& title, const std::string& body_data,
                     const std::string& script) {
  return Page(title, body_data, script);
}

std::string MatchErrorJson(const std::string& file, const std::string& error) {
  return absl::StrCat("{\"file\":", JsonString(file), ",\"error\":", JsonString(error), "}");
}

std::string MatchEntryJson(const std::string& file, const std::string& page,
                           const v1::Replay& replay) {
  v1::MatchListEntry e;
  e.set_file(file);
  e.set_page(page);
  const v1::RecordHeader& h = replay.header();
  v1::MatchListEntry::Header* eh = e.mutable_header();
  eh->set_match_id(h.match_id());
  eh->set_game(h.game());
  eh->set_num_seats(h.num_seats());
  *eh->mutable_seat_bots() = h.seat_bots();
  eh->set_deal_group(h.deal_group());
  const v1::MatchResult& r = replay.result();
  v1::MatchListEntry::Result* er = e.mutable_result();
  *er->mutable_scores() = r.scores();
  *er->mutable_placements() = r.placements();
  er->set_end_reason(r.end_reason());
  er->set_forfeit_seat(r.forfeit_seat());
  er->set_detail(r.detail());
  er->set_decisions(r.decisions());
  er->set_higher_score_wins(r.higher_score_wins());
  if (replay.has_forfeit()) {
    const v1::Forfeit& f = replay.forfeit();
    v1::MatchListEntry::Forfeit* ef = e.mutable_forfeit();
    ef->set_step(f.step());
    ef->set_seat(f.seat());
    ef->set_fault(f.fault());
    ef->set_detail(f.detail());
  }
  // The record writer's JSON (json_writer.h): a few µs, where protobuf's
  // own printer takes tens, for every record of a live contest.
  std::string out;
  AppendJson(e, &out);
  return out;
}

std::string SchedulePlanJson(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/schedule.json");
  // Not a link, FIFO or device: never followed, never waited on.
  if (!CheckRegularFile(path, /*follow_symlink=*/false).ok()) return "null";
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  v1::SchedulePlan plan;
  google::protobuf::util::JsonParseOptions po;
  po.ignore_unknown_fields = true;
  if (!f || !google::protobuf::util::JsonStringToMessage(ss.str(), &plan, po).ok()) {
    return "null";
  }
  return MessageJson(plan);
}

std::string IndexPage(const std::string& standings_json, const std::string& matches_json,
                      const std::string& extra_script, const std::string& schedule_json) {
  const std::string data = absl::StrCat(
      "<script type=\"application/json\" id=\"standings-data\">", ScriptSafe(standings_json),
      "</script>\n<script type=\"application/json\" id=\"schedule-data\">",
      ScriptSafe(schedule_json.empty() ? "null" : schedule_json),
      "</script>\n<script type=\"application/json\" id=\"matches-data\">",
      ScriptSafe(matches_json),
      "</script>\n<script type=\"application/json\" id=\"enum-words\">",
      ScriptSafe(EnumWordsJson()), "</script>\n");
  return Page("Tournament", data,
              extra_script.empty() ? std::string(kHtml_standings_js)
                                   : absl::StrCat("window.arenaDrawnByExtraScript = true;\n",
                                                  kHtml_standings_js, "\n", extra_script));
}

std::string LiveIndexScript() { return kHtml_live_js; }

std::string LiveMatchPage(const std::string& match_id, const std::string& spectator_json) {
  const std::string data = absl::StrCat(
      "<script type=\"application/json\" id=\"match-id\">", ScriptSafe(JsonString(match_id)),
      "</script>\n<script type=\"application/json\" id=\"live-data\">",
      ScriptSafe(spectator_json), "</script>\n<script type=\"application/json\" id=\"enum-words\">",
      ScriptSafe(EnumWordsJson()), "</script>\n");
  return Page(absl::StrCat("Live ", match_id), data, kHtml_live_match_js);
}

// What a replay page shows of the standings: each bot's rank and its
// interval, rating and interval, and whether it was withdrawn and why.
std::string ReplayStandingsJson(const v1::Standings& st) {
  v1::Standings slim;
  slim.set_bootstrap(st.bootstrap());
  slim.set_interval_level(st.interval_level());
  for (const auto& r : st.rows()) {
    v1::StandingRow* o = slim.add_rows();
    o->set_bot(r.bot());
    o->set_rank(r.rank());
    o->set_rank_low(r.rank_low());
    o->set_rank_high(r.rank_high());
    o->set_elo(r.elo());
    o->set_elo_low(r.elo_low());
    o->set_elo_high(r.elo_high());
    o->set_matches(r.matches());
    o->set_withdrawn(r.withdrawn());
    o->set_withdrawn_reason(r.withdrawn_reason());
  }
  for (const auto& e : st.entrants()) {
    if (!e.withdrawn()) continue;
    v1::EntrantReport* o = slim.add_entrants();
    o->set_bot(e.bot());
    o->set_withdrawn(true);
    o->set_reason(e.reason());
  }
  return MessageJson(slim);
}

namespace {

// A replay page around `json` (a v1::Replay's JSON, every field printed);
// `parts_json` ("" for none) says where its steps are when not in it.
std::string ReplayPageOfJson(const std::string& json, const v1::RecordHeader& header,
                             const std::string& index_href, const std::string& standings_json,
                             const std::string& parts_json,
                             const std::string& inline_chunk = "",
                             const std::string& shared_assets = "",
                             const std::string& inline_id = "replay-chunk-0") {
  const std::string gz = Gzip(json);
  const std::string data = absl::StrCat(
      gz.empty() ? absl::StrCat("<script type=\"application/json\" id=\"replay-data\">",
                                ScriptSafe(json))
                 : absl::StrCat("<script type=\"application/octet-stream\" id=\"replay-data\" "
                                "data-encoding=\"gzip+base64\">",
                                absl::Base64Escape(gz)),
      "</script>\n",
      parts_json.empty()
          ? ""
          : absl::StrCat("<script type=\"application/json\" id=\"replay-parts\">",
                         ScriptSafe(parts_json), "</script>\n"),
      inline_chunk.empty()
          ? ""
          : absl::StrCat("<script type=\"application/octet-stream\" id=\"", inline_id,
                         "\" data-encoding=\"gzip+base64\">",
                         inline_chunk, "</script>\n"),
      shared_assets.empty()
          ? absl::StrCat("<script type=\"application/json\" id=\"enum-words\">",
                         ScriptSafe(EnumWordsJson()), "</script>\n")
          : "",
      "<script type=\"application/json\" id=\"links\">",
      ScriptSafe(absl::StrCat("{\"index\":", JsonString(index_href), "}")), "</script>\n",
      // With shared assets, the standings are in their script (the same for
      // every page of a site), unless given here.
      shared_assets.empty() || !standings_json.empty()
          ? absl::StrCat("<script type=\"application/json\" id=\"standings-data\">",
                         ScriptSafe(standings_json.empty() ? "null" : standings_json),
                         "</script>\n")
          : "");
  if (!shared_assets.empty()) {
    return PageWithSharedAssets(
        absl::StrCat("Replay ", header.match_id(), " (", header.game(), ")"), data,
        shared_assets);
  }
  return Page(absl::StrCat("Replay ", header.match_id(), " (", header.game(), ")"), data,
              absl::StrCat(kHtml_board_js, "\n", kHtml_replay_js));
}

}  // namespace

std::string ReplayPage(const v1::Replay& replay, const std::string& index_href,
                       const std::string& standings_json) {
  return ReplayPageOfJson(MessageJson(replay), replay.header(), index_href, standings_json, "");
}

std::string ReplayChunkScript(int k, const std::string& data) {
  return absl::StrCat("arenaReplayChunk(", k, ",\"", data, "\");\n");
}

std::string ReplayChunkJson(int k, const std::string& data) {
  return absl::StrCat("{\"chunk\":", k, ",\"steps\":\"", data, "\"}");
}

absl::Status ReplayPageBuilder::Begin(const v1::Replay& head) {
  summary_ = head;
  if (options_.browser_engine && head.seat() == -1 && BrowserEngineGame(head.header().game())) {
    decisions_ = std::make_unique<PageDecisionColumns>(options_.chunk_steps);
  }
  return absl::OkStatus();
}

std::string ReplayPageBuilder::ChunkData() {
  const std::string gz = Gzip(columns_.TakeJson());
  return gz.empty() ? "" : absl::Base64Escape(gz);
}

absl::Status ReplayPageBuilder::FlushChunk() {
  const int k = chunks_++;
  const bool wanted = k == 0 || options_.want_chunk == nullptr || options_.want_chunk(k);
  if (options_.on_chunk != nullptr && wanted) {
    const std::string data = ChunkData();
    if (data.empty()) return absl::InternalError("cannot compress a replay's steps");
    if (absl::Status s = options_.on_chunk(k, data); !s.ok()) return s;
  }
  (void)columns_.TakeJson();
  in_chunk_ = 0;
  return absl::OkStatus();
}

absl::Status ReplayPageBuilder::Step(v1::ReplayStep& step) {
  if (decisions_ != nullptr) {
    decisions_->Add(step);
    ++positions_;
    return absl::OkStatus();
  }
  if (in_chunk_ == options_.chunk_steps) {
    if (absl::Status s = FlushChunk(); !s.ok()) return s;
  }
  const int k = chunks_;
  if (k == 0 || options_.want_chunk == nullptr || options_.want_chunk(k)) {
    // A chunk starts with whole views: each can be read alone.
    columns_.Add(step, in_chunk_ > 0 ? &prev_ : nullptr);
  }
  prev_.Swap(&step);
  ++in_chunk_;
  ++positions_;
  return absl::OkStatus();
}

absl::Status ReplayPageBuilder::End(const v1::Replay& tail) {
  if (tail.has_forfeit()) *summary_.mutable_forfeit() = tail.forfeit();
  if (tail.has_result()) *summary_.mutable_result() = tail.result();
  summary_.set_finished(tail.finished());
  prev_.Clear();
  // In the page: the only chunk of a short match's steps, or the match's
  // decisions (with the browser's engine, which makes every chunk).
  std::string in_page, in_page_id = "replay-chunk-0", engine;
  std::string script = options_.chunk_script, url = options_.chunk_url;
  if (decisions_ != nullptr) {
    const std::string gz = Gzip(decisions_->Json(tail.finished()));
    if (gz.empty()) return absl::InternalError("cannot compress a replay's decisions");
    in_page = absl::Base64Escape(gz);
    in_page_id = "replay-inputs";
    script.clear();
    url.clear();
    engine = absl::StrCat(",\"engine\":", JsonString(summary_.header().game()));
  } else if (chunks_ == 0) {
    in_page = ChunkData();  // one chunk at most: in the page
    if (in_page.empty()) return absl::InternalError("cannot compress a replay's steps");
  } else if (in_chunk_ > 0) {
    if (absl::Status s = FlushChunk(); !s.ok()) return s;
  }
  // (With the engine, the chunks the page makes; else those written.)
  const int64_t chunks =
      decisions_ != nullptr
          ? std::max<int64_t>(1, (positions_ + options_.chunk_steps - 1) / options_.chunk_steps)
          : std::max(chunks_, 1);
  const bool inline_steps = decisions_ == nullptr && chunks_ == 0;
  const std::string parts = absl::StrCat(
      "{\"positions\":", positions_, ",\"chunk_steps\":", options_.chunk_steps,
      ",\"chunks\":", chunks, ",\"inline\":", inline_steps ? "true" : "false",
      ",\"script\":", JsonString(script), ",\"url\":", JsonString(url), engine, "}");
  page_ = ReplayPageOfJson(MessageJson(summary_), summary_.header(), options_.index_href,
                           options_.standings_json, parts, in_page, options_.shared_assets,
                           in_page_id);
  return absl::OkStatus();
}

absl::StatusOr<HtmlSummary> WriteHtmlSite(const std::string& records_dir,
                                          const HtmlOptions& options) {
  HtmlSummary sum;
  struct stat st;
  if (::stat(records_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat(records_dir, ": no such folder"));
  }
  // Plain and compressed records, regular files only: a FIFO, device or link
  // named like a record is skipped and said, never opened or followed.
  std::vector<std::string> files;
  RecordListing listing = ListRecordFiles(records_dir);
  for (const auto& skipped : listing.skipped) spdlog::warn("{}", skipped);
  for (const auto& path : listing.files) {
    const std::string name = path.substr(path.rfind('/') + 1);
    if (IsRecordFileName(name) && name[0] != '.') files.push_back(name);
  }
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(records_dir, ": no records (*.rec, *.jsonl, *.jsonl.zst)"));
  }
  sum.out_dir = options.out_dir.empty() ? absl::StrCat(records_dir, "/html") : options.out_dir;
  // Published: the folders and files get the modes the starting umask allows
  // (arena/common/json_file.h), unlike the records.
  if (absl::Status s = MakePublicDirs(absl::StrCat(sum.out_dir, "/replays")); !s.ok()) return s;

  // standings.json as written (it may hold fields this build does not know,
  // e.g. ratings); checked to be JSON of the Standings message.
  std::string standings = "null";
  std::string replay_standings = "null";
  {
    const std::string path = absl::StrCat(records_dir, "/standings.json");
    std::ifstream f;
    if (absl::Status s = CheckRegularFile(path, /*follow_symlink=*/false); s.ok()) {
      f.open(path);
    } else if (!absl::IsNotFound(s)) {
      sum.failures.push_back(std::string(s.message()));  // a FIFO would block
    }
    if (f.is_open() && f) {
      std::stringstream ss;
      ss << f.rdbuf();
      v1::Standings parsed;
      google::protobuf::util::JsonParseOptions po;
      po.ignore_unknown_fields = true;
      if (google::protobuf::util::JsonStringToMessage(ss.str(), &parsed, po).ok()) {
        standings = ss.str();
        replay_standings = ReplayStandingsJson(parsed);
      } else {
        sum.failures.push_back(absl::StrCat(records_dir, "/standings.json: not a standings file"));
      }
    }
  }
  // The replay pages' style and script, once for all.
  for (const auto& [file, text] :
       {std::pair<std::string, std::string>{".js", ReplayPageScript(replay_standings)},
        std::pair<std::string, std::string>{".css", ReplayPageStyle()}}) {
    if (absl::Status s = WriteFileAtomically(
            absl::StrCat(sum.out_dir, "/replays/", kSharedReplayAssets, file), text);
        !s.ok()) {
      return s;
    }
  }
  // One summary per match for the index: header, result, the page if any.
  // Each record is read and streamed into its page on its own (memory: a
  // record and a chunk of steps), on a thread a core; with --replays N, in
  // order on one (which records get a page depends on the ones before).
  struct Done {
    std::string entry;    // the index's entry
    std::string failure;  // the record's error, if any
    bool page = false;
    absl::Status fatal;   // a file that could not be written
  };
  std::vector<Done> done(files.size());
  int pages_so_far = 0;  // with max_replays only (one thread)
  auto one = [&](size_t i) {
    const std::string& name = files[i];
    Done& d = done[i];
    const std::string path = absl::StrCat(records_dir, "/", name);
    auto lines = ReadRecordFile(path);
    if (!lines.ok()) {
      d.failure = absl::StrCat(path, ": ", lines.status().message());
      d.entry = MatchErrorJson(name, std::string(lines.status().message()));
      return;
    }
    const bool with_page = options.max_replays < 0 || pages_so_far < options.max_replays;
    const std::string page_name = PageName(
        !lines->empty() && (*lines)[0].has_header() ? (*lines)[0].header().match_id() : "");
    const std::string chunk_dir = absl::StrCat(sum.out_dir, "/replays/", page_name, ".steps");
    bool chunk_dir_made = false;
    int chunks_written = 0;
    absl::Status write_error;
    ReplayPageBuilder::Options po;
    po.standings_json = "";  // in the shared script
    po.chunk_steps = std::max(1, options.chunk_steps);
    po.chunk_script = absl::StrCat(page_name, ".steps/{k}.js");
    po.shared_assets = kSharedReplayAssets;
    if (with_page) {
      po.browser_engine = true;
      po.on_chunk = [&](int k, const std::string& data) -> absl::Status {
        if (!chunk_dir_made) {
          if (absl::Status s = MakePublicDirs(chunk_dir); !s.ok()) return write_error = s;
          chunk_dir_made = true;
        }
        write_error = WriteFileAtomically(absl::StrCat(chunk_dir, "/", k, ".js"),
                                          ReplayChunkScript(k, data));
        if (write_error.ok()) chunks_written = k + 1;
        return write_error;
      };
    } else {
      po.want_chunk = [](int) { return false; };
    }
    ReplayPageBuilder builder(std::move(po));
    ReplayOptions ro;
    ro.source = path;
    ro.notes = options.show_notes;
    if (absl::Status s = StreamReplay(*lines, ro, builder); !s.ok()) {
      if (!write_error.ok()) {
        d.fatal = write_error;
        return;
      }
      // A record that does not verify gets no page, and keeps no chunk it
      // had written before the difference was found.
      for (int k = 0; k < chunks_written; ++k) {
        ::unlink(absl::StrCat(chunk_dir, "/", k, ".js").c_str());
      }
      if (chunk_dir_made) ::rmdir(chunk_dir.c_str());
      d.failure = absl::StrCat(path, ": ", s.message());
      d.entry = MatchErrorJson(name, std::string(s.message()));
      return;
    }
    std::string page;
    if (with_page) {
      page = absl::StrCat("replays/", page_name, ".html");
      d.fatal = WriteFileAtomically(absl::StrCat(sum.out_dir, "/", page), builder.page());
      if (!d.fatal.ok()) return;
      d.page = true;
      ++pages_so_far;
    }
    d.entry = MatchEntryJson(name, page, builder.summary());
  };
  const int threads =
      options.max_replays >= 0
          ? 1
          : static_cast<int>(std::clamp<size_t>(std::thread::hardware_concurrency(), 1,
                                                std::min<size_t>(files.size(), 8)));
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    for (size_t i; !stop && (i = next++) < files.size();) {
      one(i);
      if (!done[i].fatal.ok()) stop = true;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::string matches = "[";
  for (Done& d : done) {
    if (!d.fatal.ok()) return d.fatal;
    ++sum.records;
    if (!d.failure.empty()) sum.failures.push_back(std::move(d.failure));
    if (d.page) ++sum.replay_pages;
    absl::StrAppend(&matches, matches.size() > 1 ? "," : "", d.entry);
  }
  absl::StrAppend(&matches, "]");

  if (absl::Status s = WriteFileAtomically(absl::StrCat(sum.out_dir, "/index.html"),
                                           IndexPage(standings, matches, "",
                                                     SchedulePlanJson(records_dir)));
      !s.ok()) {
    return s;
  }
  return sum;
}

}  // namespace arena
