// Background work that must not slow a contest down: the live site's
// threads and the standings refresher run under SCHED_IDLE (falling back to
// the lowest nice value where that is refused), so that on a machine whose
// cores the matches keep busy they run in the matches' idle moments: a
// match's thread or a bot that wakes takes the core from them at once,
// where a nice-19 thread may keep it for the rest of its time slice (up to
// a few milliseconds, against request/answer round trips of tens of
// microseconds), and a bot in the same scheduling group never loses
// thinking time to them. On a machine the matches saturate they still get
// a little time (the scheduler starves no one): the live site's pages come
// later, the contest does not. Not across groups: a sandboxed bot runs in a
// session of its own (bwrap --new-session), and with autogroups (Linux's
// default where CONFIG_SCHED_AUTOGROUP is set, as on Debian) the scheduler
// weighs each session's group as a whole, so against such a bot these
// threads count as the arena's.
// They also name themselves, so that `top -H`, `ps -L` and
// /proc/PID/task/*/comm tell them apart from the matches'.
//
// Thread safety: acts on the calling thread only.
#ifndef ARENA_ARENA_COMMON_THREAD_PRIORITY_H_
#define ARENA_ARENA_COMMON_THREAD_PRIORITY_H_

namespace arena {

// The lowest nice value (higher is lower priority).
inline constexpr int kBackgroundNice = 19;

// Sets the calling thread's nice value to `nice` if that lowers its
// priority (never raises it). Returns false if the system refused.
bool LowerThisThreadsPriority(int nice);

// Moves the calling thread to SCHED_IDLE (Linux: lowering a policy needs no
// privilege), and to nice kBackgroundNice, which the system uses if
// SCHED_IDLE is refused. Returns whether SCHED_IDLE took.
bool RunThisThreadWhenIdle();

// Names the calling thread (at most 15 characters are kept).
void NameThisThread(const char* name);

}  // namespace arena

#endif  // ARENA_ARENA_COMMON_THREAD_PRIORITY_H_
