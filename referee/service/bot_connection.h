// BotConnection: one bot's Referee.Play stream, a reactor on gRPC's callback
// API. It reads the bot's messages (Hello, Decisions) and hands them to its
// host (the hub, through ConnectionHost), answers bad input with a Notice,
// and queues what is written to the bot (up to
// HubOptions::max_outbound_bytes), sending it one message at a time. A bot
// that floods invalid messages or does not read is cut off.
//
// Ownership and lifetime: created by the hub's gRPC service for each Play
// call and owned by the hub from then on; the hub deletes it once gRPC is
// done with it (OnDone) and no one holds a pin on it (HubRecord, kept by the
// hub under its own mutex). The host and the options outlive it.
//
// Thread safety: every public method may be called from any thread; the
// stream's own mutex only decides what to start, and the gRPC calls are
// made after it is released. Nothing calls the host with that mutex held.
// id() and bot_name() are set once, by the host's Register, before anyone
// else can find the stream by them.
#ifndef ARENA_REFEREE_SERVICE_BOT_CONNECTION_H_
#define ARENA_REFEREE_SERVICE_BOT_CONNECTION_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/v1/arena.grpc.pb.h"
#include "referee/match/out_message.h"
#include "referee/service/connection_host.h"
#include "referee/service/hub_options.h"

namespace arena {

class BotConnection
    : public grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> {
 public:
  enum class Queued { kOk, kClosed, kOverflow };

  // What the hub keeps on each stream: guarded by the hub's mutex, and
  // never read or written by the stream itself.
  struct HubRecord {
    int pins = 0;             // holders that keep it from being deleted
    bool done = false;        // gRPC is done with it (OnDone)
    std::string cut_reason;   // cut off (MarkCutOff): why
  };

  BotConnection(ConnectionHost* host, const HubOptions& options,
                grpc::CallbackServerContext* ctx);

  // Called once, right after construction, by the service.
  void Begin();

  uint64_t id() const { return id_; }
  void set_id(uint64_t id) { id_ = id; }
  const std::string& bot_name() const { return bot_name_; }
  void set_bot_name(const std::string& name) { bot_name_ = name; }
  const std::string& peer() const { return peer_; }
  // Who warnings are about: the bot, or the peer's address before Hello.
  std::string who() const;
  absl::Time created() const { return created_; }
  // For the hub only, under its mutex (see HubRecord).
  HubRecord& hub_record() { return hub_record_; }

  // Queues `msg`. The stream's mutex only decides what to start: the gRPC
  // calls are made after it is released (a write may be sent inline, a
  // syscall that also wakes the bot, and this stream's own reactions and
  // every other sender would wait for it). writing_, and starting_ for a
  // read, keep the stream from finishing until those calls are made.
  Queued Enqueue(OutMessage msg);
  // Queues `lead` and `msg` together (a MatchStart and the seat's first
  // request): with HubOptions::coalesce_writes they leave in one write.
  Queued Enqueue(OutMessage msg, std::optional<OutMessage> lead);

  // Starts the put-off read if it has waited `wait` (from the hub's reaper:
  // what a bot that owes nothing sends anyway is read within about that).
  // The caller holds the hub's mutex.
  void StartDueRead(absl::Time now, absl::Duration wait);

  // An open decision is now owed on this stream (Ask: before its request is
  // queued), or no longer (Unask: answered, legally or not, withdrawn, or
  // moved to another stream; for an answer, before it reaches its match and
  // so before the match can ask again). Kept by the links as their open
  // decisions change streams.
  // (Atomic, not under mu_: an Ask comes before its request's Enqueue, so
  // OnReadDone, which looks at it under mu_, sees it whenever that Enqueue
  // could miss the read it puts off.)
  void Ask() { asked_.fetch_add(1); }
  void Unask() {
    asked_.fetch_sub(1);  // may go below 0 for a moment, when it overtakes its Ask
  }

  // Marks the stream closing, to end with `status`: nothing more is queued
  // on it, and a later Shutdown (the bot's own hang-up racing with this)
  // ends it with this status, not its own.
  void MarkClosing(const grpc::Status& status);

  // Ends the stream with `status` (or the one it was first closed with:
  // the first reason given is the one the bot is told): at once if no write
  // is in flight, else once it is out (what is queued behind it is dropped,
  // but for a normal end); a peer that does not read within a second is
  // cancelled by the hub. Never calls back into the hub but for that. The
  // caller holds a pin or runs in a reaction of this stream.
  void Shutdown(const grpc::Status& given);

  // Cancels the call if it has not finished (a write that never completes).
  void CancelIfUnfinished();

  // Ends the stream and tells the hub the bot is gone (from a reaction).
  void Close(const grpc::Status& status);

  // Tells the bot its message was not taken. With `counts` (anything but
  // a repeat of an answer to a decision it was asked: see
  // HubMatchLink::OnDecision) it counts against the flood limit.
  void SendNotice(v1::NoticeKind kind, const std::string& match_id,
                  uint64_t decision_id, const std::string& message,
                  bool counts = true);

  std::string QueueFullReason() const;

  // Cuts the bot off (a flood of invalid messages, or an outbound queue it
  // does not read): logged whatever the bot's log budget, counted before
  // the stream ends (the bot, and a test, may look as soon as it sees the
  // end), and the stream ends; its open decisions fail as CUT_OFF with
  // `reason` (BotHub::MarkCutOff, Unregister).
  void CutOff(const std::string& reason);

  // gRPC's reactions.
  void OnReadDone(bool ok) override;
  void OnCancel() override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

 private:
  // Starts the write of `msg` (at the front of out_), telling whoever waits
  // for it to leave; `more_queued`: others wait behind it.
  void Write(OutMessage* msg, bool more_queued);

  // A read started outside mu_ (Enqueue) has been started: the stream may
  // finish now if it was due to meanwhile.
  void ReadStarted();

  // Marks the stream closing; the first status given is the one it ends
  // with (MarkClosing, Shutdown).
  void CloseWith(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Whether the closing stream may call Finish now (it is then marked
  // finished): not while a write is out or a read is being started outside
  // mu_, which finish it when they are done (OnWriteDone, ReadStarted).
  bool FinishNow() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Handles the message read; true if it was an answer that closed an open
  // decision of this stream.
  bool Handle();

  ConnectionHost* const hub_;
  const HubOptions& options_;  // the hub's
  grpc::CallbackServerContext* const ctx_;
  const std::string peer_;
  const absl::Time created_;
  uint64_t id_ = 0;       // set once, by Register under the hub's mutex
  std::string bot_name_;  // likewise
  v1::BotMessage in_;
  absl::Mutex mu_;
  std::deque<std::pair<OutMessage, size_t>> out_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  bool status_set_ ABSL_GUARDED_BY(mu_) = false;  // by Shutdown or MarkClosing
  // Open decisions on this stream (the links' pending decisions whose
  // stream this is), and whether the next read waits for the next write
  // (OnReadDone).
  std::atomic<int> asked_{0};
  bool read_due_ ABSL_GUARDED_BY(mu_) = false;
  // Reads being started outside mu_ (Enqueue), and a finish put off until
  // they are (ReadStarted).
  int starting_ ABSL_GUARDED_BY(mu_) = 0;
  bool finish_due_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time due_since_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;  // OnCancel has run
  // It sent an unknown token: no more reads; the hub refuses it later.
  bool refused_ ABSL_GUARDED_BY(mu_) = false;
  // Held around TryCancel and set in OnDone: no cancel after gRPC is done.
  // Recursive: a cancel may run reactions inline on the calling thread.
  std::recursive_mutex cancel_mu_;
  bool done_called_ = false;
  // Guarded by the hub's mutex.
  HubRecord hub_record_;
};

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_BOT_CONNECTION_H_
