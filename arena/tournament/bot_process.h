// Bot processes that arena starts, watches, restarts and, when they keep
// failing, withdraws.
//
// A bot runs as `/bin/sh -c "exec COMMAND"` in a process group of its own,
// inside the bubblewrap sandbox of arena/tournament/sandbox.h unless the organiser
// turned it off, with ARENA_ADDRESS, ARENA_TOKEN and ARENA_BOT_NAME in its
// environment and its output appended to a log file.
//
// A BotSupervisor keeps each bot connected for the matches still to come
// (docs/security.md, "Entrants that fail"):
//  - A watcher thread notices within ~50 ms when a bot process ends that
//    nobody asked to stop, and tells the hub (BotHub::SetBotDown, kind
//    CRASHED, with the exit status and the last lines of its output), so no
//    seat waits on a process that has exited.
//  - Before each match (Ensure) a bot that is not connected is restarted,
//    with a back-off that doubles from SupervisorOptions::backoff_first,
//    up to max_restarts times in the whole tournament.
//  - A bot that still cannot be had (it exits before connecting after its
//    restarts, or runs without connecting for the connect timeout) is
//    withdrawn: its process is stopped and the hub fails every request for it
//    at once as NO_SHOW with the reason, so each of its remaining matches is
//    recorded as its forfeit. With BOT_FAILURE_POLICY_ABORT the first such
//    failure at start is an error instead (the tournament stops).
//
// Thread safety: BotProcess and BotSupervisor may be used from any thread.
#ifndef ARENA_ARENA_TOURNAMENT_BOT_PROCESS_H_
#define ARENA_ARENA_TOURNAMENT_BOT_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/tournament/sandbox.h"
#include "arena/v1/config.pb.h"
#include "referee/service/bot_hub.h"

namespace arena {

class BotProcess {
 public:
  BotProcess(std::string name, std::string command, BotExec exec,
             std::string log_path);
  ~BotProcess();
  absl::Status Start();
  bool Running();
  // If the process has ended since the last call without Stop being asked
  // for: how it ended ("exited with code 3", "killed by signal 9 (Killed)").
  std::optional<std::string> PollUnexpectedEnd();
  // SIGTERM to the group, then SIGKILL after `grace`.
  void Stop(absl::Duration grace);
  const std::string& name() const { return name_; }
  const std::string& log_path() const { return log_path_; }
  // How the process last ended, empty while it runs or before it first ends.
  std::string exit_status() const;
  // The last lines its latest process wrote to its log (at most
  // `max_bytes`), for error messages.
  std::string LogTail(size_t max_bytes = 2000) const;

 private:
  // Reaps the process if it ended; true if it still runs.
  bool RunningLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_, command_, log_path_;
  const std::unique_ptr<BotExec> exec_;  // sealed: used in the forked child
  mutable absl::Mutex mu_;
  std::string exit_status_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;  // an end we asked for
  bool unexpected_end_ ABSL_GUARDED_BY(mu_) = false;  // not yet polled
  pid_t pid_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t log_start_ ABSL_GUARDED_BY(mu_) = 0;  // log size at the latest Start
};

struct SupervisorOptions {
  absl::Duration connect_timeout = absl::Seconds(30);
  int max_restarts = 3;  // per bot, over the whole tournament
  v1::BotFailurePolicy on_failure = v1::BOT_FAILURE_POLICY_WITHDRAW;
  // Before the k-th restart of a bot: backoff_first * 2^(k-1), at most
  // backoff_max.
  absl::Duration backoff_first = absl::Milliseconds(200);
  absl::Duration backoff_max = absl::Seconds(3);
  absl::Duration watch_every = absl::Milliseconds(50);
};

class BotSupervisor {
 public:
  BotSupervisor(BotHub* hub, SupervisorOptions options);
  ~BotSupervisor();

  void Add(std::unique_ptr<BotProcess> p);
  // Starts every bot and waits until each is connected or withdrawn. An
  // error with BOT_FAILURE_POLICY_ABORT when a bot fails, or when no bot at
  // all could be had (nothing to play). Starts the watcher.
  absl::Status StartAll();
  // Makes sure `bot` is connected before a match, restarting it if needed;
  // false if it is withdrawn (its requests then fail as NO_SHOW).
  bool Ensure(const std::string& bot);
  // Replaces every bot process that is not withdrawn by a fresh one (a new
  // sandbox, no memory of the matches before) and waits until each is
  // connected; a fresh process that fails is handled as by Ensure. Does not
  // count against max_restarts.
  void RenewAll();
  // What the run knew of each bot, in name order.
  std::vector<v1::EntrantReport> Reports() const;
  // Stops noticing processes that end (call before the referee closes the
  // streams, which ends the bots' processes as expected).
  void StopWatching();
  void StopAll();

 private:
  struct Entry {
    std::unique_ptr<BotProcess> process;
    absl::Mutex mu;  // one start, restart or withdrawal at a time
    int restarts = 0;
    bool withdrawn = false;
    std::string reason;               // why it was withdrawn
    std::vector<std::string> exits;   // unexpected ends
  };
  // The process ended unexpectedly (`how`): noted, and the hub told.
  void NoteEnd(const std::string& bot, Entry& e, const std::string& how)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Connected on a stream newer than the `connections_before`-th (not an old
  // one, possibly still closing).
  bool ConnectedSince(const std::string& bot, int connections_before) const;
  // Waits until the bot is connected (true), its process ends, or the
  // connect timeout passes.
  bool AwaitConnection(const std::string& bot, Entry& e, int connections_before)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Restarts until connected or out of restarts (then withdraws). `why`:
  // what happened so far, for the reason.
  bool Revive(const std::string& bot, Entry& e, std::string why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  void Withdraw(const std::string& bot, Entry& e, const std::string& why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  void WatchLoop();

  BotHub* const hub_;
  const SupervisorOptions options_;
  std::map<std::string, std::unique_ptr<Entry>> bots_;  // fixed after Add
  absl::Mutex watch_mu_;
  bool stop_watch_ ABSL_GUARDED_BY(watch_mu_) = false;
  std::thread watcher_;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_BOT_PROCESS_H_
