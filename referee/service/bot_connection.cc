#include "referee/service/bot_connection.h"

#include "referee/clock/mono_clock.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/service/client_text.h"

namespace arena {

BotConnection::BotConnection(ConnectionHost* host, const HubOptions& options,
                             grpc::CallbackServerContext* ctx)
    : hub_(host),
      options_(options),
      ctx_(ctx),
      peer_(ctx->peer()),
      created_(MonoNow()) {}

void BotConnection::Begin() {
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

std::string BotConnection::who() const {
  return bot_name_.empty() ? PeerHost(peer_) : absl::StrCat("bot ", bot_name_);
}

BotConnection::Queued BotConnection::Enqueue(OutMessage msg) {
  return Enqueue(std::move(msg), std::nullopt);
}

BotConnection::Queued BotConnection::Enqueue(OutMessage msg,
                                             std::optional<OutMessage> lead) {
  OutMessage* write = nullptr;
  bool hint = false;
  bool read = false;
  {
    absl::MutexLock lock(&mu_);
    if (closing_) return Queued::kClosed;
    const size_t lead_bytes = lead.has_value() ? (*lead)->ByteSizeLong() : 0;
    const size_t bytes = msg->ByteSizeLong() + lead_bytes;
    if (queued_bytes_ + bytes > options_.max_outbound_bytes) {
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
    if (lead.has_value()) out_.emplace_back(*std::move(lead), lead_bytes);
    out_.emplace_back(std::move(msg), bytes - lead_bytes);
    if (!writing_) {
      writing_ = true;  // this caller starts it; OnWriteDone the next ones
      write = &out_.front().first;
      hint = out_.size() > 1;
    }
    if (read_due_) {
      // The read put off after the bot's last answer (see OnReadDone).
      read_due_ = false;
      read = true;
      ++starting_;
    }
  }
  if (write != nullptr) Write(write, hint);
  if (read) {
    StartRead(&in_);
    ReadStarted();
  }
  return Queued::kOk;
}

void BotConnection::StartDueRead(absl::Time now, absl::Duration wait) {
  absl::MutexLock lock(&mu_);
  if (!read_due_ || closing_ || now - due_since_ < wait) return;
  read_due_ = false;
  StartRead(&in_);
}

void BotConnection::MarkClosing(const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  CloseWith(status);
}

void BotConnection::Shutdown(const grpc::Status& given) {
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

void BotConnection::CancelIfUnfinished() {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
  }
  std::lock_guard<std::recursive_mutex> guard(cancel_mu_);
  if (!done_called_) ctx_->TryCancel();
}

void BotConnection::Close(const grpc::Status& status) {
  Shutdown(status);
  hub_->Unregister(this);
}

void BotConnection::SendNotice(v1::NoticeKind kind, const std::string& match_id,
                               uint64_t decision_id, const std::string& message,
                               bool counts) {
  hub_->Warn(who(), absl::StrCat(who(), " (", peer_, "): ", message));
  if (counts && !hub_->NoteInvalid(bot_name_)) {
    CutOff(absl::StrCat("more than ", options_.invalid_per_second,
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

std::string BotConnection::QueueFullReason() const {
  return absl::StrCat("more than ", options_.max_outbound_bytes,
                      " bytes waiting to be sent (it does not read)");
}

void BotConnection::CutOff(const std::string& reason) {
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
void BotConnection::OnReadDone(bool ok) {
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
    if (answered && asked_.load() == 0 && options_.lazy_reads &&
        !cancelled_) {
      read_due_ = true;
      due_since_ = MonoNow();
      return;
    }
  }
  StartRead(&in_);
}

// The call was cancelled (the peer went away, or the hub cancelled it):
// with no read out, nothing else would tell.
void BotConnection::OnCancel() {
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

void BotConnection::OnWriteDone(bool ok) {
  bool finish_now = false;
  grpc::Status status;
  OutMessage* next = nullptr;
  bool hint = false;
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
      next = &out_.front().first;  // writing_ stays true
      hint = out_.size() > 1;
    } else {
      writing_ = false;
      if (closing_) {
        finish_now = FinishNow();
        status = status_;
      }
    }
  }
  if (next != nullptr) Write(next, hint);
  if (!ok) hub_->Unregister(this);
  if (finish_now) Finish(status);
}

// The message stays at the front of out_ (and so alive) until its
// OnWriteDone, which cannot come before its StartWrite.
void BotConnection::Write(OutMessage* msg, bool more_queued) {
  msg->Left(MonoNow());
  // With more queued behind it, gRPC holds it (buffer hint) and sends it
  // with the next write: one sendmsg, one wake-up of the bot, for both.
  if (more_queued && options_.coalesce_writes) {
    StartWrite(msg->get(), grpc::WriteOptions().set_buffer_hint());
  } else {
    StartWrite(msg->get());
  }
}

void BotConnection::ReadStarted() {
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

void BotConnection::CloseWith(const grpc::Status& status) {
  closing_ = true;
  if (status_set_) return;
  status_ = status;
  status_set_ = true;
}

bool BotConnection::FinishNow() {
  if (finished_ || writing_) return false;
  if (starting_ > 0) {
    finish_due_ = true;
    return false;
  }
  finish_due_ = false;
  finished_ = true;
  return true;
}

void BotConnection::OnDone() {
  {
    std::lock_guard<std::recursive_mutex> guard(cancel_mu_);
    done_called_ = true;
  }
  hub_->Unregister(this);
  hub_->Retire(this);
}

bool BotConnection::Handle() {
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

}  // namespace arena
