// Background work that must not slow a contest down: the live site's
// threads and the standings refresher lower their own scheduling priority
// (their nice value), so that on a machine whose cores the matches keep
// busy they run in the matches' idle moments rather than between a bot's
// answer and the next request. They also name themselves, so that `top -H`,
// `ps -L` and /proc/PID/task/*/comm tell them apart from the matches'.
//
// Thread safety: acts on the calling thread only.
#ifndef ARENA_ARENA_COMMON_THREAD_PRIORITY_H_
#define ARENA_ARENA_COMMON_THREAD_PRIORITY_H_

namespace arena {

// Background priorities (nice values; higher is lower priority).
inline constexpr int kServingNice = 10;     // answering HTTP requests
inline constexpr int kBackgroundNice = 19;  // reading records, building standings

// Sets the calling thread's nice value to `nice` if that lowers its
// priority (never raises it). Returns false if the system refused.
bool LowerThisThreadsPriority(int nice);

// Names the calling thread (at most 15 characters are kept).
void NameThisThread(const char* name);

}  // namespace arena

#endif  // ARENA_ARENA_COMMON_THREAD_PRIORITY_H_
