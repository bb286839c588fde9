// A contest's progress on stderr: PrintProgress draws one line; a
// ProgressLine counts the matches as they are booked (and those a resume
// found recorded) and draws it when due: on a terminal, one line redrawn in
// place (a bar and the time left) at most every 250 ms; otherwise (a log,
// CI) a plain line every tenth of the matches; and always at the last one.
//
// Ownership and lifetime: the contest engine (arena/tournament/engine.h)
// owns the ProgressLine; the booking (arena/tournament/booking.h) feeds it.
//
// Thread safety: PrintProgress writes stderr whole lines at a time;
// ProgressLine has none (the tournament's thread).
#ifndef ARENA_ARENA_TOURNAMENT_PROGRESS_H_
#define ARENA_ARENA_TOURNAMENT_PROGRESS_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace arena {

// Progress of a tournament on stderr: on a terminal one line redrawn in
// place with a bar and the time left, else a plain line (with the time left).
// `done` counts from `first` (matches recorded before this run, --resume):
// the rate is that of the others, played in `elapsed`.
void PrintProgress(const std::string& game, int64_t done, int64_t total,
                   absl::Duration elapsed, bool terminal, int64_t first = 0);

class ProgressLine {
 public:
  // `total`: the matches this run plays in all (with an adaptive schedule,
  // its budget); `show` false draws nothing. The clock starts here.
  ProgressLine(std::string game, int64_t total, bool show);

  // `n` matches of a batch found recorded (--resume): done, and not played
  // by this run (the rate leaves them out). Draws the line if n > 0.
  void Resumed(int64_t n);
  // A match booked: done; the line if due.
  void Booked();
  // A match that could not start (its record could not be opened): done,
  // without a line.
  void Skipped() { ++done_; }

 private:
  const std::string game_;
  const int64_t total_;
  const bool show_;
  const bool terminal_;  // stderr is a terminal
  const int64_t every_;  // matches between plain lines
  const absl::Time t0_;
  absl::Time last_;      // the last line drawn
  int64_t done_ = 0;
  int64_t first_ = 0;    // of done_: recorded before this run
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_PROGRESS_H_
