// Helpers for the end-to-end tests, which run the real binaries (arena,
// referee, the bots) as processes. A test target that includes this defines
// ARENA_BIN_DIR (the build's bin/ folder).
#ifndef ARENA_TESTS_E2E_UTIL_H_
#define ARENA_TESTS_E2E_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/v1/config.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "tests/test_util.h"

namespace arena::testing {

inline const std::string kBin = ARENA_BIN_DIR;

struct Cmd {
  int code;            // exit code, -1 if killed by a signal
  std::string output;  // stdout and stderr together
};

// Runs a shell command and collects its output.
inline Cmd Sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Polls `ok` every 50 ms for up to `limit`; whether it came true.
template <typename F>
bool WaitFor(F ok, absl::Duration limit) {
  const absl::Time until = absl::Now() + limit;
  while (absl::Now() < until) {
    if (ok()) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return ok();
}

// The finished records (*.rec, *.jsonl, *.jsonl.zst) in `dir`, sorted by name.
inline std::vector<std::string> RecordFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (IsRecordFileName(e.path().filename().string())) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The one record of `dir` (an arena match); fails the test if not one.
inline std::string OnlyRecord(const std::string& dir) {
  std::vector<std::string> files = RecordFiles(dir);
  EXPECT_EQ(files.size(), 1u) << dir;
  return files.empty() ? dir + "/none.jsonl" : files[0];
}

// The standings.json a tournament wrote into `dir`.
inline v1::Standings ReadStandings(const std::string& dir) {
  v1::Standings st;
  auto s = google::protobuf::util::JsonStringToMessage(ReadFile(dir + "/standings.json"), &st);
  EXPECT_TRUE(s.ok()) << dir << ": " << s.ToString();
  return st;
}

// A folder the sandboxed bots can reach (the system temp folder is private
// to each sandbox), in the build tree, removed when the test ends (TestDir).
class Workdir {
 public:
  explicit Workdir(const std::string& name)
      : dir_(absl::StrCat(kBin, "/../tests/e2e-", name, "-", ::getpid())) {
    std::error_code ec;
    std::filesystem::permissions(dir_.path(), std::filesystem::perms(0755), ec);
  }
  const std::string& path() const { return dir_.path(); }
  // An executable script in the folder.
  std::string Script(const std::string& name, const std::string& body) const {
    const std::string p = path() + "/" + name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    std::error_code ec;
    std::filesystem::permissions(p, std::filesystem::perms(0755), ec);
    return p;
  }

 private:
  TestDir dir_;
};

// The standings row of `bot`, or null.
inline const v1::StandingRow* RowOf(const v1::Standings& st, const std::string& bot) {
  for (const auto& r : st.rows()) {
    if (r.bot() == bot) return &r;
  }
  return nullptr;
}

// The figures of arena's line "bot processes: at most P live at once (bound
// B); A started ahead of their matches, D started for them, I stopped after
// T without a match, R stopped to make room, F replaced
// before a deal they had played (N by a next process made ready while the one
// before played, H of them while it still played its matches); U stopped
// before they played a match; K kept once done with their matches, A of
// them played again (a deal they had not met), S stopped", all -1 if it is
// missing.
struct ProcessLine {
  int peak = -1, bound = -1, ahead = -1, demand = -1, idle = -1, room = -1, renewed = -1;
  int taken_over = -1, handed_over = -1, unused = -1;
  int kept = -1, reused = -1, kept_stopped = -1;
};

inline ProcessLine ProcessesOf(const std::string& output) {
  ProcessLine p;
  const size_t at = output.find("bot processes: at most ");
  if (at == std::string::npos) return p;
  if (std::sscanf(output.c_str() + at,
                  "bot processes: at most %d live at once (bound %d); %d started ahead of "
                  "their matches, %d started for them, %d stopped after %*s without a "
                  "match, %d stopped to make room, %d replaced before a "
                  "deal they had played (%d by a next process made ready while the one "
                  "before played, %d of them while it still played its matches); %d "
                  "stopped before they played a match; %d kept once done with their "
                  "matches, %d of them played again (a deal they had not met), %d stopped",
                  &p.peak, &p.bound, &p.ahead, &p.demand, &p.idle, &p.room, &p.renewed,
                  &p.taken_over, &p.handed_over, &p.unused, &p.kept, &p.reused,
                  &p.kept_stopped) != 13) {
    return ProcessLine{};
  }
  return p;
}

}  // namespace arena::testing

#endif  // ARENA_TESTS_E2E_UTIL_H_
