// OutMessage: a RefereeMessage that lives on a protobuf Arena of its own.
//
// A decision request is built once per decision and then queued on a bot's
// stream until gRPC has written it. Built on the heap, its dozens of small
// submessages (the view, each event, each legal action) cost a malloc and a
// free each, which was half the cost of building a view; on an arena they
// cost a pointer bump, and the whole message is freed at once. The message
// moves with the arena, so queuing it copies nothing.
//
// A message may name who is told when it leaves (OnLeave: the stream hands
// it to gRPC to be written), so that a decision's clock starts when its
// request actually goes out, not when it was queued behind other writes.
//
// Thread safety: like any message; one owner at a time.
#ifndef ARENA_REFEREE_MATCH_OUT_MESSAGE_H_
#define ARENA_REFEREE_MATCH_OUT_MESSAGE_H_

#include <cstdint>
#include <memory>

#include "absl/time/time.h"

#include "arena/v1/arena.pb.h"
#include "google/protobuf/arena.h"

namespace arena {

// Told when a message leaves (OutMessage::Left). Called on the writing
// thread with no lock of the stream held; must not block.
class LeaveObserver {
 public:
  // `at` is a MonoNow() time (referee/clock/mono_clock.h).
  virtual void OnLeft(uint64_t tag, absl::Time at) = 0;

 protected:
  ~LeaveObserver() = default;
};

class OutMessage {
 public:
  OutMessage() : arena_(std::make_unique<google::protobuf::Arena>(Options())) {
    msg_ = google::protobuf::Arena::CreateMessage<v1::RefereeMessage>(arena_.get());
  }
  explicit OutMessage(const v1::RefereeMessage& m) : OutMessage() { msg_->CopyFrom(m); }
  OutMessage(OutMessage&&) = default;
  OutMessage& operator=(OutMessage&&) = default;

  v1::RefereeMessage* get() const { return msg_; }
  v1::RefereeMessage* operator->() const { return msg_; }
  const v1::RefereeMessage& operator*() const { return *msg_; }

  // `observer` is told (with `tag`) when the message leaves, if it is still
  // alive then.
  void OnLeave(std::weak_ptr<LeaveObserver> observer, uint64_t tag) {
    observer_ = std::move(observer);
    tag_ = tag;
  }
  // Called by the stream as it hands the message to gRPC.
  void Left(absl::Time at) const {
    if (observer_.expired()) return;
    if (std::shared_ptr<LeaveObserver> o = observer_.lock()) o->OnLeft(tag_, at);
  }

 private:
  static google::protobuf::ArenaOptions Options() {
    google::protobuf::ArenaOptions o;
    o.start_block_size = 2048;  // one block holds a typical request
    o.max_block_size = 65536;
    return o;
  }
  std::unique_ptr<google::protobuf::Arena> arena_;
  v1::RefereeMessage* msg_ = nullptr;
  std::weak_ptr<LeaveObserver> observer_;
  uint64_t tag_ = 0;
};

}  // namespace arena

#endif  // ARENA_REFEREE_MATCH_OUT_MESSAGE_H_
