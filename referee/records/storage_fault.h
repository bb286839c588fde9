// Storage faults: a write that failed because the device cannot take it
// (ENOSPC: the filesystem is full; EDQUOT: the user's quota is spent; EIO:
// the device failed; EROFS: it went read-only; EFBIG: the file is too large
// for it). Unlike a bad path or a missing permission, such a fault is the
// machine's, not the run's: a tournament that meets one stops starting
// matches, lets the live ones end, and exits saying what could not be
// written and how to resume (docs/operations.md).
//
// Every writer of a records folder (records, their in-progress files, the
// standings and other JSON files, the log file) reports its storage faults
// here with StorageFaultStatus; the tournament reads the first one with
// FirstStorageFault. The latch is process-wide because a full disk is: a
// log that cannot be written stops the tournament as a record does.
//
// Thread safety: every function may be called from any thread.
#ifndef ARENA_REFEREE_RECORDS_STORAGE_FAULT_H_
#define ARENA_REFEREE_RECORDS_STORAGE_FAULT_H_

#include <string>

#include "absl/status/status.h"

namespace arena {

// Statuses of storage faults carry this payload (IsStorageFault tells).
inline constexpr char kStoragePayload[] = "arena.storage";

// Whether `err` (an errno) is a storage fault (see the file comment).
bool IsStorageErrno(int err);

// The status of a failed write of `what` (e.g. "cannot write record X")
// with errno `err`: "<what>: <strerror>". A storage fault is
// ResourceExhausted (ENOSPC, EDQUOT, EFBIG) or DataLoss (EIO, EROFS) with
// the payload, and latched (the first one is kept); any other errno is
// Unavailable, not latched.
absl::Status StorageFaultStatus(const std::string& what, int err);

// Whether `status` is a storage fault (it has the payload).
bool IsStorageFault(const absl::Status& status);

// Latches `status` if it is a storage fault and none is latched yet.
void NoteStorageFault(const absl::Status& status);

// The first storage fault latched since the last reset (OkStatus if none),
// and how many writes have failed with one since then.
absl::Status FirstStorageFault();
int StorageFaultCount();

// Flushes to the disk the folder entry of `path` (fsync of its parent
// folder), so that a file just created or renamed there survives a crash
// of the machine. Best effort: a failure is ignored (the file itself is
// whole either way).
void SyncParentDir(const std::string& path);

// Forgets the latched faults (a new tournament in this process starts clean).
void ResetStorageFaults();

}  // namespace arena

#endif  // ARENA_REFEREE_RECORDS_STORAGE_FAULT_H_
