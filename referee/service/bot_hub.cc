#include "referee/service/bot_hub.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <tuple>

#include "absl/strings/escaping.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// `s` clipped to kMaxEchoedId bytes (at a UTF-8 character boundary), with the
// full length said when clipped.
std::string Clip(const std::string& s) {
  if (s.size() <= kMaxEchoedId) return s;
  size_t n = kMaxEchoedId;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return absl::StrCat(s.substr(0, n), "...(", s.size(), " bytes)");
}

std::string Digest(const std::string& token) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), d);
  return std::string(reinterpret_cast<const char*>(d), sizeof d);
}

// How a bot's stream ends when a newer one of the bot takes over.
grpc::Status ReplacedStatus(const std::string& bot) {
  return grpc::Status(grpc::StatusCode::ABORTED,
                      absl::StrCat("replaced by a newer stream of bot ", bot));
}

// The address part of a gRPC peer ("ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1").
std::string PeerHost(const std::string& peer) {
  if (peer.rfind("ipv4:", 0) == 0 || peer.rfind("ipv6:", 0) == 0) {
    const size_t colon = peer.rfind(':');
    if (colon > 5) return peer.substr(0, colon);
  }
  return peer;
}

}  // namespace

// One bot's stream: a reactor on gRPC's callback API. Writes are queued (up
// to HubOptions::max_outbound_bytes) and sent one at a time. The reactor is
// deleted once gRPC is done with it (OnDone) and no one holds a pin on it
// (pins_ and done_ are guarded by the hub's mutex).
class BotConnection
    : public grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> {
 public:
  enum class Queued { kOk, kClosed, kOverflow };

  BotConnection(BotHub* hub, grpc::CallbackServerContext* ctx)
      : hub_(hub), ctx_(ctx), peer_(ctx->peer()), created_(absl::Now()) {}

  // Called once, right after construction, by the service.
  void Begin() {
    if (!hub_->Add(this)) {
      {
        absl::MutexLock lock(&mu_);
        closing_ = finished_ = true;
      }
      // Add refuses only once the referee closes (or under a cap of 0,
      // which lets no stream in): never for a flood of others' streams.
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the referee is shutting down"));
      return;
    }
    StartRead(&in_);
  }

  uint64_t id() const { return id_; }
  void set_id(uint64_t id) { id_ = id; }
  const std::string& bot_name() const { return bot_name_; }
  void set_bot_name(const std::string& name) { bot_name_ = name; }
  const std::string& peer() const { return peer_; }
  // Who warnings are about: the bot, or the peer's address before Hello.
  std::string who() const {
    return bot_name_.empty() ? PeerHost(peer_) : absl::StrCat("bot ", bot_name_);
  }

  // Queues `msg`. The stream's mutex only decides what to start: the gRPC
  // calls are made after it is released (a write may be sent inline, a
  // syscall that also wakes the bot, and this stream's own reactions and
  // every other sender would wait for it). writing_, and starting_ for a
  // read, keep the stream from finishing until those calls are made.
  Queued Enqueue(OutMessage msg) {
    v1::RefereeMessage* write = nullptr;
    bool read = false;
    {
      absl::MutexLock lock(&mu_);
      if (closing_) return Queued::kClosed;
      const size_t bytes = msg->ByteSizeLong();
      if (queued_bytes_ + bytes > hub_->options_.max_outbound_bytes) {
        // The bot does not read: drop what is queued (but the write in
        // flight) and let the caller cut the stream.
        closing_ = true;
        while (out_.size() > (writing_ ? 1 : 0)) {
          queued_bytes_ -= out_.back().second;
          out_.pop_back();
        }
        return Queued::kOverflow;
      }
      queued_bytes_ += bytes;
      out_.emplace_back(std::move(msg), bytes);
      if (!writing_) {
        writing_ = true;  // this caller starts it; OnWriteDone the next ones
        write = out_.front().first.get();
      }
      if (read_due_) {
        // The read put off after the bot's last answer (see OnReadDone).
        read_due_ = false;
        read = true;
        ++starting_;
      }
    }
    if (write != nullptr) StartWrite(write);
    if (read) {
      StartRead(&in_);
      ReadStarted();
    }
    return Queued::kOk;
  }

  // Starts the put-off read if it has waited `wait` (from the hub's reaper:
  // what a bot that owes nothing sends anyway is read within about that).
  // The caller holds the hub's mutex.
  void StartDueRead(absl::Time now, absl::Duration wait) {
    absl::MutexLock lock(&mu_);
    if (!read_due_ || closing_ || now - due_since_ < wait) return;
    read_due_ = false;
    StartRead(&in_);
  }

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
  void MarkClosing(const grpc::Status& status) {
    absl::MutexLock lock(&mu_);
    CloseWith(status);
  }

  // Ends the stream with `status` (or the one it was first closed with:
  // the first reason given is the one the bot is told): at once if no write
  // is in flight, else once it is out (what is queued behind it is dropped,
  // but for a normal end); a peer that does not read within a second is
  // cancelled by the hub. Never calls back into the hub but for that. The
  // caller holds a pin or runs in a reaction of this stream.
  void Shutdown(const grpc::Status& given) {
    bool finish = false, drain = false;
    grpc::Status status;
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      CloseWith(given);
      status = status_;
      if (!writing_) {
        finish = FinishNow();
      } else if (!status.ok()) {
        while (out_.size() > 1) {
          queued_bytes_ -= out_.back().second;
          out_.pop_back();
        }
        drain = true;
      }
    }
    if (finish) Finish(status);
    if (drain) hub_->Drain(this);
  }

  // Cancels the call if it has not finished (a write that never completes).
  void CancelIfUnfinished() {
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
    }
    std::lock_guard<std::recursive_mutex> guard(cancel_mu_);
    if (!done_called_) ctx_->TryCancel();
  }

  // Ends the stream and tells the hub the bot is gone (from a reaction).
  void Close(const grpc::Status& status) {
    Shutdown(status);
    hub_->Unregister(this);
  }

  // Tells the bot its message was not taken. With `counts` (anything but
  // a repeat of an answer to a decision it was asked: see
  // HubMatchLink::OnDecision) it counts against the flood limit.
  void SendNotice(v1::NoticeKind kind, const std::string& match_id,
                  uint64_t decision_id, const std::string& message,
                  bool counts = true) {
    hub_->Warn(who(), absl::StrCat(who(), " (", peer_, "): ", message));
    if (counts && !hub_->NoteInvalid(bot_name_)) {
      CutOff(absl::StrCat("more than ", hub_->options_.invalid_per_second,
                          " invalid messages in one second"));
      return;
    }
    OutMessage msg;
    v1::Notice* n = msg->mutable_notice();
    n->set_kind(kind);
    n->set_match_id(Clip(match_id));
    n->set_decision_id(decision_id);
    n->set_message(message);
    if (Enqueue(std::move(msg)) == Queued::kOverflow) CutOff(QueueFullReason());
  }

  std::string QueueFullReason() const {
    return absl::StrCat("more than ", hub_->options_.max_outbound_bytes,
                        " bytes waiting to be sent (it does not read)");
  }

  // Cuts the bot off (a flood of invalid messages, or an outbound queue it
  // does not read): logged whatever the bot's log budget, counted before
  // the stream ends (the bot, and a test, may look as soon as it sees the
  // end), and the stream ends; its open decisions fail as CUT_OFF with
  // `reason` (BotHub::MarkCutOff, Unregister).
  void CutOff(const std::string& reason) {
    hub_->MarkCutOff(this, reason);
    Shutdown(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, reason));
    hub_->Unregister(this);
  }

  // After the bot's answer to the last decision it was asked, the next read
  // is put off until something is next written to it (HubOptions::
  // lazy_reads): gRPC 1.51 answers every message read while another read is
  // out with a WINDOW_UPDATE frame of its own, which, when the next request
  // goes to another bot, costs a write and wakes this bot's process for
  // nothing. Put off, the update leaves with the next request. A bot that
  // owes nothing has nothing to say; what it sends anyway (a late answer)
  // waits in gRPC's flow-control window, and a stream that breaks meanwhile
  // is seen by OnCancel.
  void OnReadDone(bool ok) override {
    if (!ok) {
      Close(grpc::Status::OK);
      return;
    }
    const bool answered = Handle();
    bool gone = false;
    {
      absl::MutexLock lock(&mu_);
      if (closing_) return;
      // Refused, waiting for its answer: no read, but a cancel already in
      // (OnCancel may have looked before refused_ was set) is seen.
      if (refused_) gone = cancelled_;
    }
    if (gone) {
      Close(grpc::Status::OK);
      return;
    }
    {
      absl::MutexLock lock(&mu_);
      if (closing_ || refused_) return;
      // (Not once cancelled: OnCancel may have looked before this.)
      if (answered && asked_.load() == 0 && hub_->options_.lazy_reads &&
          !cancelled_) {
        read_due_ = true;
        due_since_ = absl::Now();
        return;
      }
    }
    StartRead(&in_);
  }

  // The call was cancelled (the peer went away, or the hub cancelled it):
  // with no read out, nothing else would tell.
  void OnCancel() override {
    bool idle;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      // (A closing stream is already known.)
      idle = (read_due_ || refused_) && !closing_;
      read_due_ = false;
    }
    if (idle) Close(grpc::Status::OK);
  }

  void OnWriteDone(bool ok) override {
    bool finish_now = false;
    grpc::Status status;
    v1::RefereeMessage* next = nullptr;
    {
      absl::MutexLock lock(&mu_);
      queued_bytes_ -= out_.front().second;
      out_.pop_front();
      if (!ok) {
        closing_ = true;
        out_.clear();
        queued_bytes_ = 0;
      }
      if (!out_.empty()) {
        next = out_.front().first.get();  // writing_ stays true
      } else {
        writing_ = false;
        if (closing_) {
          finish_now = FinishNow();
          status = status_;
        }
      }
    }
    if (next != nullptr) StartWrite(next);
    if (!ok) hub_->Unregister(this);
    if (finish_now) Finish(status);
  }

  // A read started outside mu_ (Enqueue) has been started: the stream may
  // finish now if it was due to meanwhile.
  void ReadStarted() {
    bool finish = false;
    grpc::Status status;
    {
      absl::MutexLock lock(&mu_);
      --starting_;
      if (finish_due_) {
        finish = FinishNow();
        status = status_;
      }
    }
    if (finish) Finish(status);
  }

  // Marks the stream closing; the first status given is the one it ends
  // with (MarkClosing, Shutdown).
  void CloseWith(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    closing_ = true;
    if (status_set_) return;
    status_ = status;
    status_set_ = true;
  }

  // Whether the closing stream may call Finish now (it is then marked
  // finished): not while a write is out or a read is being started outside
  // mu_, which finish it when they are done (OnWriteDone, ReadStarted).
  bool FinishNow() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_ || writing_) return false;
    if (starting_ > 0) {
      finish_due_ = true;
      return false;
    }
    finish_due_ = false;
    finished_ = true;
    return true;
  }

  void OnDone() override {
    {
      std::lock_guard<std::recursive_mutex> guard(cancel_mu_);
      done_called_ = true;
    }
    hub_->Unregister(this);
    hub_->Retire(this);
  }

  absl::Time created() const { return created_; }

 private:
  friend class BotHub;

  // Handles the message read; true if it was an answer that closed an open
  // decision of this stream.
  bool Handle() {
    switch (in_.kind_case()) {
      case v1::BotMessage::kHello: {
        if (!bot_name_.empty()) {
          SendNotice(v1::NOTICE_KIND_MALFORMED, "", 0,
                     "Hello sent twice on one stream; ignored");
          return false;
        }
        absl::Status s = hub_->Register(this, in_.hello().token());
        if (!s.ok()) {
          // Unknown token: the hub's reaper refuses the stream when its
          // address's back-off is over; nothing more is read from it.
          absl::MutexLock lock(&mu_);
          refused_ = true;
          return false;
        }
        hub_->ResyncBot(bot_name_, id_);
        return false;
      }
      case v1::BotMessage::kDecision:
        if (bot_name_.empty()) {
          hub_->Warn(who(), absl::StrCat("connection from ", peer_,
                                         " sent a decision before Hello"));
          Close(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                             "the first message must be Hello with a token"));
          return false;
        }
        if (in_.decision().match_id().empty()) {
          SendNotice(v1::NOTICE_KIND_MALFORMED, "", in_.decision().decision_id(),
                     "Decision without a match_id; ignored");
          return false;
        }
        return hub_->OnDecision(this, in_.decision());
      default:
        if (bot_name_.empty()) {
          Close(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                             "the first message must be Hello with a token"));
          return false;
        }
        SendNotice(v1::NOTICE_KIND_MALFORMED, "", 0,
                   "message with no known content; ignored");
        return false;
    }
  }

  BotHub* const hub_;
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
  int pins_ = 0;
  bool done_ = false;
  std::string cut_reason_;  // cut off (MarkCutOff): why
};

class BotHub::Service : public v1::Referee::CallbackService {
 public:
  explicit Service(BotHub* hub) : hub_(hub) {}
  grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage>* Play(
      grpc::CallbackServerContext* ctx) override {
    auto* conn = new BotConnection(hub_, ctx);
    conn->Begin();
    return conn;
  }

 private:
  BotHub* hub_;
};

// The link of one match: its open decisions, by decision id, and what a
// resync needs of each seat (its latest request; the events come from the
// match, which reads them back from its record). Nothing here grows with the
// match. Answers and faults are handed to the match (Deliver) outside mu_.
class HubMatchLink : public SeatLink {
 public:
  HubMatchLink(BotHub* hub, std::string match_id,
               std::vector<std::string> seat_bots)
      : hub_(hub),
        match_id_(std::move(match_id)),
        seat_bots_(std::move(seat_bots)),
        seat_conn_(seat_bots_.size(), 0),
        started_(seat_bots_.size(), false),
        last_request_(seat_bots_.size()),
        last_decision_(seat_bots_.size(), 0),
        issued_(seat_bots_.size()) {}

  bool Has(const std::string& bot) const {
    for (const auto& b : seat_bots_) {
      if (b == bot) return true;
    }
    return false;
  }

  void Start(int seat, const v1::MatchStart& start) override {
    const uint64_t cid = hub_->CurrentConnection(seat_bots_[seat]);
    {
      absl::MutexLock lock(&mu_);
      start_ = start;  // the same for every seat but `seat`
      started_[seat] = true;
      if (cid == 0) return;  // a resync brings it on reconnect
      seat_conn_[seat] = cid;
    }
    OutMessage msg;
    *msg->mutable_match_start() = start;
    hub_->SendOn(cid, std::move(msg));
  }

  void Send(int seat, OutMessage msg, int num_legal) override {
    const v1::DecisionRequest& request = msg->decision_request();
    const uint64_t decision_id = request.decision_id();
    const std::string& bot = seat_bots_[seat];
    const uint64_t cid = hub_->CurrentConnection(bot);
    const BotHub::Absence away =
        cid == 0 ? hub_->AbsenceOf(bot) : BotHub::Absence();
    bool need_start = false;
    OutMessage start;
    {
      absl::MutexLock lock(&mu_);
      last_request_[seat] = request.SerializeAsString();
      last_decision_[seat] = decision_id;
      issued_[seat].push_back(decision_id);
      if (issued_[seat].size() > kIssuedKept) issued_[seat].pop_front();
      Pending& p = pending_[decision_id];
      p.seat = seat;
      p.conn = cid;
      p.num_legal = num_legal;
      p.sent = absl::Now();
      if (cid == 0) {
        if (!away.grace) pending_.erase(decision_id);
      } else {
        need_start = seat_conn_[seat] != cid;
        seat_conn_[seat] = cid;
        if (need_start) StartFor(seat, start.get());
      }
    }
    if (cid == 0) {
      if (away.grace) {
        RecheckKept(seat, decision_id);  // sent with the resync
      } else if (away.down) {
        Fail(seat, decision_id, away.kind, away.detail, absl::ZeroDuration());
      } else {
        Fail(seat, decision_id, v1::FAULT_KIND_UNAVAILABLE,
             absl::StrCat("bot ", bot, " is not connected"), absl::ZeroDuration());
      }
      return;
    }
    // A bot that reconnected mid-match is told about the match first.
    if (need_start) hub_->SendOn(cid, std::move(start));
    if (hub_->SendOn(cid, std::move(msg), /*ask=*/true)) return;
    // The stream closed under us: a newer stream, the grace, or a fault.
    const uint64_t now_cid = hub_->CurrentConnection(bot);
    // Still the bot's stream: it is closing, and the hub has not yet been
    // told (a stream marks itself closing before it unregisters). The
    // decision stays on it: the unregistering that follows keeps it for the
    // grace (a resync moves it to the bot's next stream) or fails it
    // (OnBotGone), as for a decision sent just before the stream closed.
    if (now_cid == cid) return;
    const BotHub::Absence now_away =
        now_cid == 0 ? hub_->AbsenceOf(bot) : BotHub::Absence();
    const bool grace = now_away.grace;
    OutMessage again;
    absl::Duration waited;
    {
      absl::MutexLock lock(&mu_);
      auto it = pending_.find(decision_id);
      if (it == pending_.end() || it->second.conn != cid) return;
      Pending& p = it->second;
      if (now_cid != 0) {
        p.conn = now_cid;
        again->mutable_decision_request()->ParseFromString(last_request_[seat]);
      } else if (grace) {
        p.conn = 0;
      } else {
        waited = absl::Now() - p.sent;
        pending_.erase(it);
      }
    }
    hub_->Unask(cid);
    if (now_cid != 0) {
      hub_->SendOn(now_cid, std::move(again), /*ask=*/true);
      return;
    }
    if (grace) {
      RecheckKept(seat, decision_id);
      return;
    }
    if (now_away.down) {
      Fail(seat, decision_id, now_away.kind, now_away.detail, waited);
      return;
    }
    Fail(seat, decision_id, v1::FAULT_KIND_DISCONNECTED,
         absl::StrCat("stream to bot ", bot, " is closed"), waited);
  }

  // A decision just kept for the bot's return (its stream 0): if meanwhile
  // the bot was marked down or its grace ended, the hub may already have
  // failed the bot's kept decisions (SetBotDown, the reaper) without this
  // one, which then fails here rather than on its deadline. (The hub marks
  // the bot before it fails what is kept, so one of the two sees it.)
  void RecheckKept(int seat, uint64_t decision_id) {
    const std::string& bot = seat_bots_[seat];
    if (hub_->CurrentConnection(bot) != 0) return;  // back: the resync takes it
    const BotHub::Absence away = hub_->AbsenceOf(bot);
    if (away.grace) return;
    absl::Duration waited;
    {
      absl::MutexLock lock(&mu_);
      auto it = pending_.find(decision_id);
      if (it == pending_.end() || it->second.conn != 0) return;
      waited = absl::Now() - it->second.sent;
      pending_.erase(it);
    }
    if (away.down) {
      Fail(seat, decision_id, away.kind, away.detail, waited);
    } else {
      Fail(seat, decision_id, v1::FAULT_KIND_DISCONNECTED,
           hub_->GoneDetail(bot), waited);
    }
  }

  void Withdraw(int seat, uint64_t decision_id) override {
    uint64_t conn = 0;
    {
      absl::MutexLock lock(&mu_);
      auto it = pending_.find(decision_id);
      if (it == pending_.end()) return;
      conn = it->second.conn;
      pending_.erase(it);  // from now on, an answer to it is stale
    }
    if (conn != 0) hub_->Unask(conn);
  }

  void End(int seat, const v1::MatchEnd& end) override {
    const uint64_t cid = hub_->CurrentConnection(seat_bots_[seat]);
    std::vector<uint64_t> unasked;
    {
      absl::MutexLock lock(&mu_);
      ended_ = true;
      for (auto it = pending_.begin(); it != pending_.end();) {
        if (it->second.seat != seat) {
          ++it;
          continue;
        }
        if (it->second.conn != 0) unasked.push_back(it->second.conn);
        it = pending_.erase(it);
      }
      last_request_[seat].clear();
      last_request_[seat].shrink_to_fit();
    }
    for (uint64_t c : unasked) hub_->Unask(c);
    if (cid == 0) return;
    OutMessage msg;
    *msg->mutable_match_end() = end;
    hub_->SendOn(cid, std::move(msg));
  }

  // True if `d` closed an open decision of `conn` (answered it, legally or
  // not).
  bool OnDecision(BotConnection* conn, const v1::Decision& d) {
    const std::string& bot = conn->bot_name();
    v1::NoticeKind kind = v1::NOTICE_KIND_UNSPECIFIED;
    std::string why;
    int seat = -1;
    SeatReply reply;
    // A decision id this bot was asked lately: a second answer to it, or a
    // late one, is harmless and does not count against the flood limit.
    bool asked = false;
    {
      absl::MutexLock lock(&mu_);
      for (size_t s = 0; s < seat_bots_.size() && !asked; ++s) {
        if (seat_bots_[s] != bot) continue;
        for (uint64_t id : issued_[s]) asked = asked || id == d.decision_id();
      }
      auto it = pending_.find(d.decision_id());
      if (ended_) {
        kind = v1::NOTICE_KIND_UNKNOWN_MATCH;
        why = absl::StrCat("match ", match_id_, " has ended");
      } else if (!Has(bot)) {
        kind = v1::NOTICE_KIND_FOREIGN;
        why = absl::StrCat("match ", match_id_, ": bot ", bot,
                           " holds no seat in this match");
      } else if (it == pending_.end() || seat_bots_[it->second.seat] != bot ||
                 it->second.conn != conn->id()) {
        kind = v1::NOTICE_KIND_STALE;
      } else {
        const Pending& p = it->second;
        seat = p.seat;
        reply.think_us = absl::ToInt64Microseconds(absl::Now() - p.sent);
        if (d.action_index() < 0 || d.action_index() >= p.num_legal) {
          kind = v1::NOTICE_KIND_ILLEGAL;
          why = absl::StrCat("match ", match_id_, ": decision ", d.decision_id(),
                             ": action index ", d.action_index(),
                             " is not in [0, ", p.num_legal, ")");
          reply.fault = v1::FAULT_KIND_ILLEGAL;
          reply.detail = absl::StrCat("action index ", d.action_index(),
                                      " is not in [0, ", p.num_legal, ")");
        } else {
          reply.ok = true;
          reply.action = d.action_index();
        }
        pending_.erase(it);
      }
    }
    if (seat >= 0) conn->Unask();  // before the match may ask it again
    // An answer the match no longer waits for (its deadline passed as it
    // came) is stale like any other.
    if (seat >= 0 && !Deliver(seat, d.decision_id(), std::move(reply)) &&
        kind == v1::NOTICE_KIND_UNSPECIFIED) {
      kind = v1::NOTICE_KIND_STALE;
    }
    if (kind == v1::NOTICE_KIND_STALE) {
      // One kind and one text whatever the reason, so that the notice says
      // nothing about another seat's decision.
      why = absl::StrCat("match ", match_id_, ": decision ", d.decision_id(),
                         " is not an open decision of this bot");
    }
    if (kind != v1::NOTICE_KIND_UNSPECIFIED) {
      // (Whether an id was asked of this bot is nothing it does not know.)
      const bool counts = !(asked && (kind == v1::NOTICE_KIND_STALE ||
                                      kind == v1::NOTICE_KIND_UNKNOWN_MATCH));
      conn->SendNotice(kind, d.match_id(), d.decision_id(), why, counts);
    }
    return seat >= 0;
  }

  // The bot is back on stream `cid`: for each seat it holds, its MatchStart,
  // its view and its open decisions.
  void Resync(const std::string& bot, uint64_t cid) {
    struct Seat {
      int seat;
      OutMessage msg;
    };
    std::vector<Seat> out;
    std::vector<std::pair<uint64_t, uint64_t>> moved;  // (from, to) stream
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      for (size_t s = 0; s < seat_bots_.size(); ++s) {
        if (seat_bots_[s] != bot || !started_[s]) continue;
        seat_conn_[s] = cid;
        Seat seat{static_cast<int>(s), OutMessage()};
        v1::Resync* r = seat.msg->mutable_resync();
        r->set_match_id(match_id_);
        r->set_seat(static_cast<int>(s));
        StartFor(static_cast<int>(s), r->mutable_match_start());
        // The view of the latest request (its events are replaced below by
        // every event sent so far).
        v1::DecisionRequest latest;
        latest.ParseFromString(last_request_[s]);
        *r->mutable_view() = latest.view();
        r->mutable_view()->clear_events();
        // A seat has at most one open decision: its latest request.
        for (auto& [id, p] : pending_) {
          if (p.seat != static_cast<int>(s)) continue;
          if (p.conn != cid) moved.emplace_back(p.conn, cid);
          p.conn = cid;
          if (id == last_decision_[s]) *r->add_open_decisions() = latest;
        }
        out.push_back(std::move(seat));
      }
    }
    for (const auto& [from, to] : moved) {
      if (from != 0) hub_->Unask(from);
      hub_->Ask(to);
    }
    std::shared_ptr<Listener> match = listener();
    for (auto& seat : out) {
      v1::View* view = seat.msg->mutable_resync()->mutable_view();
      absl::StatusOr<std::string> events =
          match == nullptr ? absl::StatusOr<std::string>(std::string())
                           : match->SentEvents(seat.seat);
      if (events.ok()) {
        v1::View all;
        all.ParseFromString(*events);
        view->mutable_events()->Swap(all.mutable_events());
      } else {
        spdlog::error("match {}: resync of seat {} without its events: {}",
                      match_id_, seat.seat, events.status().ToString());
      }
      hub_->SendOn(cid, std::move(seat.msg));
    }
  }

  // The bot's streams up to `last_conn` are gone for good: its open
  // decisions on them (or waiting for a resync) fail with `kind`, `detail`.
  void OnBotGone(const std::string& bot, uint64_t last_conn, v1::FaultKind kind,
                 const std::string& detail) {
    std::vector<std::tuple<int, uint64_t, absl::Duration>> failed;
    {
      absl::MutexLock lock(&mu_);
      const absl::Time now = absl::Now();
      for (auto it = pending_.begin(); it != pending_.end();) {
        const Pending& p = it->second;
        if (seat_bots_[p.seat] == bot && p.conn <= last_conn) {
          failed.emplace_back(p.seat, it->first, now - p.sent);
          it = pending_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (const auto& [seat, id, waited] : failed) {
      Fail(seat, id, kind, detail, waited);
    }
  }

 private:
  struct Pending {
    int seat = 0;
    uint64_t conn = 0;  // 0: waiting for the bot to come back
    int num_legal = 0;
    absl::Time sent;
  };

  // The seat's MatchStart.
  void StartFor(int seat, v1::RefereeMessage* msg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    StartFor(seat, msg->mutable_match_start());
  }
  void StartFor(int seat, v1::MatchStart* start) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    *start = start_;
    start->set_seat(seat);
  }

  // Hands a fault to the match (not under mu_).
  void Fail(int seat, uint64_t decision_id, v1::FaultKind kind,
            std::string detail, absl::Duration waited) {
    SeatReply r;
    r.fault = kind;
    r.detail = std::move(detail);
    r.think_us = absl::ToInt64Microseconds(waited);
    Deliver(seat, decision_id, std::move(r));
  }

  BotHub* const hub_;
  const std::string match_id_;
  const std::vector<std::string> seat_bots_;
  absl::Mutex mu_;
  std::map<uint64_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> seat_conn_ ABSL_GUARDED_BY(mu_);
  v1::MatchStart start_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> started_ ABSL_GUARDED_BY(mu_);
  // Per seat: its latest request (serialized) and its decision id.
  std::vector<std::string> last_request_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> last_decision_ ABSL_GUARDED_BY(mu_);
  // Per seat: the ids of its latest kIssuedKept requests (OnDecision: a
  // repeated or late answer to one of them is not counted as a flood).
  static constexpr size_t kIssuedKept = 32;
  std::vector<std::deque<uint64_t>> issued_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

namespace {

// What a match holds: forwards to the shared link and unregisters it.
class LinkHandle : public SeatLink {
 public:
  LinkHandle(std::shared_ptr<HubMatchLink> link, std::function<void()> on_close)
      : link_(std::move(link)), on_close_(std::move(on_close)) {}
  ~LinkHandle() override { on_close_(); }
  void set_listener(std::weak_ptr<Listener> listener) override {
    link_->set_listener(std::move(listener));
  }
  void Start(int seat, const v1::MatchStart& start) override {
    link_->Start(seat, start);
  }
  void Send(int seat, OutMessage message, int num_legal) override {
    link_->Send(seat, std::move(message), num_legal);
  }
  void Withdraw(int seat, uint64_t decision_id) override {
    link_->Withdraw(seat, decision_id);
  }
  void End(int seat, const v1::MatchEnd& end) override {
    link_->End(seat, end);
  }

 private:
  std::shared_ptr<HubMatchLink> link_;
  std::function<void()> on_close_;
};

}  // namespace

BotHub::BotHub(const std::vector<BotIdentity>& bots, const HubOptions& options)
    : options_(options), service_(std::make_unique<Service>(this)) {
  for (const auto& b : bots) token_digests_.emplace_back(Digest(b.token), b.name);
  reaper_ = std::thread([this] { ReaperLoop(); });
}

BotHub::~BotHub() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  reaper_.join();
  // The server is down: every stream is done; let go of those still held.
  std::vector<BotConnection*> held;
  {
    absl::MutexLock lock(&mu_);
    // Evictions not logged yet (EvictionLogLine waits 10 s between lines).
    evicted_logged_ = absl::InfinitePast();
    const std::string line = EvictionLogLine(absl::Now());
    if (!line.empty()) spdlog::warn("{}", line);
    for (auto& [who, b] : budgets_) {  // cut-offs not logged yet
      if (b.cut_unlogged > 0) {
        spdlog::error("{} cut off {} more times, the last: {}; its open decisions failed",
                      who, b.cut_unlogged, b.cut_reason);
      }
    }
    for (auto& [c, deadline] : draining_) held.push_back(c);
    draining_.clear();
  }
  for (auto* c : held) Unpin(c);
}

grpc::Service* BotHub::service() { return service_.get(); }

bool BotHub::Add(BotConnection* conn) {
  BotConnection* evicted = nullptr;
  bool refused = false;  // evicted while waiting for its unknown token's refusal
  std::string log_line;
  {
    absl::MutexLock lock(&mu_);
    if (closing_all_ || options_.max_unauthenticated <= 0) return false;
    if (static_cast<int>(unauthenticated_.size()) >= options_.max_unauthenticated) {
      // Full: make room rather than refuse the newcomer (who may be an
      // honest bot). The oldest by arrival of the streams waiting for their
      // unknown token's refusal, else of the silent ones; never the
      // newcomer, never a stream whose valid Hello was read (it is not in
      // unauthenticated_). At most max_unauthenticated entries, so a scan.
      auto victim = unauthenticated_.end();
      for (auto it = unauthenticated_.begin(); it != unauthenticated_.end(); ++it) {
        if (victim == unauthenticated_.end()) {
          victim = it;
          continue;
        }
        const bool waits = it->second.refuse_at != absl::InfiniteFuture();
        const bool victim_waits = victim->second.refuse_at != absl::InfiniteFuture();
        if (waits != victim_waits ? waits
                                  : it->second.arrival < victim->second.arrival) {
          victim = it;
        }
      }
      evicted = victim->first;
      refused = victim->second.refuse_at != absl::InfiniteFuture();
      ++evicted->pins_;  // it is not retired before its Shutdown below
      unauthenticated_.erase(victim);
      ++evicted_;
      ++evicted_unlogged_;
      if (refused) ++evicted_unlogged_refused_;
      log_line = EvictionLogLine(absl::Now());
    }
    unauthenticated_[conn] = HelloWait{conn->created(), ++next_arrival_};
  }
  if (evicted != nullptr) {
    // Not UNAUTHENTICATED or RESOURCE_EXHAUSTED for a silent one: bots take
    // those as final, and this may be an honest bot whose Hello was late.
    evicted->Shutdown(
        refused ? grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                               "unknown token (refused early: too many streams "
                               "without Hello)")
                : grpc::Status(grpc::StatusCode::UNAVAILABLE,
                               "too many streams without Hello; this one, the "
                               "oldest, was closed to make room: try again"));
    Unpin(evicted);
  }
  if (!log_line.empty()) spdlog::warn("{}", log_line);
  return true;
}

std::string BotHub::EvictionLogLine(absl::Time now) {
  if (evicted_unlogged_ == 0 || now - evicted_logged_ < absl::Seconds(10)) return "";
  std::string line = absl::StrCat(
      "streams without Hello: ", options_.max_unauthenticated,
      " at once, the cap; ", evicted_unlogged_,
      " evicted to make room for newer ones since the last such line (",
      evicted_unlogged_refused_, " waiting for an unknown token's refusal, ",
      evicted_unlogged_ - evicted_unlogged_refused_, " silent)");
  evicted_logged_ = now;
  evicted_unlogged_ = 0;
  evicted_unlogged_refused_ = 0;
  return line;
}

absl::Status BotHub::Register(BotConnection* conn, const std::string& token) {
  const std::string host = PeerHost(conn->peer());
  const std::string digest = Digest(token);
  // Every digest is compared, each in constant time.
  const std::string* found = nullptr;
  for (const auto& [d, name] : token_digests_) {
    if (CRYPTO_memcmp(d.data(), digest.data(), d.size()) == 0) found = &name;
  }
  BotConnection* old = nullptr;
  std::string log_line;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    if (found != nullptr && unauthenticated_.count(conn) == 0) {
      // Evicted for a newer stream (Add), or timed out, while its Hello was
      // being read: it is being closed, and is not registered.
      return absl::UnavailableError("stream closed before its Hello was read");
    }
    // A valid token is welcomed whatever its address's back-off (which
    // it leaves as it is: an honest bot does not reset a guesser's wait).
    if (found == nullptr) {
      PeerState& ps = peers_[host];
      // A quiet spell forgives: the back-off starts again from the first.
      if (now - ps.last_failure > 10 * options_.token_backoff_max) ps.failures = 0;
      ++ps.failures;
      ++ps.unlogged;
      absl::Duration wait = options_.token_backoff_first;
      for (int i = 1; i < ps.failures && wait < options_.token_backoff_max; ++i) wait *= 2;
      wait = std::min(wait, options_.token_backoff_max);
      ps.last_failure = now;
      // The answer waits; the stream keeps its place among the streams
      // without Hello meanwhile (max_unauthenticated, hello_timeout bound
      // it), so guesses are slowed without the hub holding more.
      auto u = unauthenticated_.find(conn);
      if (u != unauthenticated_.end()) {
        u->second.refuse_at =
            std::min(now + wait, u->second.created + options_.hello_timeout);
      }
      if (now - ps.last_log >= absl::Minutes(1)) {
        log_line = absl::StrCat("unknown token from ", host, " (", ps.unlogged,
                                " since the last such line); its unknown tokens are now "
                                "refused after ",
                                absl::FormatDuration(wait));
        ps.last_log = now;
        ps.unlogged = 0;
      }
    } else {
      BotState& b = bots_[*found];
      old = b.live;
      conn->set_id(++next_conn_id_);
      conn->set_bot_name(*found);
      b.live = conn;
      b.away = false;
      b.down = false;  // a new process (or the same one back): asked again
      b.down_detail.clear();
      b.last_conn = conn->id();
      by_id_[conn->id()] = conn;
      unauthenticated_.erase(conn);
      ++connect_count_[*found];
      if (old != nullptr) {
        // The old stream takes nothing more; its decisions move to the new
        // one in the resync. Marked before the new stream is welcomed: the
        // bot, once welcomed, may hang the old one up, and must still be
        // told why it ended.
        old->MarkClosing(ReplacedStatus(*found));
        by_id_.erase(old->id());
        ++old->pins_;
      }
      OutMessage msg;
      msg->mutable_welcome()->set_bot_name(*found);
      msg->mutable_welcome()->set_protocol_version(1);
      msg->mutable_welcome()->set_referee_version(ARENA_VERSION);
      conn->Enqueue(std::move(msg));
    }
  }
  if (found == nullptr) {
    if (!log_line.empty()) spdlog::warn("{}", log_line);
    return absl::UnauthenticatedError("unknown token");
  }
  Log(absl::StrCat("bot ", *found), spdlog::level::info,
      absl::StrCat("bot ", *found, " connected from ", conn->peer(),
                   old != nullptr ? ", replacing its previous stream" : ""));
  if (old != nullptr) {
    old->Shutdown(ReplacedStatus(*found));
    Unpin(old);
  }
  return absl::OkStatus();
}

void BotHub::ResyncBot(const std::string& bot, uint64_t conn_id) {
  std::vector<std::shared_ptr<HubMatchLink>> links;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, link] : links_) {
      if (link->Has(bot)) links.push_back(link);
    }
  }
  for (auto& link : links) link->Resync(bot, conn_id);
}

void BotHub::Unregister(BotConnection* conn) {
  if (options_.unregister_delay_for_test > absl::ZeroDuration() && conn->id() != 0) {
    absl::SleepFor(options_.unregister_delay_for_test);
  }
  bool gone = false;
  std::string cut;
  {
    absl::MutexLock lock(&mu_);
    unauthenticated_.erase(conn);
    if (conn->id() == 0 || by_id_.erase(conn->id()) == 0) return;
    BotState& b = bots_[conn->bot_name()];
    if (b.live != conn) return;
    b.live = nullptr;
    cut = conn->cut_reason_;
    if (!cut.empty()) {
      // Cut off: no grace; what it owes, and what it is asked until it
      // connects again, fails as its fault (the standings count CUT_OFF).
      b.down = true;
      b.down_kind = v1::FAULT_KIND_CUT_OFF;
      b.down_detail = cut;
    } else if (options_.reconnect_grace > absl::ZeroDuration() && !closing_all_) {
      b.away = true;
      b.away_since = absl::Now();
    } else {
      gone = true;
    }
  }
  if (!cut.empty()) {
    BotGone(conn->bot_name(), conn->id(), v1::FAULT_KIND_CUT_OFF, cut);
    return;
  }
  Log(absl::StrCat("bot ", conn->bot_name()), spdlog::level::info,
      gone ? absl::StrCat("bot ", conn->bot_name(), " disconnected")
           : absl::StrCat("bot ", conn->bot_name(),
                          " disconnected; its seats are kept for ",
                          absl::FormatDuration(options_.reconnect_grace)));
  if (gone) {
    BotGone(conn->bot_name(), conn->id(), v1::FAULT_KIND_DISCONNECTED,
            GoneDetail(conn->bot_name()));
  }
}

std::string BotHub::GoneDetail(const std::string& bot) const {
  return absl::StrCat("stream to bot ", bot, " ended",
                      options_.reconnect_grace > absl::ZeroDuration()
                          ? " and it did not come back within the grace"
                          : "");
}

void BotHub::BotGone(const std::string& bot, uint64_t last_conn,
                     v1::FaultKind kind, const std::string& detail) {
  std::vector<std::shared_ptr<HubMatchLink>> links;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, link] : links_) links.push_back(link);
  }
  for (auto& link : links) link->OnBotGone(bot, last_conn, kind, detail);
}

void BotHub::SetBotDown(const std::string& bot, v1::FaultKind kind,
                        const std::string& detail) {
  bool known = false;
  for (const auto& [digest, name] : token_digests_) known = known || name == bot;
  if (!known) {
    spdlog::error("SetBotDown: no bot is named {}", bot);
    return;
  }
  uint64_t last_conn = 0;
  {
    absl::MutexLock lock(&mu_);
    BotState& b = bots_[bot];
    // A live stream is taken to be a process that is still there (see the
    // header): it and its decisions are left alone.
    if (b.live != nullptr) {
      spdlog::info("bot {} reported down ({}), but it has a live stream; left to it",
                   bot, detail);
      return;
    }
    b.away = false;  // the grace ends: the reaper will not fail them again
    b.down = true;
    b.down_kind = kind;
    b.down_detail = detail;
    last_conn = b.last_conn;
  }
  spdlog::warn("bot {} is down: {}; its open decisions fail, and new ones until it "
               "connects again",
               bot, detail);
  // Marked before its kept decisions fail: a request kept meanwhile sees
  // the mark (HubMatchLink::RecheckKept).
  BotGone(bot, last_conn, kind, detail);
}

void BotHub::Drain(BotConnection* conn) {
  absl::MutexLock lock(&mu_);
  ++conn->pins_;
  draining_.emplace_back(conn, absl::Now() + absl::Seconds(1));
}

void BotHub::Retire(BotConnection* conn) {
  bool del;
  {
    absl::MutexLock lock(&mu_);
    conn->done_ = true;
    del = conn->pins_ == 0;
  }
  if (del) delete conn;
}

void BotHub::Unpin(BotConnection* conn) {
  bool del;
  {
    absl::MutexLock lock(&mu_);
    del = --conn->pins_ == 0 && conn->done_;
  }
  if (del) delete conn;
}

void BotHub::ReaperLoop() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    mu_.AwaitWithTimeout(absl::Condition(&stop_), absl::Milliseconds(100));
    if (stop_) break;
    const absl::Time now = absl::Now();
    std::vector<BotConnection*> silent, refused;
    for (auto& [c, u] : unauthenticated_) {
      if (now >= u.refuse_at) {
        ++c->pins_;
        refused.push_back(c);
      } else if (now - u.created >= options_.hello_timeout) {
        ++c->pins_;
        silent.push_back(c);
      }
    }
    for (auto* c : silent) unauthenticated_.erase(c);
    for (auto* c : refused) unauthenticated_.erase(c);
    if (options_.lazy_reads) {
      for (auto& [id, c] : by_id_) c->StartDueRead(now, options_.lazy_read_wait);
    }
    std::vector<BotConnection*> stuck;
    for (auto it = draining_.begin(); it != draining_.end();) {
      if (now >= it->second) {
        stuck.push_back(it->first);  // its pin passes to `stuck`
        it = draining_.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<std::pair<std::string, uint64_t>> gone;
    for (auto& [name, b] : bots_) {
      if (b.away && now - b.away_since >= options_.reconnect_grace) {
        b.away = false;
        gone.emplace_back(name, b.last_conn);
      }
    }
    std::vector<std::string> notes, cut_notes;
    for (auto& [who, b] : budgets_) {
      if (b.suppressed > 0 && now - b.window >= absl::Seconds(10)) {
        notes.push_back(absl::StrCat(who, ": ", b.suppressed,
                                     " more log lines suppressed"));
        b.suppressed = 0;
      }
      if (b.cut_unlogged > 0 && now - b.cut_window >= absl::Seconds(10)) {
        cut_notes.push_back(absl::StrCat(who, " cut off ", b.cut_unlogged,
                                         " more times in 10 s, the last: ", b.cut_reason,
                                         "; its open decisions failed"));
        b.cut_unlogged = 0;
      }
    }
    std::string eviction_line = EvictionLogLine(now);
    if (!eviction_line.empty()) notes.push_back(std::move(eviction_line));
    for (auto it = peers_.begin(); it != peers_.end();) {
      it = now - it->second.last_failure > absl::Minutes(2) &&
                   now - it->second.last_log > absl::Minutes(1)
               ? peers_.erase(it)
               : std::next(it);
    }
    if (silent.empty() && refused.empty() && gone.empty() && notes.empty() &&
        stuck.empty()) {
      continue;
    }
    mu_.Unlock();
    for (auto* c : stuck) {
      c->CancelIfUnfinished();
      Unpin(c);
    }
    for (auto* c : refused) {
      c->Shutdown(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "unknown token"));
      Unpin(c);
    }
    for (auto* c : silent) {
      c->Shutdown(grpc::Status(
          grpc::StatusCode::UNAUTHENTICATED,
          absl::StrCat("no Hello within ", absl::FormatDuration(options_.hello_timeout))));
      Unpin(c);
    }
    if (!silent.empty()) {
      Warn("streams without Hello",
           absl::StrCat("closed ", silent.size(), " stream(s) that sent no Hello within ",
                        absl::FormatDuration(options_.hello_timeout)));
    }
    for (const auto& n : notes) spdlog::warn("{}", n);
    for (const auto& n : cut_notes) spdlog::error("{}", n);
    for (const auto& [bot, last] : gone) {
      spdlog::warn("bot {} did not come back within {}; its open decisions fail",
                   bot, absl::FormatDuration(options_.reconnect_grace));
      BotGone(bot, last, v1::FAULT_KIND_DISCONNECTED, GoneDetail(bot));
    }
    mu_.Lock();
  }
}

void BotHub::Warn(const std::string& who, const std::string& text) {
  Log(who, spdlog::level::warn, text);
}

void BotHub::Log(const std::string& who, spdlog::level::level_enum level,
                 const std::string& text) {
  int suppressed = 0;
  bool log = false;
  {
    absl::MutexLock lock(&mu_);
    LogBudget& b = budgets_[who];
    const absl::Time now = absl::Now();
    if (now - b.window >= absl::Seconds(10)) {
      suppressed = b.suppressed;
      b.window = now;
      b.lines = 0;
      b.suppressed = 0;
    }
    if (b.lines < options_.log_lines_per_10s) {
      ++b.lines;
      log = true;
    } else {
      ++b.suppressed;
    }
  }
  if (suppressed > 0) {
    spdlog::warn("{}: {} more log lines suppressed", who, suppressed);
  }
  if (log) spdlog::log(level, "{}", text);
}

bool BotHub::NoteInvalid(const std::string& bot) {
  absl::MutexLock lock(&mu_);
  LogBudget& b = budgets_[absl::StrCat("bot ", bot)];
  const absl::Time now = absl::Now();
  if (now - b.invalid_window >= absl::Seconds(1)) {
    b.invalid_window = now;
    b.invalid = 0;
  }
  return ++b.invalid <= options_.invalid_per_second;
}

void BotHub::MarkCutOff(BotConnection* conn, const std::string& reason) {
  {
    absl::MutexLock lock(&mu_);
    if (!conn->cut_reason_.empty()) return;  // once (a flood may overflow too)
    conn->cut_reason_ = reason;
    ++cut_offs_[conn->bot_name()];
    // Not through Log: the bot's own warnings may have used that budget, and
    // this is the line that says why it lost its matches.
    LogBudget& lb = budgets_[conn->who()];
    const absl::Time now = absl::Now();
    if (now - lb.cut_window >= absl::Seconds(10)) {
      lb.cut_window = now;
      lb.cut_lines = 0;
    }
    if (lb.cut_lines >= kCutOffLinesPer10s) {
      ++lb.cut_unlogged;  // logged with the reason by the reaper
      lb.cut_reason = reason;
      return;
    }
    ++lb.cut_lines;
  }
  spdlog::error("{} ({}) cut off: {}; disconnected, its open decisions fail",
                conn->who(), conn->peer(), reason);
}

int BotHub::CutOffs(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  auto it = cut_offs_.find(bot);
  return it == cut_offs_.end() ? 0 : it->second;
}

int BotHub::Unauthenticated() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(unauthenticated_.size());
}

int BotHub::Evicted() const {
  absl::MutexLock lock(&mu_);
  return evicted_;
}

bool BotHub::OnDecision(BotConnection* conn, const v1::Decision& d) {
  std::shared_ptr<HubMatchLink> link;
  {
    absl::MutexLock lock(&mu_);
    auto it = links_.find(d.match_id());
    if (it != links_.end()) link = it->second;
  }
  if (link == nullptr) {
    conn->SendNotice(v1::NOTICE_KIND_UNKNOWN_MATCH, d.match_id(),
                     d.decision_id(),
                     absl::StrCat("no running match has id '", Clip(d.match_id()),
                                  "' (it has ended, or never started)"));
    return false;
  }
  return link->OnDecision(conn, d);
}

void BotHub::Ask(uint64_t conn_id) {
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(conn_id);
  if (it != by_id_.end()) it->second->Ask();
}

void BotHub::Unask(uint64_t conn_id) {
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(conn_id);
  if (it != by_id_.end()) it->second->Unask();
}

uint64_t BotHub::CurrentConnection(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot);
  return it == bots_.end() || it->second.live == nullptr ? 0 : it->second.live->id();
}

BotHub::Absence BotHub::AbsenceOf(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  Absence a;
  auto it = bots_.find(bot);
  if (it == bots_.end()) return a;
  a.grace = it->second.away;
  a.down = it->second.down;
  if (a.down) {
    a.kind = it->second.down_kind;
    a.detail = it->second.down_detail;
  }
  return a;
}

bool BotHub::SendOn(uint64_t conn_id, OutMessage msg, bool ask) {
  // The hub's lock only finds and pins the stream: the write itself (gRPC
  // may send it inline, a syscall that also wakes the bot) is made outside
  // it, so that other streams' answers and sends do not queue behind it.
  BotConnection* conn = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(conn_id);
    if (it == by_id_.end()) return false;
    conn = it->second;
    ++conn->pins_;
    if (ask) conn->Ask();  // before it can be answered
  }
  const BotConnection::Queued q = conn->Enqueue(std::move(msg));
  if (q == BotConnection::Queued::kOverflow) conn->CutOff(conn->QueueFullReason());
  Unpin(conn);
  return q == BotConnection::Queued::kOk;
}

bool BotHub::IsConnected(const std::string& bot) const {
  return CurrentConnection(bot) != 0;
}

int BotHub::Connections(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  auto it = connect_count_.find(bot);
  return it == connect_count_.end() ? 0 : it->second;
}

bool BotHub::WaitForBot(const std::string& bot, absl::Duration timeout) const {
  return WaitForBots({bot}, timeout);
}

bool BotHub::WaitForBots(const std::vector<std::string>& bots,
                         absl::Duration timeout) const {
  auto all_live = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    for (const auto& b : bots) {
      auto it = bots_.find(b);
      if (it == bots_.end() || it->second.live == nullptr) return false;
    }
    return true;
  };
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&all_live), timeout);
}

std::unique_ptr<SeatLink> BotHub::NewMatchLink(
    const std::string& match_id, const std::vector<std::string>& seat_bots) {
  auto link = std::make_shared<HubMatchLink>(this, match_id, seat_bots);
  {
    absl::MutexLock lock(&mu_);
    if (links_.count(match_id) != 0) {
      spdlog::error("match id {} is already running; replacing its link",
                    match_id);
    }
    links_[match_id] = link;
  }
  return std::make_unique<LinkHandle>(link,
                                      [this, match_id] { RemoveLink(match_id); });
}

void BotHub::RemoveLink(const std::string& match_id) {
  absl::MutexLock lock(&mu_);
  links_.erase(match_id);
}

void BotHub::CloseAll() {
  std::vector<BotConnection*> conns;
  {
    absl::MutexLock lock(&mu_);
    closing_all_ = true;
    for (auto& [id, c] : by_id_) conns.push_back(c);
    for (auto& [c, since] : unauthenticated_) conns.push_back(c);
    for (auto* c : conns) ++c->pins_;
    for (auto& [name, b] : bots_) b.away = false;
  }
  // Each one's OnDone fails its pending decisions (no grace now).
  for (auto* c : conns) {
    c->Shutdown(grpc::Status::OK);
    Unpin(c);
  }
}

}  // namespace arena
