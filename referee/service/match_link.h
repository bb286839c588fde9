// HubMatchLink: the link of one match to its bots over the hub. It keeps the
// match's open decisions, by decision id (each with the stream it waits on,
// 0 while the bot is away within its grace), and what a resync needs of each
// seat (its latest request; the events come from the match, which reads
// them back from its sent log, referee/match/sent_log.h). Nothing here grows with the match. It sends
// through the hub (LinkHost), by stream id; answers come from the hub
// (OnDecision), which also tells it when a bot is back (Resync) or gone for
// good (OnBotGone). Answers and faults are handed to the match (Deliver)
// outside mu_.
//
// Ownership and lifetime: shared by the hub (while the match runs, for
// routing) and the match's LinkHandle (link_handle.h), whose destruction
// unregisters it; the host outlives it.
//
// Thread safety: every method may be called from any thread; mu_ is never
// held while calling the host or the match.
#ifndef ARENA_REFEREE_SERVICE_MATCH_LINK_H_
#define ARENA_REFEREE_SERVICE_MATCH_LINK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/v1/arena.pb.h"
#include "referee/match/match_runner.h"
#include "referee/service/link_host.h"
#include "referee/service/recent_values.h"

namespace arena {

class BotConnection;

class HubMatchLink : public SeatLink,
                     public LeaveObserver,
                     public std::enable_shared_from_this<HubMatchLink> {
 public:
  // `bound`: each seat's stream when the match is made (0: none), where it
  // stays while that stream is the bot's live or retiring one
  // (LinkHost::RouteOf).
  HubMatchLink(LinkHost* hub, std::string match_id,
               std::vector<std::string> seat_bots, std::vector<uint64_t> bound);

  // Whether `bot` holds a seat in this match.
  bool Has(const std::string& bot) const;
  // Whether a seat of `bot` is bound to stream `conn` in this match, which
  // has not ended.
  bool Holds(const std::string& bot, uint64_t conn) const;

  // SeatLink.
  void Start(int seat, const v1::MatchStart& start) override;
  // Holds the MatchStart until the seat's first request (or its MatchEnd),
  // and queues the two together.
  void StartBeforeRequest(int seat, const v1::MatchStart& start) override;
  bool ReportsLeaving() const override { return true; }
  void Send(int seat, OutMessage msg, int num_legal) override;
  void Withdraw(int seat, uint64_t decision_id) override;
  void End(int seat, const v1::MatchEnd& end) override;

  // True if `d` closed an open decision of `conn` (answered it, legally or
  // not).
  bool OnDecision(BotConnection* conn, const v1::Decision& d);

  // The bot is back on stream `cid`: for each seat it holds, but those
  // bound to a stream in `kept` (its previous process's), its MatchStart,
  // its view and its open decisions.
  void Resync(const std::string& bot, uint64_t cid, const std::vector<uint64_t>& kept = {});

  // The bot's streams for which `whose` is true (0: its decisions waiting
  // for a resync) are gone for good: its open decisions on them fail with
  // `kind`, `detail`.
  void OnBotGone(const std::string& bot, const std::function<bool(uint64_t)>& whose,
                 v1::FaultKind kind, const std::string& detail);

  // A decision of the match that timed out (Withdraw): whose it was and
  // when its deadline passed, so that an answer that comes after it is told
  // how late it was (LateText) rather than only that it is stale.
  struct TimedOut {
    uint64_t decision_id = 0;
    std::string bot;
    absl::Time deadline;
    int64_t deadline_ms = 0;  // the time the bot had for it
  };
  // LeaveObserver: request `decision_id` was handed to gRPC; its clock
  // (think time, deadline) starts now, here and in the match.
  void OnLeft(uint64_t decision_id, absl::Time at) override;

  // The match's latest timeouts (at most kTimedOutKept), for the hub to keep
  // once the match has ended (BotHub::RemoveLink).
  std::vector<TimedOut> TimedOutDecisions() const;

 private:
  struct Pending {
    int seat = 0;
    uint64_t conn = 0;  // 0: waiting for the bot to come back
    int num_legal = 0;
    absl::Time sent;    // when it left (OnLeft), until then when queued
    bool left = false;  // OnLeft has been told
    int64_t deadline_ms = 0;
  };

  void DoStart(int seat, const v1::MatchStart& start, bool hold);
  // Where the seat is served now (LinkHost::RouteOf of its bound stream).
  LinkHost::Route RouteSeat(int seat) const;
  // Where the seat's bot stands for a request on `route` with no stream
  // (a lost seat: down, DISCONNECTED, saying why); nothing if it has one.
  LinkHost::Absence AbsenceOn(int seat, const LinkHost::Route& route) const;

  // Starts the clock of a request that will not be written as such (kept
  // for a bot within its grace: a resync sends it), as if it were leaving
  // now.
  void StartClockNow(uint64_t decision_id);

  // A decision just kept for the bot's return (its stream 0): if meanwhile
  // the bot was marked down or its grace ended, the hub may already have
  // failed the bot's kept decisions (SetBotDown, the reaper) without this
  // one, which then fails here rather than on its deadline. (The hub marks
  // the bot before it fails what is kept, so one of the two sees it.)
  void RecheckKept(int seat, uint64_t decision_id);

  // The seat's MatchStart.
  void StartFor(int seat, v1::RefereeMessage* msg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartFor(int seat, v1::MatchStart* start) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Hands a fault to the match (not under mu_).
  void Fail(int seat, uint64_t decision_id, v1::FaultKind kind,
            std::string detail, absl::Duration waited);

  LinkHost* const hub_;
  const std::string match_id_;
  const std::vector<std::string> seat_bots_;
  mutable absl::Mutex mu_;
  std::map<uint64_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> seat_conn_ ABSL_GUARDED_BY(mu_);
  // The match's MatchStart without its rules, which are shared with every
  // match that has the same (LinkHost::SharedRules); both set by the first
  // DoStart.
  v1::MatchStart start_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const v1::Rules> rules_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> started_ ABSL_GUARDED_BY(mu_);
  // Per seat: its MatchStart is held for its first request (or MatchEnd).
  std::vector<bool> start_held_ ABSL_GUARDED_BY(mu_);
  // Per seat: its latest request (serialized) and its decision id.
  std::vector<std::string> last_request_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> last_decision_ ABSL_GUARDED_BY(mu_);
  // Per seat: the ids of its latest kIssuedKept requests (OnDecision: a
  // repeated or late answer to one of them is not counted as a flood).
  static constexpr size_t kIssuedKept = 32;
  std::vector<RecentValues<uint64_t, kIssuedKept>> issued_ ABSL_GUARDED_BY(mu_);
  static constexpr size_t kTimedOutKept = 32;
  RecentValues<TimedOut, kTimedOutKept> timed_out_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

// The notice text for an answer to `t` that came at `now`: "match M:
// decision D came 40 ms after its deadline (2000 ms to answer); it had timed
// out". Only ever sent to t.bot, about its own decision.
std::string LateText(const std::string& match_id, const HubMatchLink::TimedOut& t,
                     absl::Time now);

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_MATCH_LINK_H_
