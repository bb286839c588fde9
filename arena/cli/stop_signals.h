// SIGINT and SIGTERM to `arena tournament`, `arena match` and `arena gate`:
// the run stops at once (arena/tournament/run_stop.h: no match is waited
// for, no bot process and no socket folder is left), arena says what was
// recorded and how to finish the run, and exits 128 + the signal's number
// (130 after SIGINT, 143 after SIGTERM), as a shell reports a command a
// signal ended. A second signal while the first is handled exits at once
// (the processes are killed, not waited for). docs/operations.md.
//
// Thread safety: BlockStopSignals must be called before the process starts
// any thread (each thread inherits the mask, so that only the watcher takes
// the signals); WatchStopSignals once, afterwards.
#ifndef ARENA_ARENA_CLI_STOP_SIGNALS_H_
#define ARENA_ARENA_CLI_STOP_SIGNALS_H_

#include <functional>
#include <string>

namespace arena {

// The exit code of a run stopped by `signal`: 128 + signal.
inline int StoppedExitCode(int signal) { return 128 + signal; }

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread
// it starts from now on).
void BlockStopSignals();

// Starts the thread that takes SIGINT and SIGTERM. The first one stops the
// run (StopRunNow), writes `message(signal)` to stderr and exits
// StoppedExitCode(signal); until `message` is set (SetStopMessage), it says
// only that the run was stopped.
void WatchStopSignals();
void SetStopMessage(std::function<std::string(int signal)> message);

// What a stopped tournament or gate says: how many matches of those planned
// are recorded in `records_dir` (counted in the folder), that the live ones
// are played again, and `next` (what to run; empty: none is said).
std::string StoppedRunMessage(int signal, const std::string& records_dir,
                              const std::string& next);

// The line that finishes a stopped tournament in `records_dir`: "to finish
// the tournament, run: <resume_command>", or why it cannot be resumed
// (nothing recorded yet; its secret kept in memory only).
std::string ResumeAdvice(const std::string& records_dir, const std::string& resume_command);

// `word` quoted for a POSIX shell if it needs it.
std::string ShellQuote(const std::string& word);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_STOP_SIGNALS_H_
