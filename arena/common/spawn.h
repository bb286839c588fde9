// Starting a program from a threaded process without copying it: a child
// that shares the parent's memory until it execs (clone with CLONE_VM and
// CLONE_VFORK, as posix_spawn does), for arena's bot starts.
//
// Why not fork(): fork() copies the parent's page tables (and marks every
// private page copy-on-write) while it holds the parent's memory map lock,
// so its cost grows with arena's memory, the parent's other threads (the
// matches, the referee's gRPC threads) wait on any page fault or mmap in
// the meantime, and each write of theirs to a shared page copies it until
// the child has exec'd. A contest with duplicate deals starts a process or
// two a match: without that copy the 48-entrant contest used about 2 % less
// CPU and played 1 % faster, arena holding 50 MiB (docs/benchmarks.md,
// "Entrants on demand"); the copy grows with a long-running arena.
//
// What the child may do (it runs on the parent's memory, on a stack of its
// own): raw system calls only, through their own glibc wrapper where that
// touches no process-wide state (open, dup2, setpgid, setrlimit, prctl,
// execve, _exit) or through syscall(2) (setuid and its kin: glibc's
// wrappers broadcast the change to every thread glibc knows of, which in
// this child are the parent's); no allocation, no lock, no C++ exception.
// Before `child` runs, every signal is blocked and every handler the
// parent installed is back at its default action (a handler would run on
// the parent's memory); the blocked mask is the child's to lift
// (ResetSignalsForExec, arena/common/descriptors.h).
//
// Thread safety: the calling thread waits until the child has exec'd or
// exited; other threads run on. The parent-death signal (PR_SET_PDEATHSIG)
// of the child follows the calling thread, as with fork().
#ifndef ARENA_ARENA_COMMON_SPAWN_H_
#define ARENA_ARENA_COMMON_SPAWN_H_

#include <sys/types.h>

namespace arena {

// Runs `child(arg)` in a new process as above; `child` should exec or
// _exit (a return exits the child with status 127). Returns the child's
// pid, or -1 with errno set if no process could be made.
pid_t SpawnForExec(void (*child)(void*), void* arg);

}  // namespace arena

#endif  // ARENA_ARENA_COMMON_SPAWN_H_
