// BotHub's registry (referee/service/bot_hub.h): each bot's live stream, its
// absence (within the reconnect grace, or down) and what ends it (Unregister,
// SetBotDown, DropStream), the resync of a bot that is back, and the queries
// on who is connected.
#include "referee/clock/mono_clock.h"
#include "referee/service/bot_hub.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/service/bot_connection.h"
#include "referee/service/match_link.h"
#include "spdlog/spdlog.h"

namespace arena {

void BotHub::ResyncBot(const std::string& bot, uint64_t conn_id) {
  if (options_.resync_delay_for_test > absl::ZeroDuration()) {
    absl::SleepFor(options_.resync_delay_for_test);
  }
  // One resync at a time: a stream that takes over from another between
  // the check below and the links' Resync runs its own afterwards, so the
  // seats end on the newest stream whatever order the Hellos' threads run.
  absl::MutexLock resyncing(&resync_mu_);
  std::vector<std::shared_ptr<HubMatchLink>> links;
  std::vector<uint64_t> kept;
  {
    absl::MutexLock lock(&mu_);
    BotState& b = bots_[bot];
    // Only the bot's live stream takes its seats over. Not a standby
    // (ExpectStandby): no match of the bot's current process, nor its
    // state, reaches it. Nor a stream that a newer one (or a standby that
    // replaced it as the standby) took over from since its Hello.
    if (b.live == nullptr || b.live->id() != conn_id) return;
    // Nor does a stream the bot's previous process keeps: its seats stay.
    kept = KeptStreamsLocked(b);
    links = LinksOfLocked(bot);
  }
  for (auto& link : links) link->Resync(bot, conn_id, kept);
}

std::vector<std::shared_ptr<HubMatchLink>> BotHub::LinksOfLocked(const std::string& bot) const {
  std::vector<std::shared_ptr<HubMatchLink>> links;
  for (const auto& [id, link] : links_) {
    if (link->Has(bot)) links.push_back(link);
  }
  return links;
}

std::vector<uint64_t> BotHub::KeptStreamsLocked(const BotState& b) const {
  std::vector<uint64_t> kept(b.lost.begin(), b.lost.end());
  for (const auto& [digest, conn] : b.retiring) kept.push_back(conn->id());
  return kept;
}

BotHub::Route BotHub::RouteOf(const std::string& bot, uint64_t bound) const {
  absl::MutexLock lock(&mu_);
  Route r;
  auto it = bots_.find(bot);
  if (it == bots_.end()) return r;
  const BotState& b = it->second;
  bool retiring = false;
  for (const auto& [digest, conn] : b.retiring) retiring = retiring || conn->id() == bound;
  if (bound != 0 && retiring) {
    r.conn = bound;
  } else if (bound != 0 && b.lost.count(bound) > 0) {
    r.lost = true;
  } else if (b.live != nullptr) {
    r.conn = b.live->id();
  }
  return r;
}

bool BotHub::RetiringBusy(const std::string& bot, const std::string& token) const {
  std::vector<std::shared_ptr<HubMatchLink>> links;
  uint64_t retiring = 0;
  const std::string digest = TokenDigest(token);
  {
    absl::MutexLock lock(&mu_);
    auto it = bots_.find(bot);
    if (it == bots_.end()) return false;
    auto r = it->second.retiring.find(digest);
    if (r == it->second.retiring.end()) return false;
    retiring = r->second->id();
    links = LinksOfLocked(bot);
  }
  for (auto& link : links) {
    if (link->Holds(bot, retiring)) return true;
  }
  return false;
}

void BotHub::Unregister(BotConnection* conn) {
  if (options_.unregister_delay_for_test > absl::ZeroDuration() && conn->id() != 0) {
    absl::SleepFor(options_.unregister_delay_for_test);
  }
  bool gone = false;
  bool retired = false;
  std::vector<std::shared_ptr<HubMatchLink>> retired_links;
  std::string cut;
  {
    absl::MutexLock lock(&mu_);
    unauthenticated_.erase(conn);
    if (conn->id() == 0 || by_id_.erase(conn->id()) == 0) return;
    BotState& b = bots_[conn->bot_name()];
    if (b.standby == conn) {  // a standby's process ended before its turn
      b.standby = nullptr;
      return;
    }
    for (auto r = b.retiring.begin(); r != b.retiring.end(); ++r) {
      if (r->second != conn) continue;
      // A previous process's stream: what it still holds has lost its
      // process (never moved to the bot's live one): marked lost in the
      // same step, so that no request finds such a seat unbound meanwhile.
      // Seats are bound to it only in live matches: a stream that ends
      // idle leaves no mark (below).
      b.retiring.erase(r);
      b.lost.insert(conn->id());
      retired = true;
      break;
    }
    if (retired) {
      retired_links = LinksOfLocked(conn->bot_name());
    }
    if (b.live != conn && !retired) return;
    if (!retired) b.live = nullptr;
    cut = conn->hub_record().cut_reason;
    if (retired) {
      // (Its seats are handled below; the bot itself is served by its
      // live stream.)
    } else if (!cut.empty()) {
      // Cut off: no grace; what it owes, and what it is asked until it
      // connects again, fails as its fault (the standings count CUT_OFF).
      b.down = true;
      b.down_kind = v1::FAULT_KIND_CUT_OFF;
      b.down_detail = cut;
    } else if (options_.reconnect_grace > absl::ZeroDuration() && !closing_all_) {
      b.away = true;
      b.away_since = MonoNow();
    } else {
      gone = true;
    }
  }
  if (retired) {
    bool held = false;
    for (auto& link : retired_links) held = link->Holds(conn->bot_name(), conn->id()) || held;
    if (!held) {
      // No seat is bound to it, nor will be (no new match binds a stream
      // that is not live): nothing to remember.
      absl::MutexLock lock(&mu_);
      bots_[conn->bot_name()].lost.erase(conn->id());
      return;
    }
    const std::string detail = absl::StrCat(
        cut.empty() ? "the stream" : absl::StrCat("the stream (cut off: ", cut, ")"),
        " of the process of bot ", conn->bot_name(),
        " that played this match ended; the match is not moved to its next process");
    Log(absl::StrCat("bot ", conn->bot_name()), spdlog::level::warn,
        absl::StrCat("bot ", conn->bot_name(),
                     ": the stream of its previous process ended while it still played; "
                     "the seats it held fail (they are not moved to its next process)"));
    BotGone(conn->bot_name(), conn->id(),
            cut.empty() ? v1::FAULT_KIND_DISCONNECTED : v1::FAULT_KIND_CUT_OFF, detail,
            /*only=*/conn->id());
    return;
  }
  if (!cut.empty()) {
    BotGone(conn->bot_name(), conn->id(), v1::FAULT_KIND_CUT_OFF, cut);
    return;
  }
  Log(absl::StrCat("bot ", conn->bot_name()), ConnectionLevel(),
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
                     v1::FaultKind kind, const std::string& detail, uint64_t only) {
  std::vector<std::shared_ptr<HubMatchLink>> links;
  std::set<uint64_t> retiring;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, link] : links_) links.push_back(link);
    for (const auto& [digest, conn] : bots_[bot].retiring) retiring.insert(conn->id());
  }
  auto whose = [&](uint64_t conn) {
    return only != 0 ? conn == only
                     : conn <= last_conn && (conn == 0 || retiring.count(conn) == 0);
  };
  for (auto& link : links) link->OnBotGone(bot, whose, kind, detail);
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
  return AwaitWithMonoTimeout(&mu_, absl::Condition(&all_live), timeout);
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
