#include "arena/tournament/sandbox.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "arena/common/descriptors.h"
#include "arena/tournament/secret.h"

namespace arena {
namespace {

std::string Absolute(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  if (ec) p = std::filesystem::absolute(path, ec);
  return p.string();
}

std::string WorkingDir() {
  std::error_code ec;
  return std::filesystem::current_path(ec).string();
}

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Whether `uid`/`gid` may search every folder above `path` (and so reach
// it). A path it cannot reach is hidden from it already, by permissions;
// bwrap could not mount over it either.
// The first folder above `path` (from the root down) that `uid`/`gid` may
// not search, or "" if it may reach `path`.
std::string FirstUnsearchable(const std::string& path, uid_t uid, gid_t gid) {
  if (uid == 0) return "";
  std::vector<std::filesystem::path> above;
  for (std::filesystem::path dir = std::filesystem::path(path).parent_path();
       !dir.empty(); dir = dir.parent_path()) {
    above.push_back(dir);
    if (dir == dir.root_path()) break;
  }
  for (auto it = above.rbegin(); it != above.rend(); ++it) {
    struct stat st;
    if (::stat(it->c_str(), &st) != 0) return it->string();
    const mode_t bit = st.st_uid == uid   ? S_IXUSR
                       : st.st_gid == gid ? S_IXGRP
                                          : S_IXOTH;
    if ((st.st_mode & bit) == 0) return it->string();
  }
  return "";
}

// Whether `uid`/`gid` may search every folder above `path` (and so reach
// it). A path it cannot reach is hidden from it already, by permissions;
// bwrap could not mount over it either.
bool ReachableBy(const std::string& path, uid_t uid, gid_t gid) {
  return FirstUnsearchable(path, uid, gid).empty();
}

}  // namespace

std::string BwrapPath() {
  const char* env = std::getenv("ARENA_BWRAP");
  return env != nullptr && *env != '\0' ? env : kBwrap;
}

void BotExec::Seal() {
  argv_c = CStrings(argv);
  envp_c = CStrings(envp);
  parent = ::getpid();
}

std::vector<std::string> BwrapArgs(const SandboxOptions& o, uid_t uid,
                                   gid_t gid,
                                   const std::string& shell_command) {
  std::vector<std::string> a = {
      BwrapPath(),           "--unshare-all", "--die-with-parent", "--new-session",
      "--cap-drop",     "ALL",           "--hostname",        "arena-bot",
      "--ro-bind",      "/",             "/",                 "--dev",
      "/dev",           "--proc",        "/proc",             "--size",
      absl::StrCat(o.tmp_bytes), "--tmpfs", "/tmp",           "--tmpfs",
      "/var/tmp",       "--tmpfs",       "/run",
  };
  // /var/run is a symlink to /run on Debian; where it is a folder, cover it.
  std::error_code ec;
  if (std::filesystem::is_directory("/var/run", ec) &&
      !std::filesystem::is_symlink("/var/run", ec)) {
    a.insert(a.end(), {"--tmpfs", "/var/run"});
  }
  // The working folder and the bot command's absolute paths, where they lie
  // under one of the fresh folders above, are bound back read-only: the
  // whole top folder below it (e.g. /tmp/tmp.X for /tmp/tmp.X/build/bin/bot),
  // so that a checkout in a temporary folder runs its bots, while the rest
  // of the host's /tmp stays out of sight. So are the real paths of the
  // command's paths (absolute, or relative to the working folder) reached
  // through a link: build/bin as a link into /tmp/tmp.X.
  const std::string cwd = WorkingDir();
  std::vector<std::string> wanted = {cwd};
  for (absl::string_view word : absl::StrSplit(shell_command, ' ', absl::SkipEmpty())) {
    const bool absolute = absl::StartsWith(word, "/");
    if (absolute) wanted.emplace_back(word);
    if (!absolute && cwd.empty()) continue;
    const std::string path = absolute ? std::string(word) : absl::StrCat(cwd, "/", word);
    std::error_code link_ec;
    const std::filesystem::path real = std::filesystem::canonical(path, link_ec);
    if (!link_ec) wanted.push_back(real.string());
  }
  std::set<std::string> bound;
  for (const std::string& path : wanted) {
    for (const char* fresh : {"/tmp/", "/var/tmp/", "/run/"}) {
      if (!absl::StartsWith(path, fresh)) continue;
      const size_t end = path.find('/', std::strlen(fresh));
      const std::string top = path.substr(0, end);
      if (top.size() > std::strlen(fresh) && bound.insert(top).second &&
          std::filesystem::exists(top, ec)) {
        a.insert(a.end(), {"--ro-bind", top, top});
      }
    }
  }
  for (const auto& hidden : o.hidden_paths) {
    if (hidden.empty()) continue;
    const std::string p = Absolute(hidden);
    if (!ReachableBy(p, uid, gid)) continue;  // hidden by its folders' modes
    if (std::filesystem::is_directory(p, ec)) {
      a.insert(a.end(), {"--tmpfs", p, "--remount-ro", p});
    } else if (std::filesystem::exists(p, ec)) {
      a.insert(a.end(), {"--ro-bind", "/dev/null", p});
    }
  }
  if (!o.socket_host_path.empty()) {
    a.insert(a.end(), {"--bind", Absolute(o.socket_host_path), kSandboxSocket});
  }
  if (!cwd.empty()) a.insert(a.end(), {"--chdir", cwd});
  a.insert(a.end(), {"--", "/bin/sh", "-c", shell_command});
  return a;
}

BotExec PrepareBotExec(const SandboxOptions& o, int bot_index,
                       const std::string& command, const std::string& address,
                       const std::string& token, const std::string& name) {
  BotExec e;
  const std::string shell = absl::StrCat("exec ", command);
  e.sandboxed = o.enabled;
  e.limits = o;
  if (o.enabled) {
    if (::geteuid() == 0 && o.uid_base != 0) {
      e.drop_to_uid = true;
      e.uid = o.uid_base + static_cast<uid_t>(bot_index);
    }
    e.argv = e.drop_to_uid ? BwrapArgs(o, e.uid, e.uid, shell)
                           : BwrapArgs(o, ::geteuid(), ::getegid(), shell);
    e.envp = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp",
              "LANG=C.UTF-8"};
  } else {
    e.argv = {"/bin/sh", "-c", shell};
    for (char** env = environ; env != nullptr && *env != nullptr; ++env) {
      const absl::string_view kv(*env);
      if (absl::StartsWith(kv, "ARENA_ADDRESS=") ||
          absl::StartsWith(kv, "ARENA_TOKEN=") ||
          absl::StartsWith(kv, "ARENA_BOT_NAME=")) {
        continue;
      }
      e.envp.emplace_back(kv);
    }
  }
  e.envp.push_back(absl::StrCat("ARENA_ADDRESS=", address));
  e.envp.push_back(absl::StrCat("ARENA_TOKEN=", token));
  e.envp.push_back(absl::StrCat("ARENA_BOT_NAME=", name));
  return e;
}

void ExecBotInChild(const BotExec& e) {
  // Only async-signal-safe calls from here on (the parent has threads).
  // Nothing of arena's crosses into the bot but 0-2, which the caller has
  // set: not the live site's sockets, gRPC's, nor any record file
  // (arena/common/descriptors.h). First, while the descriptor limit is
  // still arena's own.
  CloseDescriptorsFrom(3);
  ResetSignalsForExec();  // SIGTERM unblocked: a bot asked to stop stops
  if (e.sandboxed) {
    const SandboxOptions& o = e.limits;
    struct rlimit r;
    r.rlim_cur = r.rlim_max = static_cast<rlim_t>(o.memory_bytes);
    if (::setrlimit(RLIMIT_DATA, &r) != 0) return;
    r.rlim_cur = r.rlim_max = static_cast<rlim_t>(o.max_open_files);
    if (::setrlimit(RLIMIT_NOFILE, &r) != 0) return;
    r.rlim_cur = r.rlim_max = static_cast<rlim_t>(o.max_file_bytes);
    if (::setrlimit(RLIMIT_FSIZE, &r) != 0) return;
    r.rlim_cur = r.rlim_max = 0;
    if (::setrlimit(RLIMIT_CORE, &r) != 0) return;
    if (e.drop_to_uid) {
      r.rlim_cur = r.rlim_max = static_cast<rlim_t>(o.max_processes);
      if (::setrlimit(RLIMIT_NPROC, &r) != 0) return;
      // The system calls themselves: glibc's wrappers would broadcast the
      // change to the threads it knows of, which in a child of
      // SpawnForExec are arena's (arena/common/spawn.h).
      if (::syscall(SYS_setgroups, 0, nullptr) != 0) return;
      if (::syscall(SYS_setresgid, e.uid, e.uid, e.uid) != 0) return;
      if (::syscall(SYS_setresuid, e.uid, e.uid, e.uid) != 0) return;
    }
  }
  // Credential changes clear the parent-death signal: set it last.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Arena may have died between fork and prctl: then nothing kills this
  // child with it, and it must not become a bot nobody stops.
  if (::getppid() != e.parent) ::_exit(1);
  ::execve(e.argv_c[0], e.argv_c.data(), e.envp_c.data());
}

absl::Status CheckSandbox(const SandboxOptions& o) {
  if (::access(BwrapPath().c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot sandbox the bots: ", BwrapPath(),
        " is missing (install Debian's bubblewrap: apt-get install "
        "bubblewrap), or run with --sandbox none if you trust every bot"));
  }
  BotExec e = PrepareBotExec(o, 0, "/bin/true", "", "", "sandbox-check");
  // The bots start in arena's working folder, as an unprivileged uid when
  // arena runs as root: that uid must be able to reach it.
  if (e.drop_to_uid) {
    const std::string blocked =
        FirstUnsearchable(WorkingDir() + "/.", e.uid, e.uid);
    if (!blocked.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot sandbox the bots: they run as an unprivileged user, who "
          "may not enter ", blocked, " (on the way to the working folder ",
          WorkingDir(), "); let others search it (chmod o+x ", blocked,
          "), run arena from another folder, or run with --sandbox none if "
          "you trust every bot"));
    }
    // The referee's socket is bound into each sandbox from its folder in
    // TMPDIR: the bots' uid must reach it there too (a TMPDIR of mode 0700
    // would fail every bot with bwrap's "Can't find source path").
    if (!o.socket_host_path.empty()) {
      const std::string blocked_socket =
          FirstUnsearchable(o.socket_host_path, e.uid, e.uid);
      if (!blocked_socket.empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot sandbox the bots: they run as an unprivileged user, who "
            "may not enter ", blocked_socket, " (on the way to the referee's "
            "socket ", o.socket_host_path, ", made in the temporary folder, "
            "TMPDIR); let others search it (chmod o+x ", blocked_socket,
            "), set TMPDIR to a folder they may enter, or run with --sandbox "
            "none if you trust every bot"));
      }
    }
  }
  e.Seal();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::UnavailableError("cannot check the sandbox: pipe failed");
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return absl::UnavailableError("cannot check the sandbox: fork failed");
  }
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ExecBotInChild(e);
    const char msg[] = "cannot start bwrap (setrlimit, setuid or exec failed)\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::string output;
  char buf[512];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buf, sizeof buf)) > 0 && output.size() < 4096) {
    output.append(buf, n);
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  absl::string_view why = absl::StripAsciiWhitespace(output);
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot sandbox the bots: bubblewrap failed (",
      why.empty() ? "no message" : why,
      "); fix that, or run with --sandbox none if you trust every bot"));
}

uid_t PickUidBase() {
  if (::geteuid() != 0) return 0;
  auto hex = RandomHex(4);
  uint32_t r = 0;
  if (hex.ok()) r = static_cast<uint32_t>(std::stoul(hex->substr(0, 7), nullptr, 16));
  // [2^30, 2^31): far above any account, 4096 uids per run.
  return static_cast<uid_t>((uint32_t{1} << 30) + ((r << 12) & 0x3ffff000u));
}

}  // namespace arena
