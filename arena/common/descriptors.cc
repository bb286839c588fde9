#include "arena/common/descriptors.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace arena {

void CloseDescriptorsFrom(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0) return;
#endif
  struct rlimit r;
  rlim_t top = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0) {
    top = r.rlim_cur;
    if (r.rlim_max != RLIM_INFINITY && r.rlim_max > top) top = r.rlim_max;
  }
  if (top == RLIM_INFINITY || top > (rlim_t{1} << 20)) top = rlim_t{1} << 20;
  for (rlim_t fd = static_cast<rlim_t>(first); fd < top; ++fd) ::close(static_cast<int>(fd));
}

void ResetSignalsForExec() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) {
      ::sigaction(sig, &dfl, nullptr);
    }
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

bool SetCloseOnExec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}

}  // namespace arena
