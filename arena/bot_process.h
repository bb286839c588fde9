// Bot processes that arena starts, watches and restarts.
//
// A bot runs as `/bin/sh -c "exec COMMAND"` in a process group of its own,
// inside the bubblewrap sandbox of arena/sandbox.h unless the organiser
// turned it off, with ARENA_ADDRESS, ARENA_TOKEN and ARENA_BOT_NAME in its
// environment and its output appended to a log file. A BotSupervisor keeps each bot
// connected for the matches still to come: a bot that died (or is alive but
// not connected) is restarted, up to a limit; past the limit it is dropped
// and its remaining matches are played without it (the fault policy decides).
//
// Thread safety: BotSupervisor's methods may be called from any thread.
#ifndef ARENA_ARENA_BOT_PROCESS_H_
#define ARENA_ARENA_BOT_PROCESS_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/sandbox.h"
#include "referee/bot_hub.h"

namespace arena {

class BotProcess {
 public:
  BotProcess(std::string name, std::string command, BotExec exec,
             std::string log_path);
  ~BotProcess();
  absl::Status Start();
  bool Running();
  // SIGTERM to the group, then SIGKILL after `grace`.
  void Stop(absl::Duration grace);
  const std::string& name() const { return name_; }
  const std::string& log_path() const { return log_path_; }
  // How the process last ended ("exited with code 3", "killed by signal 9"),
  // empty while it runs or before it first ends.
  const std::string& exit_status() const { return exit_status_; }
  // The last lines of its log (at most `max_bytes`), for error messages.
  std::string LogTail(size_t max_bytes = 2000) const;

 private:
  std::string name_, command_, log_path_, exit_status_;
  bool stopping_ = false;  // an end we asked for is logged at info level
  std::unique_ptr<BotExec> exec_;  // sealed: used in the forked child
  pid_t pid_ = -1;
};

class BotSupervisor {
 public:
  BotSupervisor(BotHub* hub, absl::Duration connect_timeout, int max_restarts)
      : hub_(hub), connect_timeout_(connect_timeout), max_restarts_(max_restarts) {}
  ~BotSupervisor() { StopAll(); }

  void Add(std::unique_ptr<BotProcess> p);
  // Starts every bot and waits until all are connected.
  absl::Status StartAll();
  // Restarts `bot` if it is not connected; false if it is dropped.
  bool Ensure(const std::string& bot);
  // Replaces every bot process that is not dropped by a fresh one (a new
  // sandbox, no memory of the matches before) and waits until all are
  // connected. Does not count against max_restarts.
  absl::Status RenewAll();
  std::vector<std::string> Dropped() const;
  void StopAll();

 private:
  struct Entry {
    std::unique_ptr<BotProcess> process;
    absl::Mutex mu;  // one restart at a time
    int restarts = 0;
    bool dropped = false;
  };
  BotHub* const hub_;
  const absl::Duration connect_timeout_;
  const int max_restarts_;
  std::map<std::string, std::unique_ptr<Entry>> bots_;  // fixed after Add
};

}  // namespace arena

#endif  // ARENA_ARENA_BOT_PROCESS_H_
