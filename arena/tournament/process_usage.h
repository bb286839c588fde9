// The CPU time and peak memory of a bot's processes, from the kernel's own
// accounting of each process (docs/ratings.md, "Time and resources").
//
// Two sources, each a lower bound of the truth, and the larger is kept:
//  - While the bot runs: every process in the tree under the process arena
//    started (found through /proc/<pid>/task/<tid>/children), read from
//    /proc/<pid>/stat (utime + stime + cutime + cstime: its own CPU and that
//    of the children it reaped) and /proc/<pid>/status (VmHWM: the peak
//    resident set of its program since its exec). BotProcess reads it now
//    and then (the supervisor's watcher) and right before it signals the
//    process to stop.
//  - When arena reaps the process: wait4()'s struct rusage (ru_utime +
//    ru_stime), which covers that process and every descendant it waited
//    for.
// Why not rusage alone: under bubblewrap the process arena starts is bwrap,
// whose rusage holds nothing of the bot (bwrap exits on an eventfd from its
// PID 1 as soon as the bot ends, without waiting for it: a bot that burnt
// 1 s and 200 MB shows 0.003 s and 9.6 MB); and ru_maxrss of a process
// forked from arena counts arena's own resident set at the fork (a fork of a
// 300 MB process that execs /bin/true shows 310 MB), so the peak comes from
// VmHWM, which is per program, never from ru_maxrss.
//
// Thread safety: pure functions of /proc; UsageTally has no lock (its
// owner's).
#ifndef ARENA_ARENA_TOURNAMENT_PROCESS_USAGE_H_
#define ARENA_ARENA_TOURNAMENT_PROCESS_USAGE_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace arena {

struct TreeUsage {
  double cpu_seconds = 0;  // summed over the tree (own and reaped children)
  int64_t peak_rss_kib = 0;  // the largest VmHWM in the tree
  int processes = 0;       // processes found (0: `root` is gone)
};

// `root` and its descendants as they are now, parents before children.
std::vector<pid_t> ProcessTree(pid_t root);
// The tree's usage now (a process that ends meanwhile is skipped).
TreeUsage ReadTreeUsage(pid_t root);
// ru_utime + ru_stime in seconds.
double RusageCpuSeconds(const struct rusage& ru);

// One entrant's processes over a run: each process arena started, sampled
// while it runs and closed when it is reaped.
class UsageTally {
 public:
  // A process was started.
  void Started() { ++processes_; }
  // The live process's tree now.
  void Sample(pid_t root);
  // The live process was reaped with `ru` (null: no rusage, e.g. lost).
  void Reaped(const struct rusage* ru);
  int processes() const { return processes_; }
  // Ended processes, plus the live one as last sampled.
  double cpu_seconds() const { return cpu_done_ + cpu_live_; }
  int64_t peak_rss_kib() const { return peak_rss_kib_; }

 private:
  int processes_ = 0;
  double cpu_done_ = 0;  // processes reaped
  double cpu_live_ = 0;  // the live one: the most any sample of it said
  int64_t peak_rss_kib_ = 0;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_PROCESS_USAGE_H_
