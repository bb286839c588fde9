// The sandbox that `arena match` and `arena tournament` run every bot
// process in: bubblewrap (Debian's `bubblewrap`, /usr/bin/bwrap).
//
// What a sandboxed bot gets (docs/security.md has the threat model):
//   - its own user, PID, IPC, network, UTS and cgroup namespaces: it sees only
//     its own processes, has no network at all (not even the host's
//     loopback), and reaches the referee only through the referee's Unix
//     domain socket, bound into the sandbox at kSandboxSocket;
//   - the host's file system read-only, with fresh /dev, /proc, /tmp,
//     /var/tmp and /run (so the host's temp files and service sockets there
//     are out of reach), and the organiser's hidden paths (the records,
//     logs and secrets) covered by empty folders;
//   - a private writable /tmp of at most tmp_bytes;
//   - no capabilities; when arena runs as root, an unprivileged uid and gid
//     of its own (one per bot, from a range picked at random per run);
//   - resource limits: data memory (RLIMIT_DATA), processes and threads
//     (RLIMIT_NPROC, root only: it counts per uid), open files, file size, no
//     core dumps;
//   - an environment of PATH, HOME=/tmp, TMPDIR, LANG and its own
//     ARENA_ADDRESS, ARENA_TOKEN and ARENA_BOT_NAME only.
//
// Thread safety: the functions are pure or touch only their arguments;
// PrepareBotExec's result is used in a forked child (no allocation there).
#ifndef ARENA_ARENA_TOURNAMENT_SANDBOX_H_
#define ARENA_ARENA_TOURNAMENT_SANDBOX_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace arena {

// Where the referee's socket appears inside every sandbox.
inline constexpr char kSandboxSocket[] = "/run/arena/referee.sock";
inline constexpr char kBwrap[] = "/usr/bin/bwrap";
// The bwrap program: $ARENA_BWRAP if set (tests use it to make the sandbox
// fail), else kBwrap.
std::string BwrapPath();

struct SandboxOptions {
  bool enabled = true;
  int64_t memory_bytes = int64_t{1} << 30;  // RLIMIT_DATA
  int64_t max_processes = 256;              // RLIMIT_NPROC, per bot uid
  int64_t max_open_files = 256;             // RLIMIT_NOFILE
  // RLIMIT_FSIZE: caps the bot's log (its stdout and stderr), which lives
  // on the host; its /tmp is capped by tmp_bytes.
  int64_t max_file_bytes = int64_t{1} << 30;
  int64_t tmp_bytes = int64_t{64} << 20;    // size of the private /tmp
  // Host paths (files or folders) the bots must not see: records, logs,
  // secret file. Made absolute by BwrapArgs.
  std::vector<std::string> hidden_paths;
  // The referee's Unix socket on the host, bound to kSandboxSocket.
  std::string socket_host_path;
  // When arena runs as root: bot i runs as uid and gid uid_base + i.
  uid_t uid_base = 0;
};

// Everything a forked child needs to exec one bot, prepared before fork.
struct BotExec {
  std::vector<std::string> argv;
  std::vector<std::string> envp;
  bool drop_to_uid = false;
  uid_t uid = 0;
  SandboxOptions limits;  // applied when sandboxed
  bool sandboxed = false;
  // C views of argv and envp for execve, made by Seal() right before fork
  // (they point into argv and envp: do not copy or move a sealed BotExec).
  std::vector<char*> argv_c, envp_c;
  // The process that forks the bot (set by Seal): a child whose parent is
  // no longer it when its parent-death signal is armed was orphaned before
  // the signal could be, and gives up rather than outlive arena.
  pid_t parent = 0;
  void Seal();
};

// The bwrap command line that runs `shell_command` with /bin/sh -c, for a
// bot running as `uid`/`gid`. Hidden paths that uid cannot reach (a folder
// above them denies it search permission) are left as they are: they are
// hidden already.
std::vector<std::string> BwrapArgs(const SandboxOptions& options, uid_t uid,
                                   gid_t gid, const std::string& shell_command);

// The command and environment of a bot process (sandboxed or not).
BotExec PrepareBotExec(const SandboxOptions& options, int bot_index,
                       const std::string& command, const std::string& address,
                       const std::string& token, const std::string& name);

// In a child (forked, or of SpawnForExec: arena/common/spawn.h), on a
// sealed BotExec: resource limits, then the unprivileged uid, then execve.
// Async-signal-safe, and safe on the parent's memory (raw system calls).
// Returns only on failure (the caller then _exits).
void ExecBotInChild(const BotExec& exec);

// Starts `bwrap ... /bin/true` once, as a bot would be started; an error
// names the cause and the way out (`--sandbox none`).
absl::Status CheckSandbox(const SandboxOptions& options);

// A random uid range for this run's bots (root only), or 0.
uid_t PickUidBase();

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_SANDBOX_H_
