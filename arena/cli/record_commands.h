// The `arena` commands that read what a tournament left: `arena verify`
// (re-simulate records, check a folder's standings), `arena replay` (one
// record in words or as JSON), `arena cat` (records of any format as JSON
// lines), `arena html` (a static site of a folder); and `arena games` (the
// games and their options). Each prints on stdout and returns the exit code;
// errors are printed on stderr (exit 2).
//
// Thread safety: plain functions that read (and, html, write) files.
#ifndef ARENA_ARENA_CLI_RECORD_COMMANDS_H_
#define ARENA_ARENA_CLI_RECORD_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "arena/views/html.h"

namespace arena {

// `arena verify FILE|DIR`: 0 if every record verified (and there is one), else 1.
int RunVerify(const std::string& path);

struct ReplayCommandOptions {
  std::string file;   // the record
  int seat = -1;      // show only what this seat saw (-1: everything)
  int64_t step = -1;  // stop after this step (-1: the whole match)
  // Empty: text on stdout; "-": one arena.v1.Replay JSON document on stdout;
  // else a file to write that document to.
  std::string json;
};
// `arena cat RECORD...`: each record, of any format, as protobuf's JSON
// mapping, a line each (what a record in the JSON Lines format holds): 0, or
// 2 at the first record that cannot be read.
int RunCat(const std::vector<std::string>& files);

// `arena replay FILE`: 0, or 2 on an error.
int RunReplay(const ReplayCommandOptions& options);

// `arena html DIR`: 0 if every record got its page, 1 if some failed, 2 on
// an error (max_replays below -1 included).
int RunHtml(const std::string& dir, const HtmlOptions& options);

// `arena games`: 0.
int RunGames();

}  // namespace arena

#endif  // ARENA_ARENA_CLI_RECORD_COMMANDS_H_
