#include "arena/common/descriptors.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

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

namespace {

// The kernel's struct sigaction (rt_sigaction): glibc's sigaction() refuses
// the signals it keeps for itself (32 and 33), which a library may still
// have set to be ignored, and which an ignored disposition carries across
// exec like any other.
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  uint64_t mask;
};

}  // namespace

void DefaultEverySignal() {
  const KernelSigaction dfl{SIG_DFL, 0, nullptr, 0};
  for (int sig = 1; sig <= 64; ++sig) {
    KernelSigaction old{};
    if (::syscall(SYS_rt_sigaction, sig, nullptr, &old, sizeof old.mask) == 0 &&
        old.handler != SIG_DFL) {
      ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof dfl.mask);
    }
  }
}

void ResetSignalsForExec() {
  DefaultEverySignal();
  const uint64_t none = 0;
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, sizeof none);
}

bool SetCloseOnExec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}

}  // namespace arena
