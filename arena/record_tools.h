// Re-simulating match records: `arena verify` and `arena replay`.
//
// Both read a record (RecordLine JSON Lines), make the game from its header
// and play the recorded actions again from the recorded seed. Verification
// checks, line by line, that every event (deals, draws, reshuffles) comes
// out the same, that every recorded action was legal for the seats that had
// to act, and that the result is the one the rules give; the first
// difference is reported with the match id, the step and what differs.
#ifndef ARENA_ARENA_RECORD_TOOLS_H_
#define ARENA_ARENA_RECORD_TOOLS_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "arena/v1/record.pb.h"

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
};
// Verifies a record file, or every *.jsonl file in a directory (sorted by
// name). Unfinished records (.inprogress/*.jsonl.part) are reported as
// failures. A directory's standings.json, if any, must agree with its
// verified records (matches, and per bot: seats, wins, forfeits, means).
VerifySummary VerifyPath(const std::string& path);

struct ReplayOptions {
  int seat = -1;       // -1: show everything; else only what this seat saw
  int64_t step = -1;   // -1: the whole match; else stop after this step
};
// Prints the match step by step.
absl::Status Replay(const std::vector<v1::RecordLine>& lines,
                    const ReplayOptions& options, std::ostream& out);

}  // namespace arena

#endif  // ARENA_ARENA_RECORD_TOOLS_H_
