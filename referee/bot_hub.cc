#include "referee/bot_hub.h"

#include <deque>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace arena {

// One bot's stream: a reactor on gRPC's callback API. Writes are queued and
// sent one at a time; the reactor deletes itself when gRPC is done with it.
class BotConnection
    : public grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> {
 public:
  BotConnection(BotHub* hub, std::string peer) : hub_(hub), peer_(std::move(peer)) {
    StartRead(&in_);
  }

  uint64_t id() const { return id_; }
  void set_id(uint64_t id) { id_ = id; }
  const std::string& bot_name() const { return bot_name_; }
  const std::string& peer() const { return peer_; }

  // Queues a message; false if the stream is closing.
  bool Enqueue(OutMessage msg) {
    absl::MutexLock lock(&mu_);
    if (closing_) return false;
    out_.push_back(std::move(msg));
    if (!writing_) {
      writing_ = true;
      StartWrite(out_.front().get());
    }
    return true;
  }

  void SendNotice(v1::NoticeKind kind, const std::string& match_id,
                  uint64_t decision_id, const std::string& message) {
    spdlog::warn("bot {} ({}): {}", bot_name_.empty() ? "?" : bot_name_, peer_,
                 message);
    OutMessage msg;
    v1::Notice* n = msg->mutable_notice();
    n->set_kind(kind);
    n->set_match_id(match_id);
    n->set_decision_id(decision_id);
    n->set_message(message);
    Enqueue(std::move(msg));
  }

  // Ends the stream with `status` once queued writes are out, and fails the
  // bot's pending decisions.
  void Close(const grpc::Status& status) {
    hub_->Unregister(this);
    CloseStream(status);
  }

  // Ends the stream only; never calls back into the hub.
  void CloseStream(const grpc::Status& status) {
    bool finish_now = false;
    {
      absl::MutexLock lock(&mu_);
      if (closing_) return;
      closing_ = true;
      status_ = status;
      finish_now = !writing_;
      if (finish_now) finished_ = true;
    }
    if (finish_now) Finish(status);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Close(grpc::Status::OK);
      return;
    }
    Handle();
    bool closing;
    {
      absl::MutexLock lock(&mu_);
      closing = closing_;
    }
    if (!closing) StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    bool finish_now = false;
    grpc::Status status;
    {
      absl::MutexLock lock(&mu_);
      out_.pop_front();
      if (!ok) {
        closing_ = true;
        out_.clear();
      }
      if (!out_.empty()) {
        StartWrite(out_.front().get());
      } else {
        writing_ = false;
        if (closing_ && !finished_) {
          finished_ = true;
          finish_now = true;
          status = status_;
        }
      }
    }
    if (!ok) hub_->Unregister(this);
    if (finish_now) Finish(status);
  }

  void OnDone() override {
    hub_->Unregister(this);
    delete this;
  }

 private:
  void Handle() {
    switch (in_.kind_case()) {
      case v1::BotMessage::kHello: {
        if (!bot_name_.empty()) {
          SendNotice(v1::NOTICE_KIND_MALFORMED, "", 0,
                     "Hello sent twice on one stream; ignored");
          return;
        }
        std::string name;
        absl::Status s = hub_->Register(this, in_.hello().token(), &name);
        if (!s.ok()) {
          spdlog::warn("connection from {} refused: {}", peer_, std::string(s.message()));
          Close(grpc::Status(s.code() == absl::StatusCode::kAlreadyExists
                                 ? grpc::StatusCode::ALREADY_EXISTS
                                 : grpc::StatusCode::UNAUTHENTICATED,
                             std::string(s.message())));
          return;
        }
        bot_name_ = name;
        OutMessage msg;
        msg->mutable_welcome()->set_bot_name(name);
        msg->mutable_welcome()->set_protocol_version(1);
        msg->mutable_welcome()->set_referee_version(ARENA_VERSION);
        Enqueue(std::move(msg));
        return;
      }
      case v1::BotMessage::kDecision:
        if (bot_name_.empty()) {
          spdlog::warn("connection from {} sent a decision before Hello", peer_);
          Close(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                             "the first message must be Hello with a token"));
          return;
        }
        if (in_.decision().match_id().empty()) {
          SendNotice(v1::NOTICE_KIND_MALFORMED, "", in_.decision().decision_id(),
                     "Decision without a match_id; ignored");
          return;
        }
        hub_->OnDecision(this, in_.decision());
        return;
      default:
        if (bot_name_.empty()) {
          Close(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                             "the first message must be Hello with a token"));
          return;
        }
        SendNotice(v1::NOTICE_KIND_MALFORMED, "", 0,
                   "message with no known content; ignored");
    }
  }

  BotHub* const hub_;
  const std::string peer_;
  uint64_t id_ = 0;
  std::string bot_name_;  // set once, on the reading thread
  v1::BotMessage in_;
  absl::Mutex mu_;
  std::deque<OutMessage> out_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

class BotHub::Service : public v1::Referee::CallbackService {
 public:
  explicit Service(BotHub* hub) : hub_(hub) {}
  grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage>* Play(
      grpc::CallbackServerContext* ctx) override {
    return new BotConnection(hub_, ctx->peer());
  }

 private:
  BotHub* hub_;
};

// The link of one match: its pending decisions, by decision id.
class HubMatchLink {
 public:
  HubMatchLink(BotHub* hub, std::string match_id,
               std::vector<std::string> seat_bots)
      : hub_(hub),
        match_id_(std::move(match_id)),
        seat_bots_(std::move(seat_bots)),
        seat_conn_(seat_bots_.size(), 0),
        starts_(seat_bots_.size()) {}

  void Start(int seat, const v1::MatchStart& start) {
    {
      absl::MutexLock lock(&mu_);
      *starts_[seat].mutable_match_start() = start;
    }
    const uint64_t cid = hub_->CurrentConnection(seat_bots_[seat]);
    if (cid == 0) return;  // reported when a decision is asked of it
    {
      absl::MutexLock lock(&mu_);
      seat_conn_[seat] = cid;
    }
    hub_->SendOn(cid, OutMessage(starts_[seat]));
  }

  void Send(int seat, OutMessage msg, int num_legal) {
    const v1::DecisionRequest& request = msg->decision_request();
    const uint64_t decision_id = request.decision_id();
    const std::string& bot = seat_bots_[seat];
    const uint64_t cid = hub_->CurrentConnection(bot);
    bool need_start = false;
    {
      absl::MutexLock lock(&mu_);
      Pending& p = pending_[decision_id];
      p.seat = seat;
      p.conn = cid;
      p.num_legal = num_legal;
      p.sent = absl::Now();
      if (cid == 0) {
        Fault(p, v1::FAULT_KIND_UNAVAILABLE,
              absl::StrCat("bot ", bot, " is not connected"));
        return;
      }
      need_start = seat_conn_[seat] != cid;
      seat_conn_[seat] = cid;
    }
    // A bot that reconnected mid-match is told about the match first.
    if (need_start) hub_->SendOn(cid, OutMessage(starts_[seat]));
    if (!hub_->SendOn(cid, std::move(msg))) {
      absl::MutexLock lock(&mu_);
      auto it = pending_.find(decision_id);
      if (it != pending_.end() && !it->second.done) {
        Fault(it->second, v1::FAULT_KIND_DISCONNECTED,
              absl::StrCat("stream to bot ", bot, " is closed"));
      }
    }
  }

  SeatReply Await(int seat, uint64_t decision_id, absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(decision_id);
    if (it == pending_.end()) {
      SeatReply r;
      r.fault = v1::FAULT_KIND_UNAVAILABLE;
      r.detail = "decision was never sent";
      return r;
    }
    Pending& p = it->second;
    while (!p.done) {
      if (cv_.WaitWithDeadline(&mu_, deadline)) break;  // deadline passed
    }
    SeatReply reply;
    if (p.done) {
      reply = p.reply;
    } else {
      reply.fault = v1::FAULT_KIND_TIMEOUT;
      reply.think_us = absl::ToInt64Microseconds(absl::Now() - p.sent);
      reply.detail = absl::StrCat("no answer within ",
                                  absl::FormatDuration(deadline - p.sent));
    }
    pending_.erase(it);  // from now on, an answer to it is stale
    return reply;
  }

  void End(int seat, const v1::MatchEnd& end) {
    uint64_t cid;
    {
      absl::MutexLock lock(&mu_);
      ended_ = true;
      for (auto it = pending_.begin(); it != pending_.end();) {
        it = it->second.seat == seat ? pending_.erase(it) : std::next(it);
      }
      cid = seat_conn_[seat];
    }
    if (cid == 0) return;
    OutMessage msg;
    *msg->mutable_match_end() = end;
    hub_->SendOn(cid, std::move(msg));
  }

  void OnDecision(BotConnection* conn, const v1::Decision& d) {
    const std::string& bot = conn->bot_name();
    v1::NoticeKind kind = v1::NOTICE_KIND_UNSPECIFIED;
    std::string why;
    {
      absl::MutexLock lock(&mu_);
      auto it = pending_.find(d.decision_id());
      bool holds_seat = false;
      for (const auto& b : seat_bots_) holds_seat |= b == bot;
      if (ended_) {
        kind = v1::NOTICE_KIND_UNKNOWN_MATCH;
        why = absl::StrCat("match ", match_id_, " has ended");
      } else if (!holds_seat) {
        kind = v1::NOTICE_KIND_FOREIGN;
        why = absl::StrCat("match ", match_id_, ": bot ", bot,
                           " holds no seat in this match");
      } else if (it == pending_.end() || it->second.done) {
        kind = v1::NOTICE_KIND_STALE;
        why = absl::StrCat("match ", match_id_, ": decision ", d.decision_id(),
                           " is not pending (answered, late, or never asked)");
      } else if (seat_bots_[it->second.seat] != bot ||
                 it->second.conn != conn->id()) {
        kind = v1::NOTICE_KIND_FOREIGN;
        why = absl::StrCat("match ", match_id_, ": decision ", d.decision_id(),
                           " was asked of seat ", it->second.seat, " (",
                           seat_bots_[it->second.seat], ") on another stream");
      } else {
        Pending& p = it->second;
        p.reply.think_us = absl::ToInt64Microseconds(absl::Now() - p.sent);
        if (d.action_index() < 0 || d.action_index() >= p.num_legal) {
          kind = v1::NOTICE_KIND_ILLEGAL;
          why = absl::StrCat("match ", match_id_, ": decision ", d.decision_id(),
                             ": action index ", d.action_index(),
                             " is not in [0, ", p.num_legal, ")");
          const int64_t think = p.reply.think_us;
          Fault(p, v1::FAULT_KIND_ILLEGAL,
                absl::StrCat("action index ", d.action_index(),
                             " is not in [0, ", p.num_legal, ")"));
          p.reply.think_us = think;
        } else {
          p.done = true;
          p.reply.ok = true;
          p.reply.action = d.action_index();
          cv_.SignalAll();
        }
      }
    }
    if (kind != v1::NOTICE_KIND_UNSPECIFIED) {
      conn->SendNotice(kind, d.match_id(), d.decision_id(), why);
    }
  }

  void OnDisconnect(uint64_t cid, const std::string& bot) {
    absl::MutexLock lock(&mu_);
    for (auto& [id, p] : pending_) {
      if (p.conn == cid && !p.done) {
        Fault(p, v1::FAULT_KIND_DISCONNECTED,
              absl::StrCat("stream to bot ", bot, " ended"));
      }
    }
  }

 private:
  struct Pending {
    int seat = 0;
    uint64_t conn = 0;
    int num_legal = 0;
    absl::Time sent;
    bool done = false;
    SeatReply reply;
  };

  void Fault(Pending& p, v1::FaultKind kind, std::string detail)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    p.done = true;
    p.reply.ok = false;
    p.reply.fault = kind;
    p.reply.detail = std::move(detail);
    p.reply.think_us = absl::ToInt64Microseconds(absl::Now() - p.sent);
    cv_.SignalAll();
  }

  BotHub* const hub_;
  const std::string match_id_;
  const std::vector<std::string> seat_bots_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  std::map<uint64_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> seat_conn_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<v1::RefereeMessage> starts_;
};

namespace {

// What a match holds: forwards to the shared link and unregisters it.
class LinkHandle : public SeatLink {
 public:
  LinkHandle(BotHub* hub, std::shared_ptr<HubMatchLink> link,
             std::function<void()> on_close)
      : link_(std::move(link)), on_close_(std::move(on_close)) {}
  ~LinkHandle() override { on_close_(); }
  void Start(int seat, const v1::MatchStart& start) override {
    link_->Start(seat, start);
  }
  void Send(int seat, OutMessage message, int num_legal) override {
    link_->Send(seat, std::move(message), num_legal);
  }
  SeatReply Await(int seat, uint64_t decision_id,
                  absl::Time deadline) override {
    return link_->Await(seat, decision_id, deadline);
  }
  void End(int seat, const v1::MatchEnd& end) override {
    link_->End(seat, end);
  }

 private:
  std::shared_ptr<HubMatchLink> link_;
  std::function<void()> on_close_;
};

}  // namespace

BotHub::BotHub(const std::vector<BotIdentity>& bots)
    : service_(std::make_unique<Service>(this)) {
  for (const auto& b : bots) token_to_bot_[b.token] = b.name;
}

BotHub::~BotHub() = default;

grpc::Service* BotHub::service() { return service_.get(); }

absl::Status BotHub::Register(BotConnection* conn, const std::string& token,
                              std::string* bot_name) {
  auto it = token_to_bot_.find(token);
  if (it == token_to_bot_.end()) {
    return absl::UnauthenticatedError("unknown token");
  }
  absl::MutexLock lock(&mu_);
  if (live_.count(it->second) != 0) {
    return absl::AlreadyExistsError(absl::StrCat(
        "bot ", it->second, " is already connected on another stream"));
  }
  conn->set_id(++next_conn_id_);
  live_[it->second] = conn;
  by_id_[conn->id()] = conn;
  ++connect_count_[it->second];
  *bot_name = it->second;
  spdlog::info("bot {} connected from {}", it->second, conn->peer());
  return absl::OkStatus();
}

void BotHub::Unregister(BotConnection* conn) {
  std::vector<std::shared_ptr<HubMatchLink>> links;
  {
    absl::MutexLock lock(&mu_);
    if (conn->id() == 0 || by_id_.erase(conn->id()) == 0) return;
    auto it = live_.find(conn->bot_name());
    if (it != live_.end() && it->second == conn) live_.erase(it);
    for (auto& [id, link] : links_) links.push_back(link);
    spdlog::info("bot {} disconnected", conn->bot_name());
  }
  for (auto& link : links) link->OnDisconnect(conn->id(), conn->bot_name());
}

void BotHub::OnDecision(BotConnection* conn, const v1::Decision& d) {
  std::shared_ptr<HubMatchLink> link;
  {
    absl::MutexLock lock(&mu_);
    auto it = links_.find(d.match_id());
    if (it != links_.end()) link = it->second;
  }
  if (link == nullptr) {
    conn->SendNotice(v1::NOTICE_KIND_UNKNOWN_MATCH, d.match_id(),
                     d.decision_id(),
                     absl::StrCat("no running match has id '", d.match_id(),
                                  "' (it has ended, or never started)"));
    return;
  }
  link->OnDecision(conn, d);
}

uint64_t BotHub::CurrentConnection(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  auto it = live_.find(bot);
  return it == live_.end() ? 0 : it->second->id();
}

bool BotHub::SendOn(uint64_t conn_id, OutMessage msg) {
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(conn_id);
  return it != by_id_.end() && it->second->Enqueue(std::move(msg));
}

bool BotHub::IsConnected(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  return live_.count(bot) != 0;
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
      if (live_.count(b) == 0) return false;
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
  return std::make_unique<LinkHandle>(this, link,
                                      [this, match_id] { RemoveLink(match_id); });
}

void BotHub::RemoveLink(const std::string& match_id) {
  absl::MutexLock lock(&mu_);
  links_.erase(match_id);
}

void BotHub::CloseAll() {
  // Under mu_: a connection unregisters (in OnDone) before it is deleted, so
  // every one listed here is alive. Its OnDone fails its pending decisions.
  absl::MutexLock lock(&mu_);
  for (auto& [id, c] : by_id_) c->CloseStream(grpc::Status::OK);
}

}  // namespace arena
