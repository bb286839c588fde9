#include "arena/views/reports.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "arena/common/json_file.h"
#include "arena/common/public_text.h"
#include "arena/stats/sprt.h"
#include "arena/stats/standings.h"

namespace arena {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// The code point of the UTF-8 sequence at text[*i] (advancing *i past it),
// or -1 for a byte that does not start a valid, shortest sequence (*i past
// that byte only).
int32_t NextCodePoint(absl::string_view text, size_t* i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(*i);
  int len = 0;
  int32_t cp = 0;
  if (c < 0x80) {
    ++*i;
    return c;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07;
  } else {
    ++*i;
    return -1;
  }
  if (*i + len > text.size()) {
    ++*i;
    return -1;
  }
  for (int k = 1; k < len; ++k) {
    if ((byte(*i + k) & 0xC0) != 0x80) {
      ++*i;
      return -1;
    }
    cp = (cp << 6) | (byte(*i + k) & 0x3F);
  }
  static constexpr int32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*i;
    return -1;
  }
  *i += len;
  return cp;
}

// Calls fn(code point, its bytes) for each character of `text`; invalid
// bytes and characters XML 1.0 forbids (controls but tab, LF and CR, U+FFFE,
// U+FFFF) come as U+FFFD.
template <typename Fn>
void ForEachChar(absl::string_view text, Fn fn) {
  for (size_t i = 0; i < text.size();) {
    const size_t start = i;
    const int32_t cp = NextCodePoint(text, &i);
    const bool allowed = cp >= 0x20 ? cp != 0xFFFE && cp != 0xFFFF
                                    : cp == '\t' || cp == '\n' || cp == '\r';
    if (!allowed) {
      fn(0xFFFD, absl::string_view(kReplacement));
    } else {
      fn(cp, text.substr(start, i - start));
    }
  }
}

std::string Percent(double x) { return absl::StrFormat("%.1f%%", 100 * x); }

double WinShare(const v1::StandingRow& r) {
  return r.seats_played() > 0 ? static_cast<double>(r.wins()) / r.seats_played() : 0;
}

// Why a bot's testcase fails ("" if it does not): forfeits, withdrawal,
// crashes, cut-offs, restarts (FailedEntrants's reasons).
std::string BotProblems(const v1::Standings& st, const v1::StandingRow& r) {
  std::vector<std::string> why;
  if (r.withdrawn()) {
    why.push_back(r.withdrawn_reason().empty()
                      ? "withdrawn"
                      : absl::StrCat("withdrawn: ", PublicText(r.withdrawn_reason())));
  }
  if (r.forfeits() > 0) why.push_back(absl::StrCat(r.forfeits(), " forfeit(s)"));
  if (r.fault_kinds().crashed() > 0) {
    why.push_back(absl::StrCat(r.fault_kinds().crashed(), " crash(es)"));
  }
  if (r.fault_kinds().cut_off() > 0) {
    why.push_back(absl::StrCat(r.fault_kinds().cut_off(), " cut-off(s)"));
  }
  for (const auto& e : st.entrants()) {
    if (e.bot() != r.bot()) continue;
    if (e.restarts() > 0) why.push_back(absl::StrCat(e.restarts(), " restart(s)"));
    if (e.withdrawn() && !r.withdrawn()) {
      why.push_back(absl::StrCat("withdrawn: ", PublicText(e.reason())));
    }
  }
  // Anything else FailedEntrants counts as a program's failure.
  if (why.empty()) {
    for (const auto& b : FailedEntrants(st)) {
      if (b == r.bot()) why.push_back("failed as a program (see its log)");
    }
  }
  return absl::StrJoin(why, "; ");
}

// The matches the SPRT counted beside those played: "416 of 417 matches
// played (208 whole deal groups)"; a deal group counts once all its matches
// are in, so a gate that stops leaves the rest of a group uncounted.
std::string SprtMatches(const v1::GateResult& g) {
  return absl::StrFormat("%d of %d matches played (%d whole deal groups)", g.games(),
                         std::max(g.games(), g.candidate_matches()), g.deal_groups());
}

std::string Attr(absl::string_view name, absl::string_view value) {
  return absl::StrCat(" ", name, "=\"", XmlEscape(value), "\"");
}

std::string FaultRow(absl::string_view bot, absl::string_view role, const v1::StandingRow& r) {
  const v1::FaultCounts& f = r.fault_kinds();
  std::string row = absl::StrCat("| ", MarkdownEscape(bot), " |");
  if (!role.empty()) absl::StrAppend(&row, " ", role, " |");
  absl::StrAppend(&row, " ", r.matches(), " | ", r.forfeits(), " | ", f.timeout(), " | ",
                  f.illegal(), " | ", f.disconnected(), " | ", f.unavailable(), " | ",
                  f.crashed(), " | ", f.no_show(), " | ", f.cut_off(), " | ",
                  r.withdrawn()
                      ? absl::StrCat("yes: ", MarkdownEscape(PublicText(r.withdrawn_reason())))
                                : std::string("no"),
                  " |\n");
  return row;
}

constexpr char kFaultHeader[] =
    " matches | forfeits | timeout | illegal | disconnected | unavailable | crashed | "
    "no-show | cut-off | withdrawn |\n";
constexpr char kFaultRule[] = "---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";

}  // namespace

std::string XmlEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  ForEachChar(text, [&](int32_t cp, absl::string_view bytes) {
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += "&#9;"; break;
      default: out.append(bytes.data(), bytes.size());
    }
  });
  return out;
}

std::string MarkdownEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool after_cr = false;
  ForEachChar(text, [&](int32_t cp, absl::string_view bytes) {
    const bool lf_after_cr = after_cr && cp == '\n';
    after_cr = cp == '\r';
    if (lf_after_cr) return;  // CR LF: one line break
    switch (cp) {
      case '\n': case '\r': out += "<br>"; break;
      case '\t': out += ' '; break;
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|':
      case '~': case '$': case '#': case '!':
        out += '\\';
        out += static_cast<char>(cp);
        break;
      default: out.append(bytes.data(), bytes.size());
    }
  });
  return out;
}

absl::Status AppendToFile(const std::string& path, absl::string_view text) {
  // A new file is published as the JUnit file is (WriteFileAtomically), not
  // with the process's umask of 077; one that exists keeps its mode.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOCTTY,
                  0600);
  if (fd >= 0 && ::fchmod(fd, PublicFileMode()) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot set the mode of ", path, ": ", std::strerror(err)));
  }
  if (fd < 0 && errno == EEXIST) {
    fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
  }
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open ", path, " to append to: ", std::strerror(errno)));
  }
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      return absl::DataLossError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  if (::close(fd) != 0) {
    return absl::DataLossError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

std::string FaultKindsText(const v1::FaultCounts& f) {
  std::vector<std::string> parts;
  const std::pair<const char*, int> kinds[] = {
      {"timeout", f.timeout()},   {"illegal", f.illegal()},
      {"disconnected", f.disconnected()}, {"unavailable", f.unavailable()},
      {"crashed", f.crashed()},   {"no-show", f.no_show()},
      {"cut-off", f.cut_off()}};
  for (const auto& [name, n] : kinds) {
    if (n > 0) parts.push_back(absl::StrCat(n, " ", name));
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, ", ");
}

std::string TournamentJUnit(const v1::Standings& st) {
  const std::string classname = absl::StrCat("arena.tournament.", st.game());
  int failures = 0;
  std::string cases;
  for (const auto& r : st.rows()) {
    const std::string problems = BotProblems(st, r);
    absl::StrAppend(&cases, "    <testcase", Attr("name", r.bot()), Attr("classname", classname),
                    ">\n");
    if (!problems.empty()) {
      ++failures;
      absl::StrAppend(&cases, "      <failure", Attr("message", problems),
                      Attr("type", r.withdrawn() ? "withdrawn" : "failed"), ">",
                      XmlEscape(absl::StrCat(r.bot(), ": ", problems)), "</failure>\n");
    }
    absl::StrAppend(
        &cases, "      <system-out>",
        XmlEscape(absl::StrFormat(
            "%s, %d matches, %d seats, win %s, mean score "
            "%.3f, mean place %.3f, %d forfeits, faults: %s",
            // Rank 0: unranked (no match against another bot), no rating.
            r.rank() > 0 ? absl::StrFormat("rank %d, elo %+.0f [%+.0f, %+.0f]", r.rank(),
                                           r.elo(), r.elo_low(), r.elo_high())
                         : std::string("unranked"),
            r.matches(), r.seats_played(),
            Percent(WinShare(r)), r.mean_score(), r.mean_placement(), r.forfeits(),
            FaultKindsText(r.fault_kinds()))),
        "</system-out>\n    </testcase>\n");
  }
  // One testcase for the tournament itself: every planned match has a
  // complete record (a match that could not be recorded counts for no bot).
  absl::StrAppend(&cases, "    <testcase", Attr("name", kAllRecordedCase),
                  Attr("classname", classname), ">\n");
  if (st.matches_unrecorded() > 0) {
    ++failures;
    const std::string what = absl::StrFormat(
        "%d of %d planned matches have no complete record", st.matches_unrecorded(),
        st.matches_planned());
    absl::StrAppend(&cases, "      <failure", Attr("message", what), Attr("type", "unrecorded"),
                    ">", XmlEscape(what), "</failure>\n");
  }
  absl::StrAppend(&cases, "    </testcase>\n");
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  absl::StrAppend(&out, "  <testsuite", Attr("name", absl::StrCat("arena tournament ", st.game())),
                  Attr("tests", absl::StrCat(st.rows_size() + 1)),
                  Attr("failures", absl::StrCat(failures)), Attr("errors", "0"),
                  Attr("skipped", "0"), ">\n");
  absl::StrAppend(&out, "    <properties>\n");
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"game", st.game()},
           {"seats", absl::StrCat(st.seats())},
           {"matches_played", absl::StrCat(st.matches_played())},
           {"matches_planned", absl::StrCat(st.matches_planned())},
           {"matches_unrecorded", absl::StrCat(st.matches_unrecorded())}}) {
    absl::StrAppend(&out, "      <property", Attr("name", k), Attr("value", v), "/>\n");
  }
  absl::StrAppend(&out, "    </properties>\n", cases, "  </testsuite>\n</testsuites>\n");
  return out;
}

std::string TournamentMarkdown(const v1::Standings& st) {
  std::string out = absl::StrCat("### arena tournament: ", MarkdownEscape(st.game()), "\n\n");
  absl::StrAppendFormat(&out, "%d seats, %d of %d matches recorded, %d deal groups%s.\n\n",
                        st.seats(), st.matches_played(), st.matches_planned(),
                        st.deal_groups(),
                        st.higher_score_wins() ? "" : " (lower score is better)");
  if (st.matches_unrecorded() > 0) {
    absl::StrAppendFormat(&out, "**%d planned matches have no complete record.**\n\n",
                          st.matches_unrecorded());
  }
  out +=
      "| rank | bot | elo | 95% interval | matches | win% | mean score | mean place | "
      "forfeits | faults |\n"
      "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : st.rows()) {
    const bool ranked = r.rank() > 0;  // 0: unranked, no rating
    absl::StrAppendFormat(&out, "| %s | %s | %s | %s | %d | %s | %.3f | %.3f | %d | %d |\n",
                          ranked ? absl::StrCat(r.rank()) : "-", MarkdownEscape(r.bot()),
                          ranked ? absl::StrFormat("%+.0f", r.elo()) : "-",
                          ranked ? absl::StrFormat("[%+.0f, %+.0f]", r.elo_low(), r.elo_high())
                                 : "unranked",
                          r.matches(), Percent(WinShare(r)), r.mean_score(),
                          r.mean_placement(), r.forfeits(), r.faults());
  }
  bool any_answer = false;
  for (const auto& r : st.rows()) any_answer |= r.answers() > 0;
  if (any_answer) {
    bool bank = false;  // a column for the time banks, when any was spent
    for (const auto& r : st.rows()) bank |= r.bank_spent_ms() > 0;
    out += "\n#### Think time\n\n| bot | answers in time | median ms | 95% ms | longest ms | "
           "timeouts |";
    out += bank ? " bank spent ms |\n|---|---:|---:|---:|---:|---:|---:|\n"
                : "\n|---|---:|---:|---:|---:|---:|\n";
    for (const auto& r : st.rows()) {
      absl::StrAppendFormat(&out, "| %s | %d | %.2f | %.2f | %.2f | %d |",
                            MarkdownEscape(r.bot()), r.answers(), r.think_ms_median(),
                            r.think_ms_p95(), r.think_ms_max(), r.fault_kinds().timeout());
      out += bank ? absl::StrFormat(" %.1f |\n", r.bank_spent_ms()) : "\n";
    }
  }
  bool any_process = false;
  for (const auto& r : st.rows()) any_process |= r.processes() > 0;
  if (any_process) {
    out +=
        "\n#### Processes\n\n| bot | processes | CPU s | peak RSS MiB |\n"
        "|---|---:|---:|---:|\n";
    for (const auto& r : st.rows()) {
      absl::StrAppendFormat(&out, "| %s | %d | %.2f | %.1f |\n", MarkdownEscape(r.bot()),
                            r.processes(), r.cpu_seconds(), r.peak_rss_kib() / 1024.0);
    }
  }
  bool any_fault = false;
  for (const auto& r : st.rows()) any_fault |= r.faults() > 0 || r.forfeits() > 0 || r.withdrawn();
  if (any_fault) {
    absl::StrAppend(&out, "\n#### Faults by kind\n\n| bot |", kFaultHeader, "|---|", kFaultRule);
    for (const auto& r : st.rows()) out += FaultRow(r.bot(), "", r);
  }
  std::vector<std::string> failed;
  for (const auto& r : st.rows()) {
    if (std::string p = BotProblems(st, r); !p.empty()) {
      failed.push_back(absl::StrCat("- **", MarkdownEscape(r.bot()), "**: ", MarkdownEscape(p)));
    }
  }
  if (failed.empty()) {
    out += "\nNo bot forfeited, crashed or was withdrawn.\n";
  } else {
    absl::StrAppend(&out, "\n#### Failures\n\n", absl::StrJoin(failed, "\n"), "\n");
  }
  return out;
}

std::string GateJUnit(const v1::GateResult& g) {
  const std::string classname = absl::StrCat("arena.gate.", g.game());
  // No verdict (a bot did not play) fails "sprt" whatever its numbers say.
  const bool sprt_failed = g.no_verdict() || g.decision() != "H1";
  const std::string sprt_type = g.no_verdict()          ? "no_verdict"
                                : g.decision() == "H0" ? "H0"
                                                       : "no_decision";
  const std::string sprt_message =
      g.no_verdict() ? g.verdict()
      : g.decision() == "H1"
          ? ""
          : g.decision() == "H0"
                ? absl::StrFormat("H0 accepted: %s is at most %g Elo stronger than %s "
                                  "(LLR %.3f <= %.3f)",
                                  g.candidate(), g.elo0(), g.baseline(), g.llr(), g.lower_bound())
                : absl::StrFormat("no decision within %d matches (LLR %.3f, bounds %.3f, %.3f)",
                                  g.games(), g.llr(), g.lower_bound(), g.upper_bound());
  const bool fault_failed = g.fault_rate_exceeded() || g.baseline_fault_rate_exceeded();
  std::vector<std::string> fault_parts;
  if (g.fault_rate_exceeded()) {
    fault_parts.push_back(absl::StrFormat(
        "fault rate %.4g (%d of %d matches with a fault of %s) exceeds --max_fault_rate %g; "
        "faults: %s",
        g.fault_rate(), g.candidate_fault_matches(), g.candidate_matches(), g.candidate(),
        g.max_fault_rate(), FaultKindsText(g.candidate_row().fault_kinds())));
  }
  if (g.baseline_fault_rate_exceeded()) {
    fault_parts.push_back(absl::StrFormat(
        "fault rate %.4g (%d of %d matches with a fault of %s, the baseline) exceeds "
        "--max_fault_rate %g; faults: %s",
        g.baseline_fault_rate(), g.baseline_fault_matches(), g.baseline_matches(),
        g.baseline(), g.max_fault_rate(), FaultKindsText(g.baseline_row().fault_kinds())));
  }
  const std::string fault_message = absl::StrJoin(fault_parts, "; and ");
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  absl::StrAppend(
      &out, "  <testsuite",
      Attr("name", absl::StrCat("arena gate ", g.candidate(), " against ", g.baseline())),
      Attr("tests", "2"),
      Attr("failures", absl::StrCat(int{sprt_failed} + int{fault_failed})),
      Attr("errors", "0"), Attr("skipped", "0"), ">\n    <properties>\n");
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"game", g.game()},
           {"candidate", g.candidate()},
           {"baseline", g.baseline()},
           {"decision", g.decision()},
           {"verdict", g.verdict()},
           {"records_dir", g.records_dir()}}) {
    absl::StrAppend(&out, "      <property", Attr("name", k), Attr("value", v), "/>\n");
  }
  absl::StrAppend(&out, "    </properties>\n");
  absl::StrAppend(&out, "    <testcase", Attr("name", "sprt"), Attr("classname", classname), ">\n");
  if (sprt_failed) {
    absl::StrAppend(&out, "      <failure", Attr("message", sprt_message),
                    Attr("type", sprt_type), ">", XmlEscape(sprt_message), "</failure>\n");
  }
  absl::StrAppend(
      &out, "      <system-out>",
      XmlEscape(absl::StrFormat("%s: LLR %.3f (bounds %.3f, %.3f), %s; Elo %s", g.decision(),
                                g.llr(), g.lower_bound(), g.upper_bound(), SprtMatches(g),
                                EloText(g.elo(), g.elo_low(), g.elo_high(), g.deal_groups()))),
      "</system-out>\n    </testcase>\n");
  absl::StrAppend(&out, "    <testcase", Attr("name", "fault_rate"), Attr("classname", classname),
                  ">\n");
  if (fault_failed) {
    absl::StrAppend(&out, "      <failure", Attr("message", fault_message),
                    Attr("type", "fault_rate"), ">", XmlEscape(fault_message), "</failure>\n");
  }
  const auto side_text = [&](const std::string& bot, int fault_matches, int matches,
                             double rate, const v1::StandingRow& row) {
    return absl::StrFormat("%s: %d of %d matches with a fault (%.4g, limit %g); forfeits %d; "
                           "faults: %s%s",
                           bot, fault_matches, matches, rate, g.max_fault_rate(),
                           row.forfeits(), FaultKindsText(row.fault_kinds()),
                           row.withdrawn() ? "; withdrawn" : "");
  };
  absl::StrAppend(
      &out, "      <system-out>",
      XmlEscape(absl::StrCat(
          side_text(g.candidate(), g.candidate_fault_matches(), g.candidate_matches(),
                    g.fault_rate(), g.candidate_row()),
          "\n",
          side_text(g.baseline(), g.baseline_fault_matches(), g.baseline_matches(),
                    g.baseline_fault_rate(), g.baseline_row()))),
      "</system-out>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
  return out;
}

std::string GateMarkdown(const v1::GateResult& g) {
  std::string out = absl::StrCat("### arena gate: ",
                                 g.passed()       ? "PASS"
                                 : g.no_verdict() ? "NO VERDICT"
                                                  : "FAIL",
                                 ", ", MarkdownEscape(g.candidate()), " against ",
                                 MarkdownEscape(g.baseline()), "\n\n");
  absl::StrAppend(&out, "**Verdict:** ", MarkdownEscape(g.verdict()), "\n\n");
  absl::StrAppend(&out, "| | |\n|---|---|\n");
  absl::StrAppend(&out, "| game | ", MarkdownEscape(g.game()), ", ", g.seats(), " seats |\n");
  absl::StrAppendFormat(&out, "| SPRT | %s, LLR %.3f (bounds %.3f, %.3f), elo0 %g, elo1 %g, "
                              "alpha %g, beta %g |\n",
                        g.no_verdict()          ? "no verdict (a bot did not play)"
                        : g.decision() == "none" ? "no decision"
                                                 : g.decision() + " accepted",
                        g.llr(), g.lower_bound(), g.upper_bound(), g.elo0(), g.elo1(),
                        g.alpha(), g.beta());
  absl::StrAppendFormat(&out, "| Elo | %s |\n",
                        EloText(g.elo(), g.elo_low(), g.elo_high(), g.deal_groups()));
  absl::StrAppendFormat(&out, "| matches in the SPRT | %s |\n", SprtMatches(g));
  absl::StrAppendFormat(&out, "| fault rate, candidate | %d of %d matches (%s), limit %s%s |\n",
                        g.candidate_fault_matches(), g.candidate_matches(),
                        Percent(g.fault_rate()), Percent(g.max_fault_rate()),
                        g.fault_rate_exceeded() ? ": **exceeded**" : "");
  absl::StrAppendFormat(&out, "| fault rate, baseline | %d of %d matches (%s), limit %s%s |\n",
                        g.baseline_fault_matches(), g.baseline_matches(),
                        Percent(g.baseline_fault_rate()), Percent(g.max_fault_rate()),
                        g.baseline_fault_rate_exceeded() ? ": **exceeded**" : "");
  absl::StrAppend(&out, "\n| bot | role |", kFaultHeader, "|---|---|", kFaultRule);
  out += FaultRow(g.candidate(), "candidate", g.candidate_row());
  out += FaultRow(g.baseline(), "baseline", g.baseline_row());
  return out;
}

}  // namespace arena
