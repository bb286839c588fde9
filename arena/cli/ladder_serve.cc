#include "arena/cli/ladder_serve.h"

#include <filesystem>
#include <iostream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/tournament/ladder_field.h"

namespace arena {
namespace {

LadderSiteOptions SiteOptions(const LadderServeOptions& options, bool history) {
  LadderSiteOptions o;
  o.live = options.live;
  o.history = history;
  // A segment's own standings are not on the ladder's page: rebuilt only
  // at the end, not while its records land.
  o.live.rebuild = absl::InfiniteDuration();
  o.live.quiet = absl::InfiniteDuration();
  o.placement_matches = LadderFieldOptions{}.placement_matches;
  return o;
}

}  // namespace

LadderServer::LadderServer(const std::string& dir, const LadderServeOptions& options,
                           bool history)
    : site_(dir, SiteOptions(options, history)) {}

LadderServer::~LadderServer() {
  if (server_) server_->Stop();
}

absl::StatusOr<std::unique_ptr<LadderServer>> ServeLadder(const std::string& dir,
                                                           const LadderServeOptions& options,
                                                           LadderState* state) {
  if (options.serve.address.empty()) return nullptr;
  auto out = std::make_unique<LadderServer>(dir, options, /*history=*/true);
  LadderSite* site = &out->site();
  state->set_on_rated([site, state](const std::vector<int>& seating) {
    std::vector<LadderRatedSeat> seats;
    for (int v : seating) {
      const auto& r = state->field().versions()[v].rating;
      seats.push_back(LadderRatedSeat{state->versions()[v].bot, r.mu, r.sigma});
    }
    site->Rated(state->matches(), seats);
  });
  auto server = LiveServer::Start(site, options.serve);
  if (!server.ok()) return server.status();
  out->server() = *std::move(server);
  std::cout << "arena ladder: http://" << out->server()->address() << "/ (" << dir << ")"
            << std::endl;
  return out;
}

bool IsLadderDir(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(absl::StrCat(dir, "/submissions"), ec) &&
         std::filesystem::is_directory(absl::StrCat(dir, "/segments"), ec);
}

}  // namespace arena
