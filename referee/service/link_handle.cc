#include "referee/service/link_handle.h"

#include <utility>

namespace arena {

LinkHandle::LinkHandle(std::shared_ptr<HubMatchLink> link,
                       std::function<void()> on_close)
    : link_(std::move(link)), on_close_(std::move(on_close)) {}

LinkHandle::~LinkHandle() { on_close_(); }

void LinkHandle::set_listener(std::weak_ptr<Listener> listener) {
  link_->set_listener(std::move(listener));
}

void LinkHandle::Start(int seat, const v1::MatchStart& start) {
  link_->Start(seat, start);
}

void LinkHandle::StartBeforeRequest(int seat, const v1::MatchStart& start) {
  link_->StartBeforeRequest(seat, start);
}

bool LinkHandle::ReportsLeaving() const { return link_->ReportsLeaving(); }

void LinkHandle::Send(int seat, OutMessage message, int num_legal) {
  link_->Send(seat, std::move(message), num_legal);
}

void LinkHandle::Withdraw(int seat, uint64_t decision_id) {
  link_->Withdraw(seat, decision_id);
}

void LinkHandle::End(int seat, const v1::MatchEnd& end) {
  link_->End(seat, end);
}

}  // namespace arena
