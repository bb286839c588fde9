#include "referee/service/match_link.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "referee/clock/mono_clock.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/records/bot_note.h"
#include "referee/service/bot_connection.h"
#include "spdlog/spdlog.h"

namespace arena {

HubMatchLink::HubMatchLink(LinkHost* hub, std::string match_id,
                           std::vector<std::string> seat_bots, std::vector<uint64_t> bound)
    : hub_(hub),
      match_id_(std::move(match_id)),
      seat_bots_(std::move(seat_bots)),
      seat_conn_(std::move(bound)),
      started_(seat_bots_.size(), false),
      start_held_(seat_bots_.size(), false),
      last_request_(seat_bots_.size()),
      last_decision_(seat_bots_.size(), 0),
      issued_(seat_bots_.size()) {}

bool HubMatchLink::Has(const std::string& bot) const {
  for (const auto& b : seat_bots_) {
    if (b == bot) return true;
  }
  return false;
}

bool HubMatchLink::Holds(const std::string& bot, uint64_t conn) const {
  absl::MutexLock lock(&mu_);
  if (ended_) return false;
  for (size_t s = 0; s < seat_bots_.size(); ++s) {
    if (seat_bots_[s] == bot && seat_conn_[s] == conn) return true;
  }
  return false;
}

LinkHost::Route HubMatchLink::RouteSeat(int seat) const {
  uint64_t bound;
  {
    absl::MutexLock lock(&mu_);
    bound = seat_conn_[seat];
  }
  return hub_->RouteOf(seat_bots_[seat], bound);
}

LinkHost::Absence HubMatchLink::AbsenceOn(int seat, const LinkHost::Route& route) const {
  LinkHost::Absence away;
  if (route.lost) {
    away.down = true;
    away.kind = v1::FAULT_KIND_DISCONNECTED;
    away.detail = absl::StrCat("the process of bot ", seat_bots_[seat],
                               " that played this match has ended; the match is not moved "
                               "to the bot's next process");
  } else if (route.conn == 0) {
    away = hub_->AbsenceOf(seat_bots_[seat]);
  }
  return away;
}

void HubMatchLink::Start(int seat, const v1::MatchStart& start) {
  DoStart(seat, start, /*hold=*/false);
}

void HubMatchLink::StartBeforeRequest(int seat, const v1::MatchStart& start) {
  DoStart(seat, start, /*hold=*/true);
}

void HubMatchLink::DoStart(int seat, const v1::MatchStart& start, bool hold) {
  const uint64_t cid = RouteSeat(seat).conn;
  bool kept;
  {
    absl::MutexLock lock(&mu_);
    kept = rules_ != nullptr;
  }
  // The same for every seat but `seat`: kept once, its rules shared.
  std::shared_ptr<const v1::Rules> rules;
  if (!kept) rules = hub_->SharedRules(start.rules());
  {
    absl::MutexLock lock(&mu_);
    if (rules_ == nullptr) {
      start_ = start;
      start_.clear_rules();
      rules_ = std::move(rules);
    }
    started_[seat] = true;
    if (cid == 0) return;  // a resync brings it on reconnect (or it is lost)
    seat_conn_[seat] = cid;
    if (hold) {
      start_held_[seat] = true;
      return;
    }
  }
  OutMessage msg;
  *msg->mutable_match_start() = start;
  hub_->SendOn(cid, std::move(msg), /*ask=*/false);
}

void HubMatchLink::Send(int seat, OutMessage msg, int num_legal) {
  const v1::DecisionRequest& request = msg->decision_request();
  const uint64_t decision_id = request.decision_id();
  const std::string& bot = seat_bots_[seat];
  const LinkHost::Route route = RouteSeat(seat);
  const uint64_t cid = route.conn;
  const LinkHost::Absence away = AbsenceOn(seat, route);
  bool need_start = false;
  std::optional<OutMessage> start;
  {
    absl::MutexLock lock(&mu_);
    last_request_[seat] = request.SerializeAsString();
    last_decision_[seat] = decision_id;
    issued_[seat].Push(decision_id);
    Pending& p = pending_[decision_id];
    p.seat = seat;
    p.conn = cid;
    p.num_legal = num_legal;
    p.sent = MonoNow();
    p.left = false;
    p.deadline_ms = request.deadline_ms() + request.time_bank_ms();  // all it may take
    if (cid == 0) {
      if (!away.grace) pending_.erase(decision_id);
    } else {
      // A held MatchStart, or a bot that reconnected mid-match: it is told
      // about the match first.
      need_start = seat_conn_[seat] != cid || start_held_[seat];
      seat_conn_[seat] = cid;
      if (need_start) StartFor(seat, start.emplace().get());
    }
    start_held_[seat] = false;
  }
  if (cid == 0) {
    if (away.grace) {
      StartClockNow(decision_id);
      RecheckKept(seat, decision_id);  // sent with the resync
    } else if (away.down) {
      Fail(seat, decision_id, away.kind, away.detail, absl::ZeroDuration());
    } else {
      Fail(seat, decision_id, v1::FAULT_KIND_UNAVAILABLE,
           absl::StrCat("bot ", bot, " is not connected"), absl::ZeroDuration());
    }
    return;
  }
  msg.OnLeave(weak_from_this(), decision_id);
  if (hub_->SendOn(cid, std::move(msg), /*ask=*/true, std::move(start))) return;
  // The stream closed under us: a newer stream, the grace, or a fault.
  const LinkHost::Route now_route = hub_->RouteOf(bot, cid);
  const uint64_t now_cid = now_route.conn;
  // Still the bot's stream: it is closing, and the hub has not yet been
  // told (a stream marks itself closing before it unregisters). The
  // decision stays on it: the unregistering that follows keeps it for the
  // grace (a resync moves it to the bot's next stream) or fails it
  // (OnBotGone), as for a decision sent just before the stream closed.
  if (now_cid == cid) return;
  const LinkHost::Absence now_away = AbsenceOn(seat, now_route);
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
      again.OnLeave(weak_from_this(), decision_id);
    } else if (grace) {
      p.conn = 0;
    } else {
      waited = MonoNow() - p.sent;
      pending_.erase(it);
    }
  }
  hub_->Unask(cid);
  if (now_cid != 0) {
    hub_->SendOn(now_cid, std::move(again), /*ask=*/true);
    return;
  }
  if (grace) {
    StartClockNow(decision_id);
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

void HubMatchLink::RecheckKept(int seat, uint64_t decision_id) {
  const std::string& bot = seat_bots_[seat];
  if (hub_->CurrentConnection(bot) != 0) return;  // back: the resync takes it
  const LinkHost::Absence away = hub_->AbsenceOf(bot);
  if (away.grace) return;
  absl::Duration waited;
  {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(decision_id);
    if (it == pending_.end() || it->second.conn != 0) return;
    waited = MonoNow() - it->second.sent;
    pending_.erase(it);
  }
  if (away.down) {
    Fail(seat, decision_id, away.kind, away.detail, waited);
  } else {
    Fail(seat, decision_id, v1::FAULT_KIND_DISCONNECTED,
         hub_->GoneDetail(bot), waited);
  }
}

void HubMatchLink::OnLeft(uint64_t decision_id, absl::Time at) {
  int seat = -1;
  {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(decision_id);
    if (it == pending_.end() || it->second.left) return;
    it->second.left = true;
    it->second.sent = at;
    seat = it->second.seat;
  }
  if (std::shared_ptr<Listener> match = listener()) {
    match->OnLeft(seat, decision_id, at);
  }
}

void HubMatchLink::StartClockNow(uint64_t decision_id) {
  absl::Time at;
  int seat = -1;
  {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(decision_id);
    if (it == pending_.end() || it->second.left) return;
    it->second.left = true;
    at = it->second.sent;
    seat = it->second.seat;
  }
  if (std::shared_ptr<Listener> match = listener()) {
    match->OnLeft(seat, decision_id, at);
  }
}

void HubMatchLink::Withdraw(int seat, uint64_t decision_id) {
  uint64_t conn = 0;
  {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(decision_id);
    if (it == pending_.end()) return;
    conn = it->second.conn;
    TimedOut t;
    t.decision_id = decision_id;
    t.bot = seat_bots_[it->second.seat];
    t.deadline_ms = it->second.deadline_ms;
    t.deadline = it->second.sent + absl::Milliseconds(t.deadline_ms);
    timed_out_.Push(std::move(t));
    pending_.erase(it);  // from now on, an answer to it is stale
  }
  if (conn != 0) hub_->Unask(conn);
}

void HubMatchLink::End(int seat, const v1::MatchEnd& end) {
  const uint64_t cid = RouteSeat(seat).conn;
  std::vector<uint64_t> unasked;
  std::optional<OutMessage> start;  // held, the seat never asked
  {
    absl::MutexLock lock(&mu_);
    ended_ = true;
    if (start_held_[seat] && cid != 0 && cid == seat_conn_[seat]) {
      StartFor(seat, start.emplace().get());
    }
    start_held_[seat] = false;
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
  hub_->SendOn(cid, std::move(msg), /*ask=*/false, std::move(start));
}

std::vector<HubMatchLink::TimedOut> HubMatchLink::TimedOutDecisions() const {
  absl::MutexLock lock(&mu_);
  return timed_out_.ToVector();
}

std::string LateText(const std::string& match_id, const HubMatchLink::TimedOut& t,
                     absl::Time now) {
  const int64_t late_ms = std::max<int64_t>(0, absl::ToInt64Milliseconds(now - t.deadline));
  return absl::StrCat("match ", match_id, ": decision ", t.decision_id, " came ", late_ms,
                      " ms after its deadline (", t.deadline_ms,
                      " ms to answer); it had timed out");
}

bool HubMatchLink::OnDecision(BotConnection* conn, const v1::Decision& d) {
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
      issued_[s].ForEach([&](uint64_t id) { asked = asked || id == d.decision_id(); });
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
      reply.think_us = absl::ToInt64Microseconds(MonoNow() - p.sent);
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
        BoundedNote note = BoundNote(d.note());
        reply.note = std::move(note.text);
        reply.note_cut_bytes = note.cut_bytes;
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
  if (kind == v1::NOTICE_KIND_STALE || kind == v1::NOTICE_KIND_UNKNOWN_MATCH) {
    // A late answer to one of this bot's own decisions is told how late it
    // came. Otherwise one kind and one text whatever the reason, so that the
    // notice says nothing about another seat's decision.
    std::string late;
    {
      absl::MutexLock lock(&mu_);
      timed_out_.ForEach([&](const TimedOut& t) {
        if (t.decision_id == d.decision_id() && t.bot == bot) {
          late = LateText(match_id_, t, MonoNow());
        }
      });
    }
    if (!late.empty()) {
      why = kind == v1::NOTICE_KIND_UNKNOWN_MATCH ? absl::StrCat(late, "; the match has ended")
                                                  : std::move(late);
    } else if (kind == v1::NOTICE_KIND_STALE) {
      why = absl::StrCat("match ", match_id_, ": decision ", d.decision_id(),
                         " is not an open decision of this bot");
    }
  }
  if (kind != v1::NOTICE_KIND_UNSPECIFIED) {
    // (Whether an id was asked of this bot is nothing it does not know.)
    // An illegal answer to an open decision is a fault of its own, one per
    // request the referee sent, so it is no flood either.
    const bool counts = !(asked && (kind == v1::NOTICE_KIND_STALE ||
                                    kind == v1::NOTICE_KIND_UNKNOWN_MATCH)) &&
                        !(seat >= 0 && kind == v1::NOTICE_KIND_ILLEGAL);
    conn->SendNotice(kind, d.match_id(), d.decision_id(), why, counts);
  }
  return seat >= 0;
}

void HubMatchLink::Resync(const std::string& bot, uint64_t cid,
                          const std::vector<uint64_t>& kept) {
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
      if (std::find(kept.begin(), kept.end(), seat_conn_[s]) != kept.end()) continue;
      seat_conn_[s] = cid;
      start_held_[s] = false;  // the resync holds it
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
    hub_->SendOn(cid, std::move(seat.msg), /*ask=*/false);
  }
}

void HubMatchLink::OnBotGone(const std::string& bot,
                             const std::function<bool(uint64_t)>& whose,
                             v1::FaultKind kind, const std::string& detail) {
  std::vector<std::tuple<int, uint64_t, absl::Duration>> failed;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = MonoNow();
    for (auto it = pending_.begin(); it != pending_.end();) {
      const Pending& p = it->second;
      if (seat_bots_[p.seat] == bot && whose(p.conn)) {
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

void HubMatchLink::StartFor(int seat, v1::RefereeMessage* msg) {
  StartFor(seat, msg->mutable_match_start());
}

void HubMatchLink::StartFor(int seat, v1::MatchStart* start) {
  *start = start_;
  if (rules_ != nullptr) *start->mutable_rules() = *rules_;
  start->set_seat(seat);
}

void HubMatchLink::Fail(int seat, uint64_t decision_id, v1::FaultKind kind,
                        std::string detail, absl::Duration waited) {
  SeatReply r;
  r.fault = kind;
  r.detail = std::move(detail);
  r.think_us = absl::ToInt64Microseconds(waited);
  Deliver(seat, decision_id, std::move(r));
}

}  // namespace arena
