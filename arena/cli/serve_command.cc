#include "arena/cli/serve_command.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "arena/cli/command.h"
#include "arena/cli/ladder_serve.h"

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
  // A ladder's folder: its page (no rating history: that is the ladder
  // process's, `arena ladder run --serve`), else the records folder's site.
  LadderServeOptions lo;
  lo.live = options.live;
  std::unique_ptr<LadderServer> ladder;
  std::unique_ptr<LiveSite> site;
  if (IsLadderDir(options.dir)) {
    ladder = std::make_unique<LadderServer>(options.dir, lo, /*history=*/false);
  } else {
    site = std::make_unique<LiveSite>(options.dir, options.live);
  }
  auto server = ladder ? LiveServer::Start(&ladder->site(), options.serve)
                       : LiveServer::Start(site.get(), options.serve);
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
