// Re-simulating match records: `arena verify` (and, through Resimulate,
// `arena replay` and `arena html`).
//
// Both read a record (RecordLine JSON Lines), make the game from its header
// and play the recorded actions again from the recorded seed. Verification
// checks, line by line, that every event (deals, draws, reshuffles) comes
// out the same, that every recorded action was legal for the seats that had
// to act, and that the result is the one the rules give; the first
// difference is reported with the match id, the step and what differs.
#ifndef ARENA_ARENA_RECORD_TOOLS_H_
#define ARENA_ARENA_RECORD_TOOLS_H_

#include <sys/stat.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "arena/v1/record.pb.h"
#include "referee/game.h"

namespace arena {

// Verifies one parsed record.
absl::Status VerifyRecord(const std::vector<v1::RecordLine>& lines,
                          const std::string& source);

struct VerifySummary {
  int files = 0;   // records
  int passed = 0;  // records verified
  int standings_checked = 0;  // standings files compared with the records
  int standings_passed = 0;
  std::vector<std::string> failures;  // one line each
  // Entries of a folder named like records that are not regular files,
  // each "PATH: a FIFO, not a regular file; skipped" (also logged as a
  // warning). Not failures: the exit code is that of the records alone.
  std::vector<std::string> skipped;
};
// Verifies a record file, or every *.jsonl (*.jsonl.zst) file in a directory
// (sorted by name). Unfinished records (.inprogress/*.jsonl.part) are
// reported as failures. A directory's standings.json, if any, must agree with
// its verified records (matches, and per bot: seats, wins, forfeits, means).
// Only regular files are read (ListRecordFiles); a FILE named on its own may
// be a symlink to one, but a FIFO, device or socket is a failure, never
// opened (opening a FIFO would block).
VerifySummary VerifyPath(const std::string& path);

// What kind of file `st` describes, for messages: "a regular file", "a FIFO",
// "a symbolic link", "a directory", "a socket", "a character device", ...
std::string FileKind(const struct stat& st);

// Whether `path` is a regular file, looked at before it is opened (lstat:
// a symbolic link is refused unless `follow_symlink`): OK, or an error that
// says what it is instead ("x.jsonl: a FIFO, not a regular file").
absl::Status CheckRegularFile(const std::string& path, bool follow_symlink);

// The record files of a records folder: the regular files only (by lstat:
// symbolic links are not followed, not even to a regular file, so that
// nothing outside the folder is read and a link loop costs nothing), sorted.
// Anything else named like a record (a FIFO, socket, device, directory,
// symbolic link, or an entry that cannot be looked at) is listed in
// `skipped` with why: "DIR/x.jsonl: a FIFO, not a regular file; skipped".
// `part_only`: the unfinished records (*.part) of a .inprogress folder;
// else the finished ones (IsRecordFileName) and any *.part. A folder that
// does not exist or cannot be read (with part_only: or is a link) gives
// nothing.
struct RecordListing {
  std::vector<std::string> files;
  std::vector<std::string> skipped;
};
RecordListing ListRecordFiles(const std::string& dir, bool part_only = false);

// Hooks called while a record is re-simulated (all optional); the replay
// tools (arena/replay.h) build on them.
struct ResimVisitor {
  std::function<void(const v1::RecordHeader&, const State&)> on_start;
  std::function<void(const LoggedEvent&)> on_event;
  std::function<void(const v1::DecisionStep&, const State& before)> on_decision;
  std::function<void(const v1::Forfeit&)> on_forfeit;
  std::function<void(const v1::MatchResult&, const State&)> on_result;
};
// Re-simulates and checks a record as VerifyRecord does, calling `visitor`
// on the way; stops before the first decision after step `stop_after_step`
// (-1: plays the whole record).
absl::Status Resimulate(const std::vector<v1::RecordLine>& lines,
                        const std::string& source, const ResimVisitor& visitor,
                        int64_t stop_after_step = -1);

}  // namespace arena

#endif  // ARENA_ARENA_RECORD_TOOLS_H_
