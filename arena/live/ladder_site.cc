#include "arena/live/ladder_site.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "arena/common/json_file.h"
#include "arena/views/reports.h"
#include "referee/clock/mono_clock.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace fs = std::filesystem;
namespace {

}  // namespace

// A file's identity for "did it change": its inode and modification time
// (the ladder writes both files by renaming a new one into place).
LadderSite::Stamp LadderSite::StampOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Stamp{};
  return Stamp{static_cast<uint64_t>(st.st_ino), st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
}

namespace {

std::string Text(absl::string_view s) { return XmlEscape(s); }

constexpr absl::string_view kStyle =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "td,th{border-bottom:1px solid #ddd;padding:.25em .6em;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".refused{color:#a00}.note{color:#555;font-size:.9em}"
    "svg.history{vertical-align:middle}";

// A bot name as the ladder makes them ("<entrant>.v<N>", entrant names of
// letters, digits, '-', '_', '.'), 1 to 200 characters.
bool SafeBot(absl::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
          c == '.')) {
      return false;
    }
  }
  return true;
}

// A version's history as SVG, kW by kH: the mean as a line (a point
// each), one uncertainty either side as a band; its title gives numbers.
// `axes`: the ranges written at the corners (the full-size plot).
std::string Plot(const std::string& bot, const std::vector<LadderSite::Point>& points,
                 int bucket, double kW, double kH, bool axes) {
  const double kPad = axes ? 14 : 3;
  if (points.empty()) return "<span class=\"note\">no rated match yet</span>";
  double lo = points[0].mu - points[0].sigma, hi = points[0].mu + points[0].sigma;
  for (const auto& p : points) {
    lo = std::min(lo, static_cast<double>(p.mu - p.sigma));
    hi = std::max(hi, static_cast<double>(p.mu + p.sigma));
  }
  if (hi - lo < 1e-9) hi = lo + 1;
  const double x0 = static_cast<double>(points.front().match);
  const double span = std::max(1.0, static_cast<double>(points.back().match) - x0);
  auto x = [&](const LadderSite::Point& p) {
    return kPad + (kW - 2 * kPad) * (static_cast<double>(p.match) - x0) / span;
  };
  auto y = [&](double v) { return kPad + (kH - 2 * kPad) * (hi - v) / (hi - lo); };
  std::string line, upper, lower;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    absl::StrAppendFormat(&line, "%s%.1f,%.1f", i ? " " : "", x(p), y(p.mu));
    absl::StrAppendFormat(&upper, "%.1f,%.1f ", x(p), y(p.mu + p.sigma));
  }
  for (size_t i = points.size(); i-- > 0;) {
    absl::StrAppendFormat(&lower, "%.1f,%.1f ", x(points[i]), y(points[i].mu - points[i].sigma));
  }
  const auto& last = points.back();
  std::string labels;
  if (axes) {
    labels = absl::StrFormat(
        "<text x=\"2\" y=\"11\" font-size=\"10\">%.1f</text>"
        "<text x=\"2\" y=\"%.0f\" font-size=\"10\">%.1f</text>"
        "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">match %d</text>"
        "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">match %d</text>",
        hi, kH - 2, lo, kPad, kH - 2, points.front().match, kW - kPad, kH - 2, last.match);
  }
  return absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"history\" data-bot=\"%s\" "
      "data-bucket=\"%d\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
      "role=\"img\"><title>%s: mean %.2f, uncertainty %.2f after the ladder's match %d; "
      "%s</title><polygon points=\"%s\" fill=\"#90caf9\" opacity=\".45\"/>"
      "<polyline points=\"%s\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"1.5\"/>"
      "%s</svg>",
      Text(bot), bucket, kW, kH, kW, kH, Text(bot), last.mu, last.sigma, last.match,
      bucket > 1 ? absl::StrCat("a point every ", bucket, " of its matches")
                 : std::string("a point per rated match"),
      upper + lower, line, labels);
}

}  // namespace

LadderSite::LadderSite(std::string dir, LadderSiteOptions options)
    : dir_(std::move(dir)), options_(std::move(options)) {
  // Before the first segment: a site of no folder (nothing to show).
  segment_ = std::make_shared<LiveSite>(absl::StrCat(dir_, "/records/.no-segment-yet"),
                                        options_.live);
}

void LadderSite::Rated(int64_t match, const std::vector<LadderRatedSeat>& seats) {
  const size_t max_points = static_cast<size_t>(std::max(2, options_.history_points));
  absl::MutexLock lock(&mu_);
  last_rated_ = std::max(last_rated_, match);
  ++rated_version_;
  for (const LadderRatedSeat& s : seats) {
    Track& t = history_[s.bot];
    t.last = Point{match, static_cast<float>(s.mu), static_cast<float>(s.sigma)};
    if (++t.count % t.stride != 0) continue;
    if (t.points.empty()) t.points.reserve(max_points + 1);  // its bound, once
    t.points.push_back(t.last);
    if (t.points.size() > max_points) {
      // Keep the points of every 2 * stride matches (the 2nd, 4th, ...),
      // in place.
      size_t n = 0;
      for (size_t i = 1; i < t.points.size(); i += 2) t.points[n++] = t.points[i];
      t.points.resize(n);
      t.stride *= 2;
    }
  }
}

std::vector<LadderSite::Point> LadderSite::History(const std::string& bot, int* bucket) const {
  absl::MutexLock lock(&mu_);
  auto it = history_.find(bot);
  if (it == history_.end()) {
    *bucket = 1;
    return {};
  }
  const Track& t = it->second;
  *bucket = static_cast<int>(t.stride);
  std::vector<Point> out = t.points;
  if (t.count % t.stride != 0) out.push_back(t.last);  // the newest, between buckets
  return out;
}

std::shared_ptr<LiveSite> LadderSite::live() const {
  absl::MutexLock lock(&mu_);
  return segment_;
}

std::shared_ptr<LiveSite> LadderSite::LiveOf(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  if (!segment_->Holds(name)) {
    for (const auto& site : earlier_) {
      if (site->Holds(name)) return site;
    }
  }
  return segment_;
}

int64_t LadderSite::version() const {
  absl::MutexLock lock(&mu_);
  return version_;
}

bool LadderSite::ReadIfChanged(const std::string& name, Stamp* stamp,
                               google::protobuf::Message* into) const {
  const std::string path = absl::StrCat(dir_, "/", name);
  const Stamp now = StampOf(path);
  if (!(now != *stamp) || !ReadJsonFile(path, into).ok()) return false;
  *stamp = now;
  return true;
}

bool LadderSite::ReadFiles() {
  v1::LadderLeaderboard board;
  v1::LadderEntrants entrants;
  const bool new_board = ReadIfChanged("leaderboard.json", &board_stamp_, &board);
  const bool new_entrants = ReadIfChanged("entrants.json", &entrants_stamp_, &entrants);
  v1::Standings final_standings;
  const bool new_final = ReadIfChanged("final/standings.json", &final_stamp_, &final_standings);
  absl::MutexLock lock(&mu_);
  if (new_board) board_ = std::move(board);
  if (new_entrants) entrants_ = std::move(entrants);
  if (new_final) final_ = std::move(final_standings);
  return new_board || new_entrants || new_final;
}

bool LadderSite::FollowSegment(bool last) {
  bool changed = false;
  const absl::Time now = MonoNow();
  if (last || now - last_scan_ >= options_.segment_scan) {
    last_scan_ = now;
    std::string newest;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(absl::StrCat(dir_, "/records"), ec)) {
      const std::string name = e.path().filename().string();
      if (absl::StartsWith(name, "segment-") && name > newest && !e.is_symlink(ec)) newest = name;
    }
    if (!newest.empty()) newest = absl::StrCat(dir_, "/records/", newest);
    // After the freeze, the final (DIR/final) is what plays.
    const std::string final_dir = absl::StrCat(dir_, "/final");
    if (fs::is_directory(fs::symlink_status(final_dir, ec))) newest = final_dir;
    if (!newest.empty() && newest != segment_dir_) {
      const bool first = segment_dir_.empty();
      segment_dir_ = newest;
      auto site = std::make_shared<LiveSite>(segment_dir_, options_.live);
      // The one followed until now reads its folder once more (the
      // records that landed since its last poll) and stays, served.
      if (!first) live()->Poll(/*last=*/false);
      absl::MutexLock lock(&mu_);
      if (!first && options_.earlier_segments > 0) {
        earlier_.push_front(std::move(segment_));
        if (static_cast<int>(earlier_.size()) > options_.earlier_segments) earlier_.pop_back();
      }
      segment_ = std::move(site);
      following_final_ = newest == final_dir;
      changed = true;
    }
  }
  // An earlier segment with matches still in progress is followed to
  // their ends (a segment normally ends with its last match).
  std::vector<std::shared_ptr<LiveSite>> unfinished;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& site : earlier_) {
      if (!site->LiveMatches(1).empty()) unfinished.push_back(site);
    }
  }
  for (const auto& site : unfinished) site->Poll(/*last=*/false);
  // Not `last`: that would rebuild the segment's standings, which this
  // page does not show (at a long segment's end, seconds of bootstrap).
  changed |= live()->Poll(/*last=*/false);
  return changed;
}

bool LadderSite::Poll(bool last) {
  bool changed = ReadFiles();
  changed |= FollowSegment(last);
  absl::MutexLock lock(&mu_);
  const bool rated = rated_version_ != seen_rated_;
  seen_rated_ = rated_version_;
  if (changed || rated) ++version_;
  return changed || rated;
}

std::optional<SiteFront::Route> LadderSite::RouteOf(const std::string& path) const {
  if (path == "/" || path == "/index.html") {
    Route r;
    // Built once a version (a poll that saw a change): the askers
    // meanwhile join the build, those after get the copy kept here (not
    // in the workers' cache, which would fill with stale versions).
    const int64_t v = version();
    r.key = absl::StrCat("ladder@", v);
    r.build = [this, v] {
      arena::Page p;
      {
        absl::MutexLock lock(&page_mu_);
        if (page_version_ == v) {
          p.body = page_;
          return p;
        }
      }
      p.body = Page();
      absl::MutexLock lock(&page_mu_);
      if (v > page_version_) {
        page_version_ = v;
        page_ = p.body;
      }
      return p;
    };
    return r;
  }
  constexpr absl::string_view kHistory = "/history/", kSvg = ".svg";
  if (absl::StartsWith(path, kHistory) && absl::EndsWith(path, kSvg)) {
    // Any version's plot, full size (retired ones too): a name looked up
    // among the histories, never a file.
    const std::string bot =
        path.substr(kHistory.size(), path.size() - kHistory.size() - kSvg.size());
    Route r;
    r.build = [this, bot] {
      arena::Page p;
      int bucket = 1;
      std::vector<Point> points;
      if (SafeBot(bot)) points = History(bot, &bucket);
      if (points.empty()) {
        p.status = 404;
        p.type = "text/plain";
        p.body = "not found\n";
        return p;
      }
      p.type = "image/svg+xml";
      p.body = Plot(bot, points, bucket, 640, 240, /*axes=*/true);
      return p;
    };
    return r;
  }
  if (path == "/events" || path == "/matches.json") {
    Route r;
    r.build = [] {
      arena::Page p;
      p.status = 404;
      p.type = "text/plain";
      p.body = "not found\n";
      return p;
    };
    return r;
  }
  return std::nullopt;
}

namespace {

// The final's result (its standings.json): each finalist's rank with its
// interval, rating with its interval, matches, and whom it is surely ahead
// of; the page's words say how sure the ranks are.
std::string FinalSection(const v1::Standings& s) {
  const int level = static_cast<int>(std::lround(s.interval_level() * 100));
  std::string out = absl::StrCat(
      "<h2 id=\"final-title\">The final</h2><p class=\"note\" id=\"final-summary\">The top ",
      s.rows_size(), " of the leaderboard at the freeze, from fresh ratings: ", s.matches_played(),
      " matches played.");
  if (s.bootstrap() > 0) {
    absl::StrAppend(&out, " Each rank and rating with its ", level, " % interval (",
                    s.bootstrap(), " resamples of the matches); ", s.pairs_ordered(), " of ",
                    s.pairs_compared(), " pairs are surely ordered.");
  } else {
    out += " Too few matches for intervals.";
  }
  absl::StrAppend(&out, "</p><table id=\"final\"><tr><th>rank</th><th>", level,
                  " % ranks</th><th>version</th><th>Elo</th><th>", level,
                  " % interval</th><th>matches</th><th>surely ahead of</th></tr>");
  for (const auto& r : s.rows()) {
    absl::StrAppend(
        &out, "<tr><td>", r.rank(), "</td><td>",
        r.rank_low() == r.rank_high() ? absl::StrCat(r.rank_low())
                                      : absl::StrCat(r.rank_low(), "&ndash;", r.rank_high()),
        "</td><td>", Text(r.bot()), r.withdrawn() ? " (withdrawn)" : "", "</td><td>",
        absl::StrFormat("%+.0f", r.elo()), "</td><td>",
        absl::StrFormat("[%+.0f, %+.0f]", r.elo_low(), r.elo_high()), "</td><td>", r.matches(),
        "</td><td>", r.surely_ahead_count(), "</td></tr>");
  }
  return out + "</table>";
}

}  // namespace

std::string LadderSite::Page() const {
  v1::LadderLeaderboard board;
  v1::LadderEntrants entrants;
  std::shared_ptr<LiveSite> segment;
  bool final;
  int64_t last_rated;
  std::optional<v1::Standings> final_standings;
  {
    absl::MutexLock lock(&mu_);
    board = board_;
    entrants = entrants_;
    segment = segment_;
    final = following_final_;
    last_rated = last_rated_;
    final_standings = final_;
  }
  std::map<std::string, int64_t> matches_of;  // current versions' matches
  for (const auto& r : board.rows()) matches_of[r.bot()] = r.matches();
  std::string out = absl::StrCat(
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"refresh\" content=\"5\"><title>Ladder: ",
      Text(board.game()), "</title><style>", kStyle, "</style></head><body><h1>Ladder: ",
      Text(board.game()), "</h1><p id=\"summary\">", board.matches(), " rated matches",
      board.frozen() ? "; submissions are closed (frozen)" : "",
      ". This page reloads every 5 seconds.</p>");
  if (final_standings.has_value()) out += FinalSection(*final_standings);
  absl::StrAppend(
      &out, "<h2>Leaderboard</h2><p class=\"note\" id=\"ranked-by\">Ranked by the conservative "
            "bound, mean &minus; 3 &times; uncertainty (",
      Text(board.ranked_by()),
      "): a version with few matches is shown below where its mean alone would put it. "
      "History: its mean after each rated match, the band one uncertainty either side.</p>",
      options_.history && last_rated < board.matches()
          ? absl::StrCat("<p class=\"note\" id=\"history-behind\">The history is being "
                         "rebuilt from the records: ",
                         last_rated, " of ", board.matches(), " matches so far.</p>")
          : std::string(),
      "<table id=\"leaderboard\"><tr><th>rank</th><th>entrant</th><th>version</th>"
      "<th>mean</th><th>uncertainty</th><th>mean &minus; 3 &times; uncertainty "
      "(ranked by)</th><th>matches</th><th>history</th></tr>");
  for (const auto& r : board.rows()) {
    int bucket = 1;
    std::vector<Point> points = History(r.bot(), &bucket);
    // As far as the leaderboard shown (its file lags the ratings a little).
    while (!points.empty() && points.back().match > board.matches()) points.pop_back();
    std::string plot = "<span class=\"note\">shown by arena ladder run --serve</span>";
    if (options_.history && r.rank() <= options_.plots_inline) {
      plot = absl::StrCat(Plot(r.bot(), points, bucket, 220, 48, false), " <a href=\"history/",
                          Text(r.bot()), ".svg\">larger</a>");
    } else if (options_.history) {
      plot = absl::StrCat("<a href=\"history/", Text(r.bot()), ".svg\">plot</a>");
    }
    absl::StrAppendFormat(
        &out,
        "<tr data-bot=\"%s\"><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%d</td>"
        "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
        "<td class=\"n\">%d</td><td>%s</td></tr>",
        Text(r.bot()), r.rank(), Text(r.entrant()), r.version(), r.mu(), r.sigma(),
        r.conservative(), r.matches(), plot);
  }
  out += "</table>";

  // The newest submissions first.
  absl::StrAppend(&out, "<h2>Submissions</h2><p class=\"note\">The newest ",
                  std::min(options_.submissions_shown, entrants.submissions_size()), " of ",
                  entrants.submissions_size(),
                  "; a new version places over its first ", options_.placement_matches,
                  " matches.</p><table id=\"submissions\"><tr><th>file</th><th>entrant</th>"
                  "<th>what</th><th>result</th><th>placement</th></tr>");
  const int n = entrants.submissions_size();
  for (int i = n - 1; i >= 0 && i >= n - options_.submissions_shown; --i) {
    const v1::LadderSubmissionReport& s = entrants.submissions(i);
    const bool submit = s.action() == v1::LADDER_ACTION_SUBMIT;
    std::string result, placement;
    if (s.state() == v1::SUBMISSION_STATE_REJECTED) {
      result = absl::StrCat("<span class=\"refused\">refused: ", Text(s.reason()), "</span>");
    } else if (s.state() == v1::SUBMISSION_STATE_ACCEPTED) {
      result = submit ? absl::StrCat("accepted as ", Text(s.bot())) : "done";
      if (s.retired()) absl::StrAppend(&result, " (retired)");
      if (auto it = matches_of.find(s.bot()); submit && it != matches_of.end()) {
        placement = it->second >= options_.placement_matches
                        ? absl::StrCat("placed (", it->second, " matches)")
                        : absl::StrCat(it->second, " of ", options_.placement_matches,
                                       " placement matches");
      }
    }
    absl::StrAppend(&out, "<tr><td>", Text(s.file()), "</td><td>", Text(s.entrant()),
                    "</td><td>", submit                                       ? "submit"
                    : s.action() == v1::LADDER_ACTION_WITHDRAW ? "withdraw"
                                                               : "?",
                    "</td><td>", result, "</td><td>", placement, "</td></tr>");
  }
  out += "</table>";

  const std::vector<LiveSite::LiveMatchInfo> live = segment->LiveMatches(options_.live_shown);
  absl::StrAppend(&out, "<h2>Matches in progress</h2>");
  if (final) out += "<p class=\"note\">The final's (DIR/final).</p>";
  if (live.empty()) out += "<p id=\"live\">None now.</p>";
  if (!live.empty()) out += "<ul id=\"live\">";
  for (const LiveSite::LiveMatchInfo& m : live) {
    absl::StrAppend(&out, "<li><a href=\"live/", Text(m.id), ".html\">", Text(m.id), "</a>");
    // Its seats' versions, once its header is read.
    for (size_t i = 0; i < m.seats.size(); ++i) {
      absl::StrAppend(&out, i == 0 ? ": " : ", ", "<span class=\"seat\">", Text(m.seats[i]),
                      "</span>");
    }
    out += "</li>";
  }
  if (!live.empty()) out += "</ul>";
  return out + "</body></html>\n";
}

}  // namespace arena
