// The live site of `arena ladder run DIR --serve ADDR` (arena/live/ladder_site.h),
// hooked to the ladder's state so that it plots each version's rating after
// every rated match, those rated again on a restart included.
//
// Thread safety: ServeLadder before the ladder rates anything; the site is
// fed from the ladder's thread and served from its own until the returned
// object is destroyed (which stops it, after a last poll).
#ifndef ARENA_ARENA_CLI_LADDER_SERVE_H_
#define ARENA_ARENA_CLI_LADDER_SERVE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "arena/cli/ladder_state.h"
#include "arena/live/http_server.h"
#include "arena/live/ladder_site.h"

namespace arena {

struct LadderServeOptions {
  ServeOptions serve;  // address "": no site
  LiveOptions live;    // spectator_delay, show_notes: as `arena serve`'s
};

class LadderServer {
 public:
  // `history`: the ladder feeds the site's Rated() (else no plots).
  LadderServer(const std::string& dir, const LadderServeOptions& options, bool history);
  ~LadderServer();
  LadderSite& site() { return site_; }
  std::unique_ptr<LiveServer>& server() { return server_; }

 private:
  LadderSite site_;
  std::unique_ptr<LiveServer> server_;
};

// Starts the site of ladder DIR at options.serve.address and feeds it from
// `state` (which must outlive it); nullptr if no address is given. Prints
// "arena ladder: http://ADDRESS/ (DIR)" once listening. Errors: the
// address does not parse or cannot be bound.
absl::StatusOr<std::unique_ptr<LadderServer>> ServeLadder(const std::string& dir,
                                                           const LadderServeOptions& options,
                                                           LadderState* state);

// Whether DIR is a ladder's folder (`arena serve DIR` then serves its page,
// without the history: that is the ladder process's).
bool IsLadderDir(const std::string& dir);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_LADDER_SERVE_H_
