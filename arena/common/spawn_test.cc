#include "arena/common/spawn.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "arena/common/descriptors.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

int WaitFor(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return status;
}

// Spawns `child` and waits for it: its wait status (-1 if none started,
// which WIFEXITED and WIFSIGNALED both reject).
int RunChild(void (*child)(void*), void* arg = nullptr) {
  const pid_t pid = SpawnForExec(child, arg);
  EXPECT_GT(pid, 0);
  return pid > 0 ? WaitFor(pid) : -1;
}

void ExecShellExit7(void*) {
  ResetSignalsForExec();
  char sh[] = "/bin/sh", c[] = "-c", cmd[] = "exit 7";
  char* argv[] = {sh, c, cmd, nullptr};
  char* envp[] = {nullptr};
  ::execve(sh, argv, envp);
}

TEST(Spawn, TheChildExecsAProgram) {
  const int status = RunChild(&ExecShellExit7);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

void ReturnAtOnce(void*) {}

TEST(Spawn, AChildThatReturnsExitsWith127) {
  const int status = RunChild(&ReturnAtOnce);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 127);
}

// The child runs on the parent's memory (no copy: that is the point), and
// the parent goes on only once the child has exec'd or exited: what the
// child wrote is there when SpawnForExec returns. A fork() would leave it 0.
void WriteAndExit(void* p) {
  *static_cast<volatile int*>(p) = 42;
  ::_exit(0);
}

TEST(Spawn, TheChildSharesTheParentsMemoryUntilItExecsOrExits) {
  volatile int seen = 0;
  const pid_t pid = SpawnForExec(&WriteAndExit, const_cast<int*>(&seen));
  ASSERT_GT(pid, 0);
  EXPECT_EQ(seen, 42);
  const int status = WaitFor(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A handler of the parent's must not run in the child, which would run it
// on the parent's memory: the child finds every signal at its default
// action, so SIGUSR1 ends it, and the parent's flag stays unset.
std::atomic<int> handled{0};
void CountSignal(int) { handled.fetch_add(1); }

void RaiseSigusr1(void*) {
  ResetSignalsForExec();  // unblocks: the signal is delivered at once
  ::syscall(SYS_kill, ::syscall(SYS_getpid), SIGUSR1);
  ::_exit(0);  // reached only if SIGUSR1 did not end the child
}

TEST(Spawn, TheParentsSignalHandlersDoNotRunInTheChild) {
  struct sigaction sa {};
  sa.sa_handler = &CountSignal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old {};
  ASSERT_EQ(::sigaction(SIGUSR1, &sa, &old), 0);
  const int status = RunChild(&RaiseSigusr1);
  ::sigaction(SIGUSR1, &old, nullptr);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGUSR1);
  EXPECT_EQ(handled.load(), 0);
  // The parent's own handler is still its own.
  ASSERT_EQ(::sigaction(SIGUSR1, &sa, &old), 0);
  ::raise(SIGUSR1);
  ::sigaction(SIGUSR1, &old, nullptr);
  EXPECT_EQ(handled.load(), 1);
}

TEST(Spawn, TheCallersSignalMaskIsAsBefore) {
  sigset_t blocked, before, after;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR2);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &blocked, &before), 0);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, nullptr, &before), 0);
  const int status = RunChild(&ReturnAtOnce);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, nullptr, &after), 0);
  ::pthread_sigmask(SIG_UNBLOCK, &blocked, nullptr);
  for (int sig = 1; sig < 32; ++sig) {
    EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig))
        << "signal " << sig;
  }
  EXPECT_EQ(sigismember(&after, SIGUSR2), 1);
  EXPECT_EQ(sigismember(&after, SIGUSR1), 0);
}

}  // namespace
}  // namespace arena
