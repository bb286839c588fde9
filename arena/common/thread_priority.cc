#include "arena/common/thread_priority.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace arena {

bool LowerThisThreadsPriority(int nice) {
  // On Linux a thread's nice value is its own: PRIO_PROCESS with its tid.
  const id_t tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno != 0) return false;
  if (now >= nice) return true;
  return ::setpriority(PRIO_PROCESS, tid, nice) == 0;
}

bool RunThisThreadWhenIdle() {
  LowerThisThreadsPriority(kBackgroundNice);
  const pid_t tid = static_cast<pid_t>(::syscall(SYS_gettid));
  const sched_param param{};  // SCHED_IDLE takes priority 0
  return ::sched_setscheduler(tid, SCHED_IDLE, &param) == 0;
}

void NameThisThread(const char* name) {
  (void)::pthread_setname_np(::pthread_self(), std::string(name).substr(0, 15).c_str());
}

}  // namespace arena
