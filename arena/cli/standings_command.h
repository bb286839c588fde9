// `arena standings DIR... [--out OUT]`: each folder's standings rebuilt from
// its records (and manifest), printed and written back into the folder; with
// several folders (or --out), also their combined standings (shards or runs
// of one tournament; a match in two folders is refused). The records are
// read one at a time into accumulators: what is kept grows with the bots and
// deal groups, not with the matches (but for the match ids, to refuse a
// match counted twice).
//
// Thread safety: RunStandings reads and writes files; one at a time per folder.
#ifndef ARENA_ARENA_CLI_STANDINGS_COMMAND_H_
#define ARENA_ARENA_CLI_STANDINGS_COMMAND_H_

#include <string>
#include <vector>

namespace arena {

struct StandingsCommandOptions {
  std::vector<std::string> dirs;  // records folders, at least one
  std::string out_dir;            // also write the combined standings here
};

// Returns the exit code: 0 all read; 1 a record or entrants.json was skipped
// (named on stderr); 2 an error (printed on stderr).
int RunStandings(const StandingsCommandOptions& options);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_STANDINGS_COMMAND_H_
