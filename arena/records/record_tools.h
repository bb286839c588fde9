// Re-simulating match records: `arena verify` (and, through Resimulate,
// `arena replay` and `arena html`).
//
// Both read a record (its RecordLines, in any of the formats of
// docs/records.md: compact binary by default, or JSON lines, plain or
// compressed), make the game from its header and play the recorded actions
// again from the recorded seed. Verification checks, line by line, that
// every event (deals, draws, reshuffles) comes out the same, that every
// recorded action was legal for the seats that had to act, and that the
// result is the one the rules give; and what the record says beside the
// actions: the header's format and seats, the seed commitment opening with
// the revealed seed and salt, the header digest, decision ids and the
// decision cap, each action's source (a referee move only where the header
// allows it, random moves after faults as the match's fault generator draws
// them), each fault's kind, detail and time against the time control, and
// each bot's note against what the referee keeps of one
// (referee/records/bot_note.h).
// The first difference is reported with the match id, the line, the step
// and what differs.
//
// Thread safety: plain functions of their arguments; VerifyPath runs its
// own threads and returns once they are done; a ResimVisitor's hooks are
// called on the caller's thread.
#ifndef ARENA_ARENA_RECORDS_RECORD_TOOLS_H_
#define ARENA_ARENA_RECORDS_RECORD_TOOLS_H_

#include <sys/stat.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "arena/v1/record.pb.h"
#include "referee/game_api/game.h"

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
// Verifies a record file, or every record (*.rec, *.jsonl, *.jsonl.zst) in a directory
// (sorted by name). Unfinished records (.inprogress/*.part) are
// reported as failures. A directory's standings.json, if any, must agree with
// its verified records (matches, and per bot: seats, wins, forfeits, means).
// Only regular files are read (ListRecordFiles); a FILE named on its own may
// be a symlink to one, but a FIFO, device or socket is a failure, never
// opened (opening a FIFO would block). Records are checked on `threads`
// threads (0: one per core), and reported in name order whatever the count.
VerifySummary VerifyPath(const std::string& path, int threads = 0);

// Hooks called while a record is re-simulated (all optional); the replay
// tools (arena/views/replay.h) build on them.
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

#endif  // ARENA_ARENA_RECORDS_RECORD_TOOLS_H_
