#include "arena/cli/serve_command.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <iostream>

#include "absl/strings/str_cat.h"
#include "arena/cli/command.h"

namespace arena {

int RunServe(const ServeCommandOptions& options) {
  struct stat st;
  if (::stat(options.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Fail(absl::NotFoundError(absl::StrCat(options.dir, ": no such folder")));
  }
  // The signals are taken by sigwait below, on this thread: blocked before
  // the server's threads start, so that they inherit the mask.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  LiveSite site(options.dir, options.live);
  auto server = LiveServer::Start(&site, options.serve);
  if (!server.ok()) return Fail(server.status());
  std::cout << "arena serve: http://" << (*server)->address() << "/ (" << options.dir << ")"
            << std::endl;
  int sig = 0;
  sigwait(&stop, &sig);
  (*server)->Stop();
  std::cout << "arena serve: stopped (" << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ")\n";
  return 0;
}

}  // namespace arena
