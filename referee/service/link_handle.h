// LinkHandle: what a match holds of its HubMatchLink (BotHub::NewMatchLink
// returns it). It forwards every SeatLink call to the shared link, and when
// the match lets go of it, it runs `on_close` (the hub forgets the link).
//
// Ownership and lifetime: owned by the match; shares the link with the hub.
// `on_close` must stay valid until it is destroyed.
//
// Thread safety: as the link's (any thread).
#ifndef ARENA_REFEREE_SERVICE_LINK_HANDLE_H_
#define ARENA_REFEREE_SERVICE_LINK_HANDLE_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "arena/v1/arena.pb.h"
#include "referee/match/match_runner.h"
#include "referee/service/match_link.h"

namespace arena {

class LinkHandle : public SeatLink {
 public:
  LinkHandle(std::shared_ptr<HubMatchLink> link, std::function<void()> on_close);
  ~LinkHandle() override;

  void set_listener(std::weak_ptr<Listener> listener) override;
  void Start(int seat, const v1::MatchStart& start) override;
  void StartBeforeRequest(int seat, const v1::MatchStart& start) override;
  bool ReportsLeaving() const override;
  void Send(int seat, OutMessage message, int num_legal) override;
  void Withdraw(int seat, uint64_t decision_id) override;
  void End(int seat, const v1::MatchEnd& end) override;

 private:
  std::shared_ptr<HubMatchLink> link_;
  std::function<void()> on_close_;
};

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_LINK_HANDLE_H_
