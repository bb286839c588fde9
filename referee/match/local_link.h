// An in-process SeatLink: the seats' bots are functions called at once,
// from inside Send, on the thread that drives the match (the answer is
// delivered before Send returns). For tests, simulations and benchmarks;
// the referee's network path is BotHub.
//
// A policy may return an index that is not legal (to test faults), or
// kNoAnswer to behave like a bot that never answers (the runner then sees a
// timeout at once, without waiting).
//
// Ownership and lifetime: one link per match; it keeps a copy of each
// seat's MatchStart for its policy, and must outlive the match.
//
// Thread safety: none of its own; the match never calls it from two threads
// at once. The policy and the tap run on the caller's thread.
#ifndef ARENA_REFEREE_MATCH_LOCAL_LINK_H_
#define ARENA_REFEREE_MATCH_LOCAL_LINK_H_

#include <functional>
#include <string>
#include <vector>

#include "referee/match/match_runner.h"
#include "referee/records/bot_note.h"

namespace arena {

class LocalSeatLink : public SeatLink {
 public:
  static constexpr int kNoAnswer = -1000000;
  using Policy = std::function<int(int seat, const v1::MatchStart& start,
                                   const v1::DecisionRequest& request)>;
  // Sees every message sent to a seat (MatchStart, DecisionRequest, MatchEnd).
  using Tap = std::function<void(int seat, const google::protobuf::Message& m)>;
  // The bot's note on its answer to a request (Decision.note), kept as the
  // referee keeps a bot's (BoundNote).
  using Noter = std::function<std::string(int seat, const v1::DecisionRequest& request)>;

  explicit LocalSeatLink(Policy policy, Tap tap = nullptr, Noter noter = nullptr)
      : policy_(std::move(policy)), tap_(std::move(tap)), noter_(std::move(noter)) {}

  void Start(int seat, const v1::MatchStart& start) override {
    if (tap_) tap_(seat, start);
    if (static_cast<int>(starts_.size()) <= seat) starts_.resize(seat + 1);
    starts_[seat] = start;
  }
  void Send(int seat, OutMessage message, int) override {
    const v1::DecisionRequest& request = message->decision_request();
    if (tap_) tap_(seat, request);
    const int a = policy_(seat, starts_[seat], request);
    SeatReply r;
    if (a == kNoAnswer) {
      r.fault = v1::FAULT_KIND_TIMEOUT;
      r.detail = "no answer (local policy)";
    } else {
      r.ok = true;
      r.action = a;
      if (noter_) {
        BoundedNote note = BoundNote(noter_(seat, request));
        r.note = std::move(note.text);
        r.note_cut_bytes = note.cut_bytes;
      }
    }
    Deliver(seat, request.decision_id(), std::move(r));
  }
  void End(int seat, const v1::MatchEnd& end) override {
    if (tap_) tap_(seat, end);
  }

 private:
  Policy policy_;
  Tap tap_;
  Noter noter_;
  std::vector<v1::MatchStart> starts_;
};

}  // namespace arena

#endif  // ARENA_REFEREE_MATCH_LOCAL_LINK_H_
