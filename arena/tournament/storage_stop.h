// The storage stop: a write the disk could not take
// (referee/records/storage_fault.h: a record, the standings, the log) stops
// the contest. No match starts after it; the live ones end (their records
// are written if the space came back, else they stay unfinished in
// .inprogress/ and are played again on resume). Said once, in the log.
//
// Ownership and lifetime: the match pump (arena/tournament/match_pump.h)
// owns it and asks it before each start and before each batch is planned.
//
// Thread safety: none; the tournament's thread asks it.
#ifndef ARENA_ARENA_TOURNAMENT_STORAGE_STOP_H_
#define ARENA_ARENA_TOURNAMENT_STORAGE_STOP_H_

#include <functional>

namespace arena {

class StorageStop {
 public:
  // True once a write failed (FirstStorageFault); the first time, logs the
  // fault with the matches still live (`live`, called then only).
  bool Check(const std::function<int()>& live);

 private:
  bool stopped_ = false;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_STORAGE_STOP_H_
