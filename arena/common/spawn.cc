#include "arena/common/spawn.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "arena/common/descriptors.h"

namespace arena {
namespace {

// The child's stack: the child runs only until exec, but a first call
// into a shared library resolves its symbol there (the dynamic linker
// saves the vector registers: a few KiB).
constexpr size_t kStackBytes = size_t{256} << 10;

struct Start {
  void (*child)(void*);
  void* arg;
};

int Trampoline(void* p) {
  // Every signal is blocked (the parent blocked them before clone): no
  // handler of the parent's can run here before it is gone.
  DefaultEverySignal();
  const Start* start = static_cast<const Start*>(p);
  start->child(start->arg);
  ::_exit(127);
}

// All 64 signals, glibc's own (which pthread_sigmask leaves out) too.
uint64_t SetMask(uint64_t mask) {
  uint64_t old = 0;
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, &old, sizeof mask);
  return old;
}

}  // namespace

pid_t SpawnForExec(void (*child)(void*), void* arg) {
  const long page = ::sysconf(_SC_PAGESIZE);
  void* stack = ::mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return -1;
  // A guard page below the stack: an overflow faults in the child instead
  // of writing over the parent's memory.
  if (page > 0) (void)::mprotect(stack, static_cast<size_t>(page), PROT_NONE);
  Start start{child, arg};
  const uint64_t old_mask = SetMask(~uint64_t{0});
  const pid_t pid =
      ::clone(&Trampoline, static_cast<char*>(stack) + kStackBytes,
              CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
  const int clone_errno = errno;
  SetMask(old_mask);
  ::munmap(stack, kStackBytes);
  errno = clone_errno;
  return pid;
}

}  // namespace arena
