#include "arena/tournament/process_usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace arena {
namespace {

// A small /proc file, read with read(2): the process may end between the
// listing and the read, which then fails (ESRCH): "" then.
std::string ReadProcFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') out.emplace_back(e->d_name);
  }
  ::closedir(d);
  return out;
}

// utime + stime + cutime + cstime of /proc/<pid>/stat, in clock ticks; -1
// if it cannot be read. After "pid (comm) " (comm may hold anything, so
// from the last ')'): state is field 3, utime 14 ... cstime 17.
int64_t CpuTicks(pid_t pid) {
  const std::string stat = ReadProcFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return -1;
  const std::vector<absl::string_view> f =
      absl::StrSplit(absl::string_view(stat).substr(close + 2), ' ');
  if (f.size() < 15) return -1;
  int64_t sum = 0;
  for (size_t i = 11; i <= 14; ++i) {
    int64_t v;
    if (!absl::SimpleAtoi(f[i], &v)) return -1;
    sum += v;
  }
  return sum;
}

// VmHWM of /proc/<pid>/status in KiB (0: none, e.g. a zombie).
int64_t PeakRssKib(pid_t pid) {
  const std::string status = ReadProcFile(absl::StrCat("/proc/", pid, "/status"));
  for (absl::string_view line : absl::StrSplit(status, '\n')) {
    if (!absl::ConsumePrefix(&line, "VmHWM:")) continue;
    line = absl::StripAsciiWhitespace(line);
    absl::ConsumeSuffix(&line, "kB");
    int64_t v;
    return absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &v) ? v : 0;
  }
  return 0;
}

}  // namespace

std::vector<pid_t> ProcessTree(pid_t root) {
  std::vector<pid_t> tree;
  if (root <= 0) return tree;
  tree.push_back(root);
  for (size_t i = 0; i < tree.size() && tree.size() < 4096; ++i) {
    const std::string tasks = absl::StrCat("/proc/", tree[i], "/task");
    for (const std::string& tid : Entries(tasks)) {
      const std::string kids = ReadProcFile(absl::StrCat(tasks, "/", tid, "/children"));
      for (absl::string_view k : absl::StrSplit(kids, ' ', absl::SkipWhitespace())) {
        int pid;
        if (absl::SimpleAtoi(k, &pid) && pid > 0 &&
            std::find(tree.begin(), tree.end(), pid) == tree.end()) {
          tree.push_back(pid);
        }
      }
    }
  }
  return tree;
}

TreeUsage ReadTreeUsage(pid_t root) {
  static const double kTicks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  TreeUsage u;
  int64_t ticks = 0;
  for (pid_t pid : ProcessTree(root)) {
    const int64_t t = CpuTicks(pid);
    if (t < 0) continue;
    ticks += t;
    ++u.processes;
    u.peak_rss_kib = std::max(u.peak_rss_kib, PeakRssKib(pid));
  }
  u.cpu_seconds = kTicks > 0 ? static_cast<double>(ticks) / kTicks : 0;
  return u;
}

double RusageCpuSeconds(const struct rusage& ru) {
  auto seconds = [](const struct timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(ru.ru_utime) + seconds(ru.ru_stime);
}

void UsageTally::Sample(pid_t root) {
  const TreeUsage u = ReadTreeUsage(root);
  if (u.processes == 0) return;
  cpu_live_ = std::max(cpu_live_, u.cpu_seconds);
  peak_rss_kib_ = std::max(peak_rss_kib_, u.peak_rss_kib);
}

void UsageTally::Reaped(const struct rusage* ru) {
  const double at_reaping = ru != nullptr ? RusageCpuSeconds(*ru) : 0;
  cpu_done_ += std::max(cpu_live_, at_reaping);
  cpu_live_ = 0;
}

}  // namespace arena
