#include "arena/tournament/run_stop.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "referee/clock/mono_clock.h"
#include "referee/match/match_runner.h"

namespace arena {
namespace {

std::atomic<bool> stop_requested{false};

struct Registry {
  absl::Mutex mu;
  int next_id = 0;
  std::map<int, std::function<void()>> actions;  // by registration order
};
Registry& Actions() {
  static Registry* r = new Registry;  // never destroyed: a stop may come at exit
  return *r;
}

struct ProcInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  char state = '?';
};

// /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold anything.
// Read with read(2): the process may exit between the listing and the read,
// which then fails with ESRCH (std::istreambuf_iterator would throw it).
bool ReadProc(pid_t pid, ProcInfo* info) {
  const int fd = ::open(("/proc/" + std::to_string(pid) + "/stat").c_str(),
                        O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];  // enough for the fields up to ppid, which come first
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return false;
  const std::string stat(buf, static_cast<size_t>(n));
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 4 > stat.size()) return false;
  info->pid = pid;
  info->state = stat[close + 2];
  info->ppid = static_cast<pid_t>(std::atoi(stat.c_str() + close + 4));
  return true;
}

std::vector<ProcInfo> AllProcesses() {
  std::vector<ProcInfo> all;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return all;
  while (struct dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    ProcInfo info;
    if (ReadProc(static_cast<pid_t>(pid), &info)) all.push_back(info);
  }
  ::closedir(d);
  return all;
}

// This process's descendants, parents before their children.
std::vector<ProcInfo> Descendants() {
  const std::vector<ProcInfo> all = AllProcesses();
  std::multimap<pid_t, const ProcInfo*> children;
  for (const ProcInfo& p : all) children.emplace(p.ppid, &p);
  std::vector<ProcInfo> out;
  std::vector<pid_t> queue = {::getpid()};
  for (size_t i = 0; i < queue.size(); ++i) {
    auto [from, to] = children.equal_range(queue[i]);
    for (auto it = from; it != to; ++it) {
      out.push_back(*it->second);
      queue.push_back(it->second->pid);
    }
  }
  return out;
}

// Waits for the deadline timer's thread to be held in a callback that
// never returns: no deadline of any match fires after this.
void ParkDeadlineTimer() {
  static absl::Notification* const never = new absl::Notification;
  auto parked = std::make_shared<absl::Notification>();
  DeadlineTimer::Shared().At(MonoNow(), [parked] {
    parked->Notify();
    never->WaitForNotification();
  });
  // A callback under way (a match's step) ends first.
  WaitForNotificationMono(parked.get(), absl::Seconds(2));
}

}  // namespace

bool StopRequested() { return stop_requested.load(); }

OnRunStop::OnRunStop(std::function<void()> action) {
  Registry& r = Actions();
  absl::MutexLock lock(&r.mu);
  id_ = r.next_id++;
  r.actions.emplace(id_, std::move(action));
}

OnRunStop::~OnRunStop() {
  Registry& r = Actions();
  absl::MutexLock lock(&r.mu);  // waits for the action if it runs
  r.actions.erase(id_);
}

int KillDescendants(absl::Duration wait) {
  const pid_t self = ::getpid();
  const absl::Time until = MonoNow() + wait;
  std::set<pid_t> killed;
  for (;;) {
    // Collected whole before any is killed: a process whose parent dies
    // is reparented out of this tree, but it was killed with the rest.
    for (const ProcInfo& p : Descendants()) {
      if (p.state == 'Z') continue;
      ::kill(p.pid, SIGKILL);
      killed.insert(p.pid);
    }
    // Reaped: this process's children (a zombie is gone, but listed).
    int status = 0;
    while (::waitpid(-1, &status, WNOHANG) > 0) {
    }
    // Killed ones now elsewhere in the tree of processes (reparented), or
    // not yet dead.
    for (auto it = killed.begin(); it != killed.end();) {
      ProcInfo p;
      if (!ReadProc(*it, &p) || p.state == 'Z') {
        it = killed.erase(it);
      } else {
        ++it;
      }
    }
    bool own_zombie = false;
    for (const ProcInfo& p : Descendants()) own_zombie |= p.ppid == self;
    const int left = static_cast<int>(killed.size());
    if ((left == 0 && !own_zombie) || MonoNow() >= until) return left;
    absl::SleepFor(absl::Milliseconds(5));
  }
}

int StopRunNow(absl::Duration wait) {
  if (stop_requested.exchange(true)) return 0;
  ParkDeadlineTimer();
  {
    Registry& r = Actions();
    absl::MutexLock lock(&r.mu);
    for (auto it = r.actions.rbegin(); it != r.actions.rend(); ++it) it->second();
  }
  return KillDescendants(wait);
}

}  // namespace arena
