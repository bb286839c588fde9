// Reports for CI: JUnit XML (for test report viewers) and a markdown summary
// (for $GITHUB_STEP_SUMMARY and the like) of a tournament's standings and of
// a gate's result. `arena tournament|match --junit FILE --summary_md FILE` and
// `arena gate --junit FILE --summary_md FILE` write them (docs/ci.md): the
// JUnit file is replaced, the summary appended to.
//
// JUnit: one <testsuite> (name, tests, failures, errors="0", skipped="0").
// A tournament has one <testcase> per bot (name: the bot, classname
// "arena.tournament.<game>"), failing for forfeits, a withdrawal, crashes,
// cut-offs or restarts, with a message that says which. A gate has one
// <testcase> per verdict (classname "arena.gate.<game>"): "sprt", failing on
// H0, no decision, or no verdict (type "no_verdict", the verdict's line as
// its message: a bot did not play, arena/cli/gate_command.h), and "fault_rate",
// failing when the candidate's or the baseline's fault rate exceeds
// --max_fault_rate. The markdown's heading says PASS, FAIL or NO VERDICT.
//
// Everything taken from the standings or the records (bot names, reasons,
// game options) is hostile input: XML is escaped (&, <, >, ", ', line breaks
// as character references; characters XML 1.0 forbids and bytes that are not
// UTF-8 become U+FFFD), markdown cells are escaped so that no name can open
// a tag, a link, emphasis or a new cell or row. A withdrawal's reason is
// public text (arena/common/public_text.h): no path of the organiser's
// machine, only the last component of each.
//
// Thread safety: pure functions.
#ifndef ARENA_ARENA_VIEWS_REPORTS_H_
#define ARENA_ARENA_VIEWS_REPORTS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "arena/v1/config.pb.h"

namespace arena {

// `text` for an XML attribute value or element content.
std::string XmlEscape(absl::string_view text);
// `text` for inline markdown, a table cell included (GitHub flavour): line
// breaks as <br>, HTML's specials as entities, markdown's as \-escapes.
std::string MarkdownEscape(absl::string_view text);

// The JUnit XML and the markdown summary of a tournament's standings. The
// XML has a testcase per bot and one, kAllRecordedCase, that fails when a
// planned match has no complete record.
inline constexpr char kAllRecordedCase[] = "all planned matches recorded";
std::string TournamentJUnit(const v1::Standings& standings);
std::string TournamentMarkdown(const v1::Standings& standings);

// The JUnit XML and the markdown summary of a gate (GateResult with its
// rows, fault rate and verdict filled in, arena/cli/gate_command.h).
std::string GateJUnit(const v1::GateResult& gate);
std::string GateMarkdown(const v1::GateResult& gate);

// Appends `text` to `path` (created if missing, with the mode the JUnit file
// gets: PublicFileMode(), arena/common/json_file.h; a file that exists keeps
// its mode), as $GITHUB_STEP_SUMMARY expects of every step that writes to
// it; errors name the path.
absl::Status AppendToFile(const std::string& path, absl::string_view text);

// One line on a bot's faults by kind, e.g. "3 timeout, 1 crashed" ("none").
std::string FaultKindsText(const v1::FaultCounts& faults);

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_REPORTS_H_
