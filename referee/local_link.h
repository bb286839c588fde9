// An in-process SeatLink: the seats' bots are functions called at once, on
// the match's thread. For tests, simulations and benchmarks; the referee's
// network path is BotHub.
//
// A policy may return an index that is not legal (to test faults), or
// kNoAnswer to behave like a bot that never answers (the runner then sees a
// timeout at once, without waiting).
#ifndef ARENA_REFEREE_LOCAL_LINK_H_
#define ARENA_REFEREE_LOCAL_LINK_H_

#include <functional>
#include <map>
#include <vector>

#include "referee/match_runner.h"

namespace arena {

class LocalSeatLink : public SeatLink {
 public:
  static constexpr int kNoAnswer = -1000000;
  using Policy = std::function<int(int seat, const v1::MatchStart& start,
                                   const v1::DecisionRequest& request)>;
  // Sees every message sent to a seat (MatchStart, DecisionRequest, MatchEnd).
  using Tap = std::function<void(int seat, const google::protobuf::Message& m)>;

  explicit LocalSeatLink(Policy policy, Tap tap = nullptr)
      : policy_(std::move(policy)), tap_(std::move(tap)) {}

  void Start(int seat, const v1::MatchStart& start) override {
    if (tap_) tap_(seat, start);
    if (static_cast<int>(starts_.size()) <= seat) starts_.resize(seat + 1);
    starts_[seat] = start;
  }
  void Send(int seat, OutMessage message, int) override {
    const v1::DecisionRequest& request = message->decision_request();
    if (tap_) tap_(seat, request);
    answers_[request.decision_id()] = policy_(seat, starts_[seat], request);
  }
  SeatReply Await(int, uint64_t decision_id, absl::Time) override {
    SeatReply r;
    const int a = answers_[decision_id];
    answers_.erase(decision_id);
    if (a == kNoAnswer) {
      r.fault = v1::FAULT_KIND_TIMEOUT;
      r.detail = "no answer (local policy)";
      return r;
    }
    r.ok = true;
    r.action = a;
    return r;
  }
  void End(int seat, const v1::MatchEnd& end) override {
    if (tap_) tap_(seat, end);
  }

 private:
  Policy policy_;
  Tap tap_;
  std::vector<v1::MatchStart> starts_;
  std::map<uint64_t, int> answers_;
};

}  // namespace arena

#endif  // ARENA_REFEREE_LOCAL_LINK_H_
