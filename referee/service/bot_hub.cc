#include "referee/service/bot_hub.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

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
namespace {

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

}  // namespace

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
      ++evicted->hub_record().pins;  // it is not retired before its Shutdown below
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
        ++old->hub_record().pins;
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
    cut = conn->hub_record().cut_reason;
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
  ++conn->hub_record().pins;
  draining_.emplace_back(conn, absl::Now() + absl::Seconds(1));
}

void BotHub::Retire(BotConnection* conn) {
  bool del;
  {
    absl::MutexLock lock(&mu_);
    conn->hub_record().done = true;
    del = conn->hub_record().pins == 0;
  }
  if (del) delete conn;
}

void BotHub::Unpin(BotConnection* conn) {
  bool del;
  {
    absl::MutexLock lock(&mu_);
    del = --conn->hub_record().pins == 0 && conn->hub_record().done;
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
        ++c->hub_record().pins;
        refused.push_back(c);
      } else if (now - u.created >= options_.hello_timeout) {
        ++c->hub_record().pins;
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
    struct Gone {
      std::string bot;
      uint64_t last_conn;
      bool seated;  // holds a seat in a live match
    };
    std::vector<Gone> gone;
    for (auto& [name, b] : bots_) {
      if (b.away && now - b.away_since >= options_.reconnect_grace) {
        b.away = false;
        bool seated = false;
        for (const auto& [id, link] : links_) seated = seated || link->Has(name);
        gone.push_back({name, b.last_conn, seated});
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
    for (const Gone& g : gone) {
      // A bot between matches (arena stopped its process while it was idle)
      // loses nothing: said, not warned.
      if (g.seated) {
        spdlog::warn("bot {} did not come back within {}; its open decisions fail",
                     g.bot, absl::FormatDuration(options_.reconnect_grace));
      } else {
        spdlog::info("bot {} did not come back within {} (it holds no seat in a "
                     "live match)",
                     g.bot, absl::FormatDuration(options_.reconnect_grace));
      }
      BotGone(g.bot, g.last_conn, v1::FAULT_KIND_DISCONNECTED, GoneDetail(g.bot));
    }
    mu_.Lock();
  }
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
      if (it != recent_timeouts_.end() && it->second.bot == conn->bot_name()) {
        why = absl::StrCat(LateText(d.match_id(), it->second, absl::Now()),
                           "; the match has ended");
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
  std::shared_ptr<const MatchObserver> observer;
  {
    absl::MutexLock lock(&mu_);
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
    if (!recent_timeouts_.emplace(key, std::move(t)).second) continue;
    recent_timeouts_order_.push_back(std::move(key));
    if (recent_timeouts_order_.size() > kRecentTimeoutsKept) {
      recent_timeouts_.erase(recent_timeouts_order_.front());
      recent_timeouts_order_.pop_front();
    }
  }
}

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

bool BotHub::DropStream(const std::string& bot) {
  BotConnection* conn = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = bots_.find(bot);
    if (it == bots_.end() || it->second.live == nullptr) return false;
    conn = it->second.live;
    ++conn->hub_record().pins;
  }
  spdlog::info("bot {}: its stream is dropped on purpose (a reconnect check)", bot);
  // Unregister (in Close) keeps its seats for the grace, as for a stream
  // that broke.
  conn->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                           "stream dropped by the referee to check that the bot "
                           "reconnects; reconnect and answer from the Resync"));
  Unpin(conn);
  return true;
}

bool BotHub::SendNotice(const std::string& bot, const v1::Notice& notice) {
  uint64_t conn_id = 0;
  {
    absl::MutexLock lock(&mu_);
    auto it = bots_.find(bot);
    if (it == bots_.end() || it->second.live == nullptr) return false;
    conn_id = it->second.live->id();
  }
  OutMessage msg;
  *msg->mutable_notice() = notice;
  return SendOn(conn_id, std::move(msg), /*ask=*/false);
}

}  // namespace arena
