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
//    with a back-off that doubles from SupervisorOptions::backoff_first
//    (counted from the failure: a crash seen long before the bot's next
//    match has waited it out),
//    up to max_restarts times in the whole tournament. The count is the
//    entrant's, over all its processes: a start that follows a crash is a
//    restart in every mode, also when the crashed process's slot was freed
//    (on demand) before its next match.
//  - A bot that still cannot be had (it exits before connecting after its
//    restarts, or runs without connecting for the connect timeout) is
//    withdrawn: its process is stopped and the hub fails every request for it
//    at once as NO_SHOW with the reason, so each of its remaining matches is
//    recorded as its forfeit. With BOT_FAILURE_POLICY_ABORT the first such
//    failure at start is an error instead (the tournament stops).
//
// Entrants on demand (SupervisorOptions::max_live): when there are more bots
// than max_live, at most max_live bot processes live at once. A bot's
// process is started by Ensure when its match comes up and stopped once it
// has had no live match for idle_timeout (the watcher does it). When
// max_live are live, Ensure stops one that has no live match and is not
// pinned to make room (see Expect below), or waits until one has none
// (the hub tells the supervisor of every match's start and end,
// BotHub::SetMatchObserver). Ensure pins its bot until a match with it
// starts, so the bots of a match being prepared are not stopped while the
// others are ensured. Such stops are not crashes: they count neither as
// restarts nor as exits. With no more bots than max_live, every process lives
// through the tournament as above, unless fresh_per_deal: then the
// processes are managed as on demand (Ensure with a deal replaces a process
// that played it, the starter starts the next ones ahead), but none is
// stopped for being idle, since there is room for all.
//
// A bot's next process (one of Add's spares, for duplicate deals): when
// the next match a bot's process is needed for is of a deal it has played
// (in a match, held for one, or idle), the starter starts the bot's next
// process beside it (in free room: it counts in max_live), or makes a kept
// one that has not met the deal its next process (below), which the hub
// holds as the bot's standby stream. Ensure tells the starter at
// once when the bot's next deal is such a one (Expect lists each bot's
// deals in order). When that match is ensured, the next process takes over
// (HandOver, BotHub::PromoteStandby): the new match, and every later one,
// is played by it, while the current process retires, finishing the
// matches it is in on its own stream (a match never moves between
// processes), and the watcher stops (or keeps) it once it holds no seat;
// Ensure waits for the next process's stream rather than stop an idle
// current one and start the match on the next one after. Neither the
// start nor the current process's matches are on the match's path. A bot
// has a spare per seat, so that each rotation of a deal may play at once on
// a process of its own (a retiring process's spare is used again once it
// is stopped). Only while no other match of the bot is being prepared
// (that one's Ensure has counted on the current process: the bot then
// waits for it as before, and once the current process is stopped, the
// next one takes over, TakeOver). Ensure never hands a match to a process
// that has played its deal. A next process that ends before its turn is
// dropped, not counted as a crash (it may fail for running beside the
// current one: the limits are per bot uid), and the bot starts on the
// match's path as without one; one not needed soon is stopped with the idle
// ones. A retiring process that ends unexpectedly is the bot's crash: its
// seats fail (the hub), and it counts against max_restarts.
//
// Kept processes (parked): with no more bots than max_live, a retiring
// process that has finished its matches is not stopped but kept, still
// connected (its stream stays retiring in the hub, taking nothing), with
// the deals it has played. When the bot's current process is unfit for
// its next deal, a kept one that has not met that deal becomes its next
// process again (RestoreParked, BotHub::RestoreStandby) and takes over as
// a started one would, with no start at all; only if none fits does a
// spare start. With room for a process per seat of a bot, each ends up
// playing one rotation of every deal. Kept processes are the first
// stopped for room (before any bot's idle process, the bot needed last
// first), and stopped when stale (a RenewAll). One that ends unexpectedly
// counts as a retiring one's crash. (In a field larger than max_live a
// bot meets its next deal seldom: a retiring process is stopped once
// done, and the room goes to the processes needed next.)
//
// Ahead of need (Expect): the tournament tells the supervisor which bots
// its next matches need, in order. A process needed among the next max_live
// bots is not stopped when idle; the one stopped to make room is the one
// needed last (of those not needed, the least recently used); and a
// starter thread starts the processes needed next, in free room or in the
// room of an idle one needed later (stopped for it), without waiting for
// them to connect: their Ensure waits for the connection if it has not
// come yet.
//
// Each entrant's processes are tallied (arena/tournament/process_usage.h):
// how many were started, their CPU seconds and peak memory, read from /proc
// while they run (the watcher, every kUsageEvery or less often with many
// live), right before arena signals one, in StopWatching, and from wait4
// when one is reaped; Reports() carries them to entrants.json.
//
// Thread safety: BotProcess and BotSupervisor may be used from any thread.
#ifndef ARENA_ARENA_TOURNAMENT_BOT_PROCESS_H_
#define ARENA_ARENA_TOURNAMENT_BOT_PROCESS_H_

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/tournament/process_usage.h"
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
  // SIGTERM to the group, then SIGKILL after `grace`. `quietly`: its end
  // logged at debug level (a stop between matches, counted elsewhere).
  void Stop(absl::Duration grace, bool quietly = false);
  // SIGTERM to the group, not waited for (Stop then waits): an end from now
  // on is one asked for.
  void Terminate();
  // The process is to end now (its stream was closed): its end from here on
  // is logged as a stop (at debug level), not as an unexpected one, and
  // sends no signal. Whether it was running.
  bool ExpectEnd();
  const std::string& name() const { return name_; }
  const std::string& log_path() const { return log_path_; }
  // "its process <how><when>; its last output: <its log's last lines>", the
  // words every fault, withdrawal and log line about an ended process uses.
  std::string DescribeEnd(const std::string& how, const std::string& when = "") const;
  // How the process last ended, empty while it runs or before it first ends.
  std::string exit_status() const;
  // The last lines its latest process wrote to its log (at most
  // `max_bytes`), for error messages.
  std::string LogTail(size_t max_bytes = 2000) const;
  // Reads the CPU time and peak memory of the live process's tree now
  // (arena/tournament/process_usage.h); Stop and Terminate do it too, right
  // before they signal it, and its reaping adds its rusage.
  void SampleUsage();
  // Its processes so far: how many were started, their CPU and peak RSS.
  UsageTally usage() const;
  // Its starts are logged at debug level, the first too (a bot's spare,
  // whose first start is not the bot's).
  void QuietStarts() {
    absl::MutexLock lock(&mu_);
    starts_ = std::max<int64_t>(starts_, 1);
  }

 private:
  // Reaps the process if it ended; true if it still runs.
  bool RunningLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_, command_, log_path_;
  const std::unique_ptr<BotExec> exec_;  // sealed: used in the forked child
  mutable absl::Mutex mu_;
  std::string exit_status_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;  // an end we asked for
  bool quiet_stop_ ABSL_GUARDED_BY(mu_) = false;  // ... logged at debug
  int64_t starts_ ABSL_GUARDED_BY(mu_) = 0;  // the first at info, the others at debug
  bool unexpected_end_ ABSL_GUARDED_BY(mu_) = false;  // not yet polled
  pid_t pid_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t log_start_ ABSL_GUARDED_BY(mu_) = 0;  // log size at the latest Start
  UsageTally usage_ ABSL_GUARDED_BY(mu_);
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
  // Entrants on demand: the most bot processes live at once (0: no bound).
  // With more bots than this, processes start and stop on demand (see the
  // top of this file); it must then be at least the seats of a match.
  int max_live = 0;
  // On demand: a process with no live match for this long is stopped.
  absl::Duration idle_timeout = absl::Seconds(5);
  // On demand: SIGTERM to SIGKILL when an idle process is stopped.
  absl::Duration stop_grace = absl::Seconds(1);
  // Duplicate deals with a fresh process per deal: processes on demand
  // (Ensure with a deal) even when every bot fits in max_live, instead of
  // RenewAll between rotations, which waits for every match to end.
  bool fresh_per_deal = false;
};

// What a supervisor's bot processes came to (for the log and tests).
struct ProcessCounts {
  bool on_demand = false;   // more bots than max_live
  int max_live = 0;         // the bound (0: none)
  int peak_live = 0;        // the most processes live at once
  int64_t demand_starts = 0;  // started by Ensure when not live
  int64_t idle_stops = 0;   // stopped after idle_timeout without a match
  int64_t evictions = 0;    // stopped, idle, to make room for another bot
  int64_t ahead_starts = 0;  // started ahead of need (Expect)
  // On demand: stopped because their bot's next match is of a deal they
  // have played, or after RenewAll.
  int64_t renewals = 0;
  // Of the renewals: those where the bot's next process, started ahead
  // while its current one played, took over without a start in the
  // match's way.
  int64_t successor_takeovers = 0;
  // Of those: taken over while the process before still played its
  // matches (HandOver), not after it stopped.
  int64_t handovers = 0;
  // Of every process stopped or dropped (for room, idle, a next process no
  // longer needed, or one that ended by itself before its turn): those
  // that had been ensured for no match. Each was a start for nothing.
  int64_t unused_stops = 0;
  // Processes that finished their matches after a handover and were kept
  // (parked) instead of stopped; of those, the ones that played again (a
  // later deal they had not met), and the ones stopped (for room, or
  // stale).
  int64_t parked = 0;
  int64_t reused = 0;
  int64_t parked_stops = 0;
};

class BotSupervisor {
 public:
  BotSupervisor(BotHub* hub, SupervisorOptions options);
  ~BotSupervisor();

  // `spares` (optional): more processes of the same bot (the same command,
  // sandbox and log, each with its own token of the bot's in the hub,
  // where `p` has `token`), which on demand are the bot's next processes,
  // each started ahead while the one before still plays (see the top of
  // this file).
  void Add(std::unique_ptr<BotProcess> p, std::string token = "",
           std::vector<std::pair<std::unique_ptr<BotProcess>, std::string>> spares = {});
  // Starts every bot and waits until each is connected or withdrawn. An
  // error with BOT_FAILURE_POLICY_ABORT when a bot fails, or when no bot at
  // all could be had (nothing to play). Starts the watcher. On demand, bots
  // are started max_live at a time in name order: under
  // BOT_FAILURE_POLICY_ABORT every bot is started once (each group stopped
  // when it has connected, but the last), otherwise only until a group has
  // a bot that connected; the others start in Ensure, where one that fails
  // is withdrawn (whatever the policy).
  absl::Status StartAll();
  // Makes sure `bot` is connected before a match, starting it (on demand)
  // or restarting it if needed; false if it is withdrawn (its requests then
  // fail as NO_SHOW). On demand it pins `bot` (not stopped until a match
  // with it starts) and may wait for room (see the top of this file).
  // With `deal` (>= 0, on demand): a process of `bot` that has not played
  // that deal; one that has is replaced once it has no live match (so that
  // no process of a bot sees a deal twice: a duplicate deal's rotations).
  bool Ensure(const std::string& bot, int64_t deal = -1);
  // On demand: pins `bot` now for a match whose Ensure comes later (from
  // another thread); that Ensure takes this pin over instead of adding
  // one. So no process about to play is stopped (for room, or as unfit for
  // a later match's deal) in between. Nothing otherwise.
  void Pin(const std::string& bot);
  // Replaces every bot process that is not withdrawn by a fresh one (a new
  // sandbox, no memory of the matches before) and waits until each is
  // connected (call it with no match live); a fresh process that fails is
  // handled as by Ensure. Does not count against max_restarts. On demand it
  // returns at once (call it with no match being prepared): every process
  // live now is stale, and a bot's next Ensure waits until its stale
  // process has no live match, stops it and starts a fresh one; stale
  // processes without a match are stopped (by the watcher, or by the
  // starter for a fresh one).
  void RenewAll();
  // On demand: the bots of the matches to come, in the order they are
  // needed (repeats allowed), each with the deal of its match (-1: any
  // process will do), replacing the last such list (see the top of this
  // file). Returns at once.
  void Expect(const std::vector<std::pair<std::string, int64_t>>& upcoming);
  // Whether `bot`'s process is live (on demand: holds its slot) and
  // connected: a match of it waits for no start.
  bool Ready(const std::string& bot) const;
  // What the run knew of each bot, in name order, with its processes'
  // CPU time and peak memory (final once StopAll has reaped them).
  std::vector<v1::EntrantReport> Reports() const;
  // Reads every live process's CPU time and peak memory now (the watcher
  // does every kUsageEvery, or every 5 ms times the processes live when
  // that is longer, and StopWatching once more).
  void SampleUsage();
  static constexpr absl::Duration kUsageEvery = absl::Milliseconds(500);
  ProcessCounts Counts() const;
  // Stops noticing processes that end (call before the referee closes the
  // streams, which ends the bots' processes as expected).
  void StopWatching();
  // Waits up to `own_exit` for the processes to end by themselves (as a bot
  // does when the referee ends its stream), then stops those still running
  // (BotProcess::Stop: SIGTERM, SIGKILL 3 s later).
  void StopAll(absl::Duration own_exit = absl::ZeroDuration());

 private:
  struct Entry {
    std::unique_ptr<BotProcess> process;
    absl::Mutex mu;  // one start, restart or withdrawal at a time
    int restarts = 0;
    bool withdrawn = false;
    std::string reason;               // why it was withdrawn
    std::vector<std::string> exits;   // unexpected ends
    // Its latest process ended unexpectedly (a crash): the next start of
    // the entrant, whenever and by whom, is a restart (counted against
    // max_restarts), even after its slot was freed.
    bool crashed = false;
    std::string crash;                // how that process ended, with output
    absl::Time crashed_at;            // when that end was seen (MonoNow)
    // Started ahead of need (Expect) and not yet seen connected: its
    // Ensure waits for a connection newer than the `connections`-th.
    bool ahead = false;
    int connections = 0;
    // The bot's next process (one of Add's spares): on demand, started
    // while `process` plays a match, for a deal `process` has played, and
    // held by the hub as the bot's standby stream; it takes over when that
    // match is ensured (HandOver: `process` retires), or once `process` is
    // done with its matches and stopped (TakeOver: the two swap), so that
    // the bot's next match waits for no start. Its slot in the pool:
    // Slot::next_live.
    // Null until StartSuccessor takes one of `unused`, and after a handover.
    std::unique_ptr<BotProcess> next;
    std::string token, next_token;  // of `process` and of `next`
    // A process with the token it connects with; once it has played
    // (retiring, parked), the deals it was ensured for and the RenewAll
    // count when it started (Pool::Slot's, kept when it stopped being the
    // bot's current process).
    struct Held {
      Held() = default;
      Held(std::unique_ptr<BotProcess> p, std::string t)
          : process(std::move(p)), token(std::move(t)) {}
      std::unique_ptr<BotProcess> process;
      std::string token;
      std::set<int64_t> deals;
      int64_t epoch = 0;
    };
    // Previous processes finishing the matches they are in after a
    // handover (HandOver; Slot::retiring counts their slots); those that
    // finished them and still run, kept for a later deal none of them has
    // met (parked: RestoreParked makes one `next` again; Slot::parked
    // counts their slots; the first stopped for room); and spares not
    // running, from which `next` is taken again: a bot may play each
    // rotation of a deal on a process of its own at once. (`parked` is in
    // the order kept, the oldest first.)
    std::vector<Held> retiring, parked, unused;
    // The deals `next` has played: empty for a fresh start, a parked
    // process's own when RestoreParked made it `next`.
    std::set<int64_t> next_deals;
    int64_t next_epoch = 0;
    // Every process object of the bot, for its usage and its stop.
    std::vector<BotProcess*> AllProcesses() const {
      std::vector<BotProcess*> all{process.get()};
      if (next != nullptr) all.push_back(next.get());
      for (const auto* v : {&retiring, &parked, &unused}) {
        for (const Held& h : *v) all.push_back(h.process.get());
      }
      return all;
    }
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
  // Withdraws the bot with `why` as its public reason, led by its cut-offs
  // (how many, the last one's cause) if the referee ever cut it off.
  void Withdraw(const std::string& bot, Entry& e, std::string why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  void WatchLoop();
  // On demand, once a minute (the watcher): the processes started and
  // stopped since `last`, which it then updates.
  void LogMinute(ProcessCounts* last);

  // The accounting of live processes (all modes), shared with the hub's
  // match observer, which may outlive the supervisor. A leaf lock: taken
  // after an Entry's mu, never before it.
  struct Pool {
    struct Slot {
      bool live = false;      // a process started and not stopped (a slot)
      bool stopping = false;  // picked to be stopped; not picked again
      bool pinned = false;    // ensured, its match not started yet
      int pins = 0;           // Ensure calls whose match has not started yet
      int pre_pins = 0;       // of those, Pin's whose Ensure has not come yet
      absl::Time pinned_at;
      int matches = 0;        // live matches
      absl::Time last_used;   // latest ensure, match start or match end
      int64_t epoch = 0;      // the RenewAll count when its process started
      std::set<int64_t> deals;  // the deals its process was ensured for
      bool used = false;        // its process was ensured for a match
      bool next_live = false;   // its next process runs (Entry::next), a slot of its own
      absl::Time next_started;
      // Of its processes, those retiring (Entry::retiring) and those
      // parked (Entry::parked), each a slot.
      int retiring = 0;
      int parked = 0;
    };
    absl::Mutex mu;
    std::map<std::string, Slot> slots ABSL_GUARDED_BY(mu);  // keys fixed after Add
    int live ABSL_GUARDED_BY(mu) = 0;
    int live_matches ABSL_GUARDED_BY(mu) = 0;  // summed over the bots
    int parked ABSL_GUARDED_BY(mu) = 0;  // summed over the bots
    ProcessCounts counts ABSL_GUARDED_BY(mu);
    // Expect: each bot's first place in the order of need (absent: not
    // needed), those bots in that order, and a count of the lists given.
    std::map<std::string, int> next_use ABSL_GUARDED_BY(mu);
    std::vector<std::pair<std::string, int64_t>> order ABSL_GUARDED_BY(mu);
    int64_t expected ABSL_GUARDED_BY(mu) = 0;
    int64_t epoch ABSL_GUARDED_BY(mu) = 0;  // RenewAll calls on demand
    // Started before the latest RenewAll (at count `its_epoch`).
    bool StaleSince(int64_t its_epoch) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return its_epoch < epoch;
    }
    bool Stale(const Slot& s) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return s.live && StaleSince(s.epoch);
    }
    // A process that started at RenewAll count `its_epoch` and has played
    // `its_deals` may not play `deal` (-1: any): it is stale, or it has
    // played that deal. The one rule for every process of a bot (the
    // current one, its next one, a kept one).
    bool MayNotPlay(const std::set<int64_t>& its_deals, int64_t its_epoch, int64_t deal) const
        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return StaleSince(its_epoch) || (deal >= 0 && its_deals.count(deal) > 0);
    }
    // Live, and not to play `deal` (MayNotPlay).
    bool Unfit(const Slot& s, int64_t deal) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return s.live && MayNotPlay(s.deals, s.epoch, deal);
    }
    // A fresh process in the slot.
    void Fresh(Slot& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      s.epoch = epoch;
      s.deals.clear();
      s.used = false;
    }
    std::map<std::string, int64_t> next_deal ABSL_GUARDED_BY(mu);  // Expect's
    // Expect's too: each bot's deals after next_deal, in order; Ensure moves
    // the first into next_deal when it uses next_deal up.
    std::map<std::string, std::deque<int64_t>> later_deals ABSL_GUARDED_BY(mu);
    bool stop_starter ABSL_GUARDED_BY(mu) = false;
    // Needed among the next `horizon` bots.
    bool NeededSoon(const std::string& bot, int horizon) const
        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
    void Take(Slot& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
    // Pins the slot for a match not started yet: from Pin (`early`), or
    // from Ensure, which takes an early pin over rather than adding one.
    void PinFor(Slot& s, bool early) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
    // The bot to stop to make room for `self`, if any: of the live ones
    // without a live match that are not pinned, the one needed last (of
    // those not needed, the least recently used), else, if no
    // match is live at all and no process is being stopped (no slot can
    // free up), the one pinned longest ago (a pin whose match never
    // started).
    // For a start `ahead` of need (a match's bot, or a bot's next
    // process): never the oldest pin, nor a process that has played no
    // match yet (itself started ahead). One start ahead never undoes
    // another: when each took the room of one started ahead before it, a
    // fifth of the 48-entrant contest's starts at --jobs 4 were stopped
    // before they played (docs/benchmarks.md, "Entrants on demand"). The
    // match that needs the bot takes the room then (Ensure, MakeRoom).
    Slot* Victim(const std::string& self, std::string* name, bool ahead = false)
        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
    // The bot's place in the order of need (Expect); INT_MAX if not needed.
    int NextUse(const std::string& bot) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  };
  // The process is started: a slot taken, counted.
  void TakeSlot(const std::string& bot);
  // Its process stopped (or never ran): its slot freed.
  void FreeSlot(const std::string& bot);
  bool Live(const std::string& bot) const;
  // On demand: a slot for `bot` (whose mu is held), stopping an idle
  // process or waiting for one if max_live are live.
  void MakeRoom(const std::string& bot);
  // Starts the process of `bot` (holding its slot) and waits until it is
  // connected; false if it is withdrawn.
  bool StartOnDemand(const std::string& bot, Entry& e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Starts the bots named and waits until each is connected or withdrawn
  // (StartAll's first part).
  absl::Status StartGroup(const std::vector<std::string>& names);
  // Stops idle processes, and stale ones at once (on demand; the watcher).
  void StopIdle();
  // On demand: waits until the stale process of `bot` (if any) has no live
  // match (its bot's mu not held), then, with its mu held, stops it.
  // Both for `deal` too (Pool::Unfit).
  void AwaitStale(const std::string& bot, int64_t deal);
  // `own_pin`: the caller is an Ensure, which pinned it.
  void StopStale(const std::string& bot, Entry& e, int64_t deal, bool own_pin)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Ensure's work, without noting the deal.
  bool EnsureProcess(const std::string& bot, int64_t deal);
  // Ensure's note that `bot`'s process is to play `deal` (the caller holds
  // the bot's lock, if the bot is one of bots_).
  void NoteDeal(const std::string& bot, int64_t deal);
  // A process of `bot` was (re)started in its live slot: no deal played.
  void MarkFresh(const std::string& bot);
  // The starter thread: starts the processes Expect names, in order, while
  // there is room (see the top of this file).
  void StartAheadLoop();
  // Starts `bot`'s process ahead of need if it has none, is not withdrawn
  // and there is room, stopping an idle one needed later if need be; false
  // once there is no room. With a spare, and `bot`'s process in a match (or
  // held for one) but unfit for `deal`: its next process, in free room.
  bool StartAhead(const std::string& bot, int64_t deal);
  // Stops `victim`, picked (Slot::stopping) to make room for a process
  // needed sooner, unless its lock is held (then the pick is let go); `why`
  // for the log.
  void EvictForLater(const std::string& victim, const std::string& why);
  // The next process of `bot` (whose mu is held) for `deal`, if it has a
  // spare, none runs, its current one is busy and unfit for the deal, and
  // there is room; whether it was started.
  bool StartSuccessor(const std::string& bot, Entry& e, int64_t deal)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Once `bot`'s current process is stopped (its slot free): its next
  // process takes over, the hub's standby stream becoming its live one;
  // false if there is no next process or it did not connect (it is then
  // stopped). Without `wait`, false at once if its stream has not come yet.
  // A next process that has met `deal` (a parked one restored for another
  // deal) does not take over: it is stopped.
  bool TakeOver(const std::string& bot, Entry& e, int64_t deal, bool wait = true)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // With `bot`'s process in matches and unfit for `deal`, and only this
  // Ensure's match to come: its next process, connected, takes the bot's
  // new matches at once, and the current one retires (finishing its own
  // matches on its stream, BotHub::PromoteStandby with retire_live; the
  // watcher stops it once it holds none). Whether it did.
  bool HandOver(const std::string& bot, Entry& e, int64_t deal)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // With `bot`'s next process running (Slot::next_live): waits until the
  // hub holds its stream as the standby, it ends, or the connect timeout.
  void AwaitStandby(const std::string& bot, Entry& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // The watcher: parks each retiring process that no longer holds a seat
  // (it stops one that no longer runs, or is stale).
  void StopRetired();
  // With `bot`'s current process unfit for `deal` (or none live), and no
  // next process running: one of its parked processes that has not met
  // `deal` becomes its next process (the hub's standby again,
  // BotHub::RestoreStandby), without a start. Whether one did.
  bool RestoreParked(const std::string& bot, Entry& e, int64_t deal)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Stops `bot`'s parked process e.parked[i], frees its slot and keeps it
  // as a spare; `how`: its unexpected end (counted as DropRetired counts
  // one), else empty.
  void DropParked(const std::string& bot, Entry& e, size_t i, const std::string& how = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // The bot's next process becomes its current one in slot `s` (just made
  // Fresh): the deals and RenewAll count of a kept one go with it.
  static void AdoptNextsHistory(Entry& e, Pool::Slot& s);
  // DropRetired's and DropParked's work, from e.retiring or e.parked.
  void DropPrevious(const std::string& bot, Entry& e, bool parked, size_t i,
                    const std::string& how) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // With max_live live: stops one parked process, of another bot than
  // `self` if there is one (`self`'s lock is held by the caller, `self_e`).
  // Whether one was stopped (false: none parked, or its bot busy).
  bool StopAParked(const std::string& self, Entry& self_e);
  // Stops `bot`'s retiring process e.retiring[i] (if it runs), frees its
  // slot and keeps it as a spare; `how`: its unexpected end, the bot's
  // crash (in its exits, and counted against max_restarts: past them, the
  // bot is withdrawn), else empty.
  void DropRetired(const std::string& bot, Entry& e, size_t i, const std::string& how = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Stops `bot`'s next process, if it runs, and frees its slot; `how`: its
  // unexpected end, logged (empty: a stop).
  void DropSuccessor(const std::string& bot, Entry& e, const std::string& how = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);
  // Stops the live process of `bot` that was picked (Slot::stopping, its
  // pin then `pinned_at`, InfinitePast if none) if it still has no live
  // match and no newer pin, and counts it in `counter`; `why` for the log.
  // Clears the pick either way; false if it was not stopped.
  bool StopPicked(const std::string& bot, Entry& e, absl::Time pinned_at,
                  int64_t ProcessCounts::*counter, const std::string& why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu);

  BotHub* const hub_;
  const SupervisorOptions options_;
  std::map<std::string, std::unique_ptr<Entry>> bots_;  // fixed after Add
  const std::shared_ptr<Pool> pool_ = std::make_shared<Pool>();
  bool on_demand_ = false;  // set by StartAll
  bool room_for_all_ = false;  // on demand with no more bots than max_live
  absl::Mutex watch_mu_;
  bool stop_watch_ ABSL_GUARDED_BY(watch_mu_) = false;
  std::thread watcher_;
  std::thread starter_;  // on demand, from StartAll
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_BOT_PROCESS_H_
