// What a child process of arena's starts with: its standard streams and
// nothing else of the parent's, and signals as a new program expects them.
//
// Arena, `referee`, `arena serve`, `arena play` and arena_stdio hold
// sockets (gRPC's, the live site's listener and its viewers' connections),
// record files and pipes. A descriptor that crosses exec reaches the child
// whatever its sandbox: bubblewrap's namespaces do not take back an open
// socket, so a bot that inherited the live site's listener could accept()
// the organiser's viewers from inside it. Every place that forks a bot (or
// a program for a bot) therefore calls CloseDescriptorsFrom(3) and
// ResetSignalsForExec() in the child right before exec, after its dup2()s
// onto 0-2; the descriptors arena
// opens itself are close-on-exec too, which covers forks made elsewhere
// (a library's) but not a descriptor created by code that does not ask
// for it (Asio's accept, say): hence the sweep.
//
// Thread safety: async-signal-safe, for a forked child of a threaded
// process (no allocation, no lock).
#ifndef ARENA_ARENA_COMMON_DESCRIPTORS_H_
#define ARENA_ARENA_COMMON_DESCRIPTORS_H_

namespace arena {

// Closes every descriptor numbered `first` or above: close_range(2) where
// the kernel has it (Linux 5.9+), else one close() each up to the larger of
// the soft and hard RLIMIT_NOFILE (at most 1 << 20).
void CloseDescriptorsFrom(int first);

// Sets every signal back to its default action, those arena ignores and
// those it handles (glibc's own too): what exec does to a handled signal,
// done before it, for a child that still runs on arena's memory
// (arena/common/spawn.h).
void DefaultEverySignal();

// Sets every signal back to its default action (DefaultEverySignal), then
// unblocks them all: a signal mask and ignored signals cross exec, and
// arena blocks SIGINT and SIGTERM in every thread (its signal thread takes
// them with sigwait). A bot started with SIGTERM blocked never ends when
// asked to, and is killed only after its grace.
void ResetSignalsForExec();

// Sets FD_CLOEXEC on `fd` (a descriptor opened by a library that does not
// take the flag). Returns false if fcntl failed.
bool SetCloseOnExec(int fd);

}  // namespace arena

#endif  // ARENA_ARENA_COMMON_DESCRIPTORS_H_
