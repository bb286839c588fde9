// BotHub (referee/service/bot_hub.h): its lifetime (the gRPC service, the
// reaper's thread, CloseAll) and the matches' side: links made and let go
// of, decisions routed to their match, messages sent on a link's behalf, and
// the rules matches share. Admission is in bot_hub_admission.cc, the registry
// of bots and their streams in bot_hub_registry.cc, the reaper in
// bot_hub_reaper.cc, the budgets in bot_hub_limits.cc.
#include "referee/clock/mono_clock.h"
#include "referee/service/bot_hub.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/records/record.h"
#include "referee/service/bot_connection.h"
#include "referee/service/client_text.h"
#include "referee/service/link_handle.h"
#include "referee/service/match_link.h"
#include "spdlog/spdlog.h"

namespace arena {

// The Referee service: a BotConnection for each Play stream.
class BotHub::Service : public v1::Referee::CallbackService {
 public:
  explicit Service(BotHub* hub) : hub_(hub) {}
  grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage>* Play(
      grpc::CallbackServerContext* ctx) override {
    auto* conn = new BotConnection(hub_, hub_->options_, ctx);
    conn->Begin();
    return conn;
  }

 private:
  BotHub* hub_;
};

BotHub::BotHub(const std::vector<BotIdentity>& bots, const HubOptions& options)
    : options_(options), service_(std::make_unique<Service>(this)) {
  for (const auto& b : bots) token_digests_.emplace_back(TokenDigest(b.token), b.name);
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
    const std::string line = EvictionLogLine(MonoNow());
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

void BotHub::CloseAll() {
  std::vector<BotConnection*> conns;
  {
    absl::MutexLock lock(&mu_);
    closing_all_ = true;
    for (auto& [id, c] : by_id_) conns.push_back(c);
    for (auto& [c, since] : unauthenticated_) conns.push_back(c);
    for (auto* c : conns) ++c->hub_record().pins;
    for (auto& [name, b] : bots_) b.away = false;
  }
  // Each one's OnDone fails its pending decisions (no grace now).
  for (auto* c : conns) {
    c->Shutdown(grpc::Status::OK);
    Unpin(c);
  }
}

std::unique_ptr<SeatLink> BotHub::NewMatchLink(
    const std::string& match_id, const std::vector<std::string>& seat_bots) {
  std::shared_ptr<HubMatchLink> link;
  std::shared_ptr<const MatchObserver> observer;
  {
    absl::MutexLock lock(&mu_);
    // Each seat is bound to its bot's live stream now, before the match
    // is told to anyone (the supervisor may hand the bot over to its next
    // process once the match is counted: the match stays with this one).
    std::vector<uint64_t> bound;
    for (const std::string& bot : seat_bots) {
      auto it = bots_.find(bot);
      bound.push_back(it == bots_.end() || it->second.live == nullptr ? 0
                                                                       : it->second.live->id());
    }
    link = std::make_shared<HubMatchLink>(this, match_id, seat_bots, std::move(bound));
    if (links_.count(match_id) != 0) {
      spdlog::error("match id {} is already running; replacing its link",
                    match_id);
    }
    links_[match_id] = link;
    observer = match_observer_;
  }
  std::vector<std::string> bots;
  if (observer != nullptr) {
    bots = seat_bots;
    std::sort(bots.begin(), bots.end());
    bots.erase(std::unique(bots.begin(), bots.end()), bots.end());
    (*observer)(bots, true);
  }
  return std::make_unique<LinkHandle>(
      link, [this, match_id, observer, bots = std::move(bots)] {
        RemoveLink(match_id, observer, bots);
      });
}

void BotHub::SetMatchObserver(MatchObserver observer) {
  std::shared_ptr<const MatchObserver> shared;
  if (observer) shared = std::make_shared<const MatchObserver>(std::move(observer));
  absl::MutexLock lock(&mu_);
  match_observer_ = std::move(shared);
}

void BotHub::RemoveLink(const std::string& match_id,
                        const std::shared_ptr<const MatchObserver>& observer,
                        const std::vector<std::string>& bots) {
  std::shared_ptr<HubMatchLink> link;
  {
    absl::MutexLock lock(&mu_);
    auto it = links_.find(match_id);
    if (it != links_.end()) {
      link = std::move(it->second);
      links_.erase(it);
    }
  }
  if (observer != nullptr) (*observer)(bots, false);
  if (link == nullptr) return;
  // Its timeouts outlive it a while: the late answer to the decision that
  // ended the match is the common one.
  std::vector<HubMatchLink::TimedOut> timed_out = link->TimedOutDecisions();
  if (timed_out.empty()) return;
  absl::MutexLock lock(&mu_);
  for (auto& t : timed_out) {
    auto key = std::make_pair(match_id, t.decision_id);
    const std::string bot = t.bot;
    const absl::Time deadline = t.deadline;
    if (!recent_timeouts_.emplace(key, RecentTimeout{std::move(t)}).second) continue;
    LateOwed& owed = late_owed_[bot];
    ++owed.count;
    owed.latest_deadline = std::max(owed.latest_deadline, deadline);
    recent_timeouts_order_.push_back(std::move(key));
    if (recent_timeouts_order_.size() > kRecentTimeoutsKept) {
      auto oldest = recent_timeouts_.find(recent_timeouts_order_.front());
      if (oldest != recent_timeouts_.end()) {
        if (!oldest->second.answered) SettleLate(oldest->second.decision.bot);
        recent_timeouts_.erase(oldest);
      }
      recent_timeouts_order_.pop_front();
    }
  }
}

void BotHub::SettleLate(const std::string& bot) {
  auto it = late_owed_.find(bot);
  if (it == late_owed_.end()) return;
  if (--it->second.count <= 0) late_owed_.erase(it);
}

bool BotHub::OwesLateAnswer(const std::string& bot, absl::Duration within) const {
  absl::MutexLock lock(&mu_);
  auto it = late_owed_.find(bot);
  return it != late_owed_.end() && it->second.count > 0 &&
         MonoNow() - it->second.latest_deadline < within;
}

bool BotHub::OnDecision(BotConnection* conn, const v1::Decision& d) {
  std::shared_ptr<HubMatchLink> link;
  {
    absl::MutexLock lock(&mu_);
    auto it = links_.find(d.match_id());
    if (it != links_.end()) link = it->second;
  }
  if (link == nullptr) {
    std::string why;
    {
      absl::MutexLock lock(&mu_);
      auto it = recent_timeouts_.find({d.match_id(), d.decision_id()});
      if (it != recent_timeouts_.end() && it->second.decision.bot == conn->bot_name()) {
        why = absl::StrCat(LateText(d.match_id(), it->second.decision, MonoNow()),
                           "; the match has ended");
        if (!it->second.answered) {
          it->second.answered = true;
          SettleLate(it->second.decision.bot);
        }
      }
    }
    // A late answer to one of the bot's own timed-out decisions is one per
    // request the referee sent: no flood (on a saturated machine every bot
    // sends many, and counting them cut every bot off).
    const bool counts = why.empty();
    if (why.empty()) {
      why = absl::StrCat("no running match has id '", Clip(d.match_id()),
                         "' (it has ended, or never started)");
    }
    conn->SendNotice(v1::NOTICE_KIND_UNKNOWN_MATCH, d.match_id(), d.decision_id(), why,
                     counts);
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

std::shared_ptr<const v1::Rules> BotHub::SharedRules(const v1::Rules& rules) {
  std::string key;
  AppendDeterministic(rules, &key);
  absl::MutexLock lock(&rules_mu_);
  std::weak_ptr<const v1::Rules>& entry = shared_rules_[key];
  if (std::shared_ptr<const v1::Rules> kept = entry.lock()) return kept;
  auto made = std::make_shared<const v1::Rules>(rules);
  entry = made;
  if (shared_rules_.size() > kSharedRulesKept) {
    for (auto it = shared_rules_.begin(); it != shared_rules_.end();) {
      it = it->second.expired() ? shared_rules_.erase(it) : std::next(it);
    }
  }
  return made;
}

bool BotHub::SendOn(uint64_t conn_id, OutMessage msg, bool ask,
                    std::optional<OutMessage> lead) {
  // The hub's lock only finds and pins the stream: the write itself (gRPC
  // may send it inline, a syscall that also wakes the bot) is made outside
  // it, so that other streams' answers and sends do not queue behind it.
  BotConnection* conn = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(conn_id);
    if (it == by_id_.end()) return false;
    conn = it->second;
    ++conn->hub_record().pins;
    if (ask) conn->Ask();  // before it can be answered
  }
  const BotConnection::Queued q = conn->Enqueue(std::move(msg), std::move(lead));
  if (q == BotConnection::Queued::kOverflow) conn->CutOff(conn->QueueFullReason());
  Unpin(conn);
  return q == BotConnection::Queued::kOk;
}

}  // namespace arena
