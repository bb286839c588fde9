// BotHub: the referee's side of the bot protocol.
//
// It knows the bot identities (name and token), serves the Referee.Play
// stream on gRPC's callback API (one reactor per connection), and routes
// every Decision to the match that asked for it. Matches reach their bots
// through the SeatLink that NewMatchLink returns.
//
// Bad input never reaches a game: an unknown token ends the stream with
// UNAUTHENTICATED, after a wait that grows with each unknown token from the
// peer's address (a valid token is welcomed at once whatever that wait, so
// a guesser sharing an address with honest bots slows only itself; the
// waiting streams count among those without Hello); a malformed message, a
// decision for an unknown match or for a match the bot holds no seat in, a
// decision id that is not an open decision of the seat (one notice kind,
// STALE, whatever the reason), and an illegal index each get a Notice to the
// bot and a rate-limited log line. None of these touch other bots or matches.
// A repeated or late answer to a decision the bot was asked (one of each
// seat's last 32 requests) is harmless: noticed, not counted as a flood.
//
// Everything a client can make the hub hold is bounded (HubOptions): a
// stream without Hello is closed after hello_timeout; at most
// max_unauthenticated such streams live at once, and a new stream that finds
// them all taken is not refused but makes room (no client can lock honest
// bots out by holding them all): the oldest stream waiting out an unknown
// token's back-off is refused at once (UNAUTHENTICATED, "unknown token", as
// it would have been), else the oldest silent stream is closed (UNAVAILABLE,
// which bots retry; evictions are counted and logged at most every 10 s).
// "Oldest" is by arrival, with no protection by age: a stream without Hello
// is evicted only once it is the oldest silent one and no unknown-token
// stream waits, i.e. after max_unauthenticated streams arrived after it
// while its Hello was still unread (an honest Hello is on its way for a few
// ms; a rule that spared streams younger than some age would instead let a
// client that opens max_unauthenticated streams per that age refuse every
// newcomer). A stream whose valid Hello is read is registered at once and
// never evicted; one evicted while its Hello is being read is not
// registered. Unknown tokens are still slowed (above) for a guesser that leaves
// room; one that fills the room itself gets its refusals early, which tells
// it no more than the missing Welcome already did. A stream's outbound queue
// is bounded in bytes (a bot that does not read is cut off); more than
// invalid_per_second invalid messages in a second (repeated answers aside)
// cut the bot off; ids echoed back are clipped to kMaxEchoedId bytes. A
// cut-off is logged at error level on a budget of its own (the first 5 of a
// bot in 10 s with their reason, then a count with the last reason), counted
// (CutOffs), and fails the bot's open decisions, and its requests until it
// connects again, as CUT_OFF with the reason (no grace).
//
// A bot that owes no answer is read again only with the next message written
// to it, or by the reaper after HubOptions::lazy_read_wait (lazy reads: one
// write and one wake-up of the bot fewer per decision; see OnReadDone in
// bot_connection.cc). What it sends meanwhile is read late, never lost.
//
// A bot has one live stream: a new stream with its token takes over (the
// old one ends with ABORTED). A bot whose stream ends keeps its seats for
// reconnect_grace: its open decisions run on their own deadlines, and when it
// is back (a new stream) it gets a Resync per seat of each live match (its
// MatchStart, its view, its open decisions). After the grace, its open
// decisions fail as DISCONNECTED and new ones as UNAVAILABLE. SetBotDown
// (arena saw the process exit, or withdrew the bot) ends the grace at once.
//
// Each seat is bound to the bot's live stream when its match's link is
// made, and a resync moves it to the bot's next live stream. The exception
// is a bot's next process (ExpectStandby, PromoteStandby with retire_live):
// its stream takes the bot's new matches while the previous one keeps the
// seats bound to it to their end, and those seats never move (a resync
// skips them; if that stream ends, they fail as DISCONNECTED), so that no
// process of the bot is shown a match another process of it played.
//
// Parts (referee/service/): each stream is a BotConnection
// (bot_connection.h), which reaches the hub only through ConnectionHost
// (connection_host.h); each match's link is a HubMatchLink (match_link.h),
// which reaches it only through LinkHost (link_host.h), and the match holds
// it through a LinkHandle (link_handle.h). The hub implements both
// interfaces with private overrides: they are for its own parts, not for its
// users. The hub's own code is split by job: admission (bot_hub_admission.cc),
// the registry of bots, their streams and the reconnect grace
// (bot_hub_registry.cc), the matches' side (bot_hub.cc), the reaper and the
// streams' lifetimes (bot_hub_reaper.cc), the budgets (bot_hub_limits.cc);
// all share one lock, since Register moves a stream from admission into the
// registry in one step.
//
// Thread safety: every method may be called from any thread. The hub must
// outlive the gRPC server it is registered with and every link it made.
#ifndef ARENA_REFEREE_SERVICE_BOT_HUB_H_
#define ARENA_REFEREE_SERVICE_BOT_HUB_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/v1/arena.grpc.pb.h"
#include "referee/match/match_runner.h"
#include "referee/service/connection_host.h"
#include "referee/service/hub_options.h"
#include "referee/service/link_host.h"
#include "referee/service/match_link.h"
#include "spdlog/spdlog.h"

namespace arena {

struct BotIdentity {
  std::string name;
  std::string token;
};

class BotConnection;
class HubMatchLink;

class BotHub final : public ConnectionHost, public LinkHost {
 public:
  explicit BotHub(const std::vector<BotIdentity>& bots,
                  const HubOptions& options = HubOptions());
  ~BotHub();
  BotHub(const BotHub&) = delete;
  BotHub& operator=(const BotHub&) = delete;

  // The service to add to a grpc::ServerBuilder.
  grpc::Service* service();

  bool IsConnected(const std::string& bot) const;
  // Waits until every named bot is connected; false on timeout.
  bool WaitForBots(const std::vector<std::string>& bots,
                   absl::Duration timeout) const;
  // Waits until `bot` is connected; false on timeout.
  bool WaitForBot(const std::string& bot, absl::Duration timeout) const;
  // Number of times `bot` has connected.
  int Connections(const std::string& bot) const;

  // A link for one match; the match id must be unique while it lives.
  std::unique_ptr<SeatLink> NewMatchLink(const std::string& match_id,
                                         const std::vector<std::string>& seat_bots);

  // Told of every match's bots (each once, however many seats it holds)
  // when its link is made (`live` true, on the thread of NewMatchLink, after
  // the link is registered) and when the match lets go of it (false, on the
  // thread that ends the match, before the match's `done` runs), so that a
  // bot's live matches are those told as live and not yet as ended. Called
  // outside the hub's lock; it must not call NewMatchLink. Set it before the
  // first link; links made before are not told (an empty one: none).
  using MatchObserver =
      std::function<void(const std::vector<std::string>& bots, bool live)>;
  void SetMatchObserver(MatchObserver observer);

  // Ends every open stream (the bots see the stream finish); no grace after.
  void CloseAll();

  // The bot's process is known to be gone (arena saw it exit: FAULT_KIND_CRASHED)
  // or the bot was withdrawn from the tournament (FAULT_KIND_NO_SHOW). Its open
  // decisions (on a live stream or kept within the reconnect grace) fail at once
  // with `kind` and `detail`, its grace ends, and until it connects again (a new
  // stream with its token) every new decision request for it fails at once with
  // the same kind and detail instead of waiting or failing as UNAVAILABLE. A live
  // stream of the bot is left alone (a restarted process connects anew).
  //
  // The rule, since the hub cannot tell which process a stream belongs to:
  // if the bot has a live stream when this is called, that stream is taken
  // to be a process that is still there (a restart that already connected),
  // and nothing changes: its decisions stay on it, and the bot is not marked
  // down. Otherwise every open decision of the bot (all are on streams that
  // have ended, or wait for a resync) fails, and the bot is marked down
  // until a new stream of it registers. So a call that comes after the
  // restart connected never fails the restart's decisions; a call that
  // comes before the gone process's stream is seen to end finds it live and
  // leaves it to the grace (call it once the hub no longer shows the bot
  // connected, or again after, if that matters).
  void SetBotDown(const std::string& bot, v1::FaultKind kind,
                  const std::string& detail);

  // A successor process of `bot` is starting, with `token` (one of the
  // bot's, not its current process's), while the bot's current process may
  // still play (arena starts a bot's next process ahead, for a deal its
  // current one has played): a stream with that token is held as the bot's
  // standby, welcomed but sent nothing, taking nothing over and never
  // resynced into a match, until PromoteStandby (a second such stream
  // takes the first one's place as the standby). Streams with the bot's
  // other tokens are as usual.
  void ExpectStandby(const std::string& bot, const std::string& token);
  // Whether the bot's standby stream has registered.
  bool HasStandby(const std::string& bot) const;
  // The bot's standby stream becomes its live one; false if there is none.
  // Ends the expectation either way. The live one before it, if still
  // registered:
  //  - without `retire_live`, ends as replaced (call it once that has no
  //    open decision, e.g. its process stopped);
  //  - with `retire_live`, retires: the seats it holds in live matches stay
  //    on it to their end (LinkHost::RouteOf), and nothing else reaches it
  //    (no new match, no resync); a new stream with its token is refused
  //    from now on (unless ExpectStandby names that token again), so the
  //    previous process can never take the next one's matches over. If it
  //    ends while a seat is still bound to it, that seat's open decision
  //    fails as DISCONNECTED, and so does every later one of the seat: its
  //    match is never moved to another process of the bot (which may be
  //    about to play the same deal). A bot may have several retiring
  //    streams (each rotation of a deal on a process of its own).
  bool PromoteStandby(const std::string& bot, bool retire_live = false);
  // Whether the bot's retiring stream whose token is `token` (PromoteStandby)
  // is still registered and still holds a seat in a live match.
  bool RetiringBusy(const std::string& bot, const std::string& token) const;
  // The bot's retiring stream whose token is `token`, once it holds no
  // seat (RetiringBusy is false), becomes its standby again, as if it had
  // just registered after ExpectStandby(bot, token): arena keeps a process
  // that finished its matches and hands it a later deal it has not met.
  // False (nothing changed) if that stream is not retiring any more (it
  // ended), still holds a seat, or the bot has a standby already.
  bool RestoreStandby(const std::string& bot, const std::string& token);
  // No standby is expected any more, and one registered is ended (its
  // process is being stopped).
  void CancelStandby(const std::string& bot);

  // Ends the bot's live stream as a network failure would (the bot sees
  // UNAVAILABLE, which bots retry), for `arena check-bot`'s reconnect check.
  // Its seats are kept for the reconnect grace as for any stream that ends:
  // its open decisions, and requests due meanwhile, wait for its next stream
  // and come back in the Resync. False if the bot has no live stream.
  bool DropStream(const std::string& bot);

  // Queues `notice` on the bot's live stream, as it is, for `arena
  // check-bot`'s notice check (the bot did nothing wrong: it does not count
  // against its budget of invalid messages, and nothing is logged). False if
  // the bot has no live stream or it is closing.
  bool SendNotice(const std::string& bot, const v1::Notice& notice);

  // Whether `bot` still owes the answer to a decision of an ended match that
  // timed out less than `within` ago: its process is behind (stalled, or
  // starved of a core), so a match started for it now would start its
  // clock into the same stall. The answer coming, late, settles it.
  bool OwesLateAnswer(const std::string& bot, absl::Duration within) const;

  // Streams that have not (yet) sent a valid Hello.
  int Unauthenticated() const;
  // Streams without Hello evicted to make room for a newer one (for tests
  // and logs).
  int Evicted() const;
  // Times a bot was cut off for a full outbound queue or for too many
  // invalid messages (for tests and logs).
  int CutOffs(const std::string& bot) const;
  // Why the bot was last cut off (the reason CutOffs counted), or "" if it
  // never was.
  std::string LastCutOffReason(const std::string& bot) const;

 private:
  class Service;

  // ---- Admission (bot_hub_admission.cc): streams before their Hello.

  struct PeerState {         // token guessing, per peer address
    int failures = 0;        // unknown tokens in a row (reset after a quiet spell)
    absl::Time last_failure;
    absl::Time last_log;
    int unlogged = 0;
  };
  // A stream before its Hello is welcomed: when it was opened, and, once it
  // sent an unknown token, when it is refused (the address's back-off).
  // `arrival` orders them for eviction (Add).
  struct HelloWait {
    absl::Time created;
    uint64_t arrival = 0;
    absl::Time refuse_at = absl::InfiniteFuture();
  };

  // SHA-256 of `token`, as kept in token_digests_.
  static std::string TokenDigest(const std::string& token);
  // ConnectionHost: a new stream takes a place among those without Hello,
  // evicting the oldest if they are all taken; false if it may not.
  bool Add(BotConnection* conn) override;
  // ConnectionHost: the stream's Hello; registers it (see the registry
  // below) for a valid token, else sets its refusal after the back-off.
  absl::Status Register(BotConnection* conn, const std::string& token) override;
  // The line about evictions since the last one, if due (then reset).
  std::string EvictionLogLine(absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- Registry (bot_hub_registry.cc): bots, their streams and absences.

  struct BotState {
    BotConnection* live = nullptr;
    bool away = false;       // disconnected, within the grace
    absl::Time away_since;
    uint64_t last_conn = 0;  // id of its latest stream
    // Known gone (SetBotDown, or cut off): with no live stream, new requests
    // fail at once with this kind and detail; cleared by its next stream.
    bool down = false;
    v1::FaultKind down_kind = v1::FAULT_KIND_UNSPECIFIED;
    std::string down_detail;
    // ExpectStandby: the digest of the token whose streams are held here
    // (welcomed, sent nothing) until PromoteStandby, and the one held.
    std::string standby_digest;
    BotConnection* standby = nullptr;
    // PromoteStandby(retire_live): previous processes' streams, each kept
    // for the seats bound to it, by its token's digest; and the digests
    // refused from then on.
    std::map<std::string, BotConnection*> retiring;
    std::string live_digest;  // of the live stream's token
    std::set<std::string> retired_digests;
    // Retiring streams that ended with a seat still bound: such seats have
    // lost their process (RouteOf). Only such ends add one.
    std::set<uint64_t> lost;
  };

  // ConnectionHost and LinkHost (see connection_host.h, link_host.h).
  void ResyncBot(const std::string& bot, uint64_t conn_id) override;
  void Unregister(BotConnection* conn) override;
  uint64_t CurrentConnection(const std::string& bot) const override;
  Route RouteOf(const std::string& bot, uint64_t bound) const override;
  // The live matches in which `bot` holds a seat.
  std::vector<std::shared_ptr<HubMatchLink>> LinksOfLocked(const std::string& bot) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The streams of the bot whose seats stay where they are (its retiring
  // streams and its lost ones), for Resync and BotGone.
  std::vector<uint64_t> KeptStreamsLocked(const BotState& b) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Absence AbsenceOf(const std::string& bot) const override;
  std::string GoneDetail(const std::string& bot) const override;
  // Fails the bot's open decisions on its streams up to `last_conn` (and
  // those waiting for a resync) with `kind` and `detail`, but for those on
  // its retiring streams. With `only` (a retiring stream that ended), just
  // those on stream `only`.
  void BotGone(const std::string& bot, uint64_t last_conn, v1::FaultKind kind,
               const std::string& detail, uint64_t only = 0);
  // `conn` (registered) becomes `bot`'s live stream, in `b`: a new process,
  // or the same one back, asked again. Returns the live stream before it.
  BotConnection* MakeLiveLocked(const std::string& bot, BotState& b, BotConnection* conn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A registered stream that takes nothing more: marked closing with `why`
  // (before anything may hang it up, so that it is told why), no longer
  // found by its id, and pinned until EndOutOfService shuts it down
  // (called once mu_ is let go).
  void OutOfServiceLocked(BotConnection* conn, const grpc::Status& why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EndOutOfService(BotConnection* conn, const grpc::Status& why);

  // ---- Matches (bot_hub.cc): links, decisions routed to them, sends.

  // ConnectionHost and LinkHost (see connection_host.h, link_host.h).
  bool OnDecision(BotConnection* conn, const v1::Decision& d) override;
  using LinkHost::SendOn;
  bool SendOn(uint64_t conn_id, OutMessage msg, bool ask,
              std::optional<OutMessage> lead) override;
  void Ask(uint64_t conn_id) override;
  void Unask(uint64_t conn_id) override;
  std::shared_ptr<const v1::Rules> SharedRules(const v1::Rules& rules) override;
  void RemoveLink(const std::string& match_id,
                  const std::shared_ptr<const MatchObserver>& observer,
                  const std::vector<std::string>& bots);
  // One of the bot's recent timeouts is answered or forgotten.
  void SettleLate(const std::string& bot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // ---- Streams' lifetimes and the reaper (bot_hub_reaper.cc).

  // ConnectionHost: pins a closing stream for a second (see connection_host.h).
  void Drain(BotConnection* conn) override;
  // ConnectionHost: gRPC is done with it; deleted when unpinned.
  void Retire(BotConnection* conn) override;
  // Lets go of a pin on `conn`: deleted if gRPC is done with it and no one
  // else holds one.
  void Unpin(BotConnection* conn);
  // Every 100 ms until stop_: the five timers (see bot_hub_reaper.cc).
  void ReaperLoop();

  // ---- Budgets (bot_hub_limits.cc): log lines, invalid messages, cut-offs.

  struct LogBudget {
    absl::Time window;
    int lines = 0;
    int suppressed = 0;
    absl::Time invalid_window;
    int invalid = 0;
    // Cut-offs have a budget of their own (kCutOffLinesPer10s): the line that
    // says why a bot lost its matches is never eaten by its other warnings,
    // and a bot cut off again and again cannot fill the log. Past the budget
    // they are counted, and the count and the last reason logged (at error
    // level) once the window has passed.
    absl::Time cut_window;
    int cut_lines = 0;
    int cut_unlogged = 0;
    std::string cut_reason;
  };
  static constexpr int kCutOffLinesPer10s = 5;

  // ConnectionHost (see connection_host.h).
  void MarkCutOff(BotConnection* conn, const std::string& reason) override;
  void Warn(const std::string& who, const std::string& text) override;
  bool NoteInvalid(const std::string& bot) override;
  // A log line about `who`, rate-limited per `who` (HubOptions); Warn at
  // warning level.
  void Log(const std::string& who, spdlog::level::level_enum level,
           const std::string& text);
  // The level of a connect or disconnect line (HubOptions::connections_at_info).
  spdlog::level::level_enum ConnectionLevel() const {
    return options_.connections_at_info ? spdlog::level::info : spdlog::level::debug;
  }

  // ---- State: one lock (mu_) over all but the shared rules.

  const HubOptions options_;
  std::unique_ptr<Service> service_;
  // SHA-256 of each token, compared in constant time.
  std::vector<std::pair<std::string, std::string>> token_digests_;
  mutable absl::Mutex mu_;
  // Held through a ResyncBot (taken before mu_, never while holding it).
  absl::Mutex resync_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  // Admission.
  std::map<BotConnection*, HelloWait> unauthenticated_ ABSL_GUARDED_BY(mu_);
  uint64_t next_arrival_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, PeerState> peers_ ABSL_GUARDED_BY(mu_);
  // Evictions for a full cap: in all, and since the last log line (of
  // which unknown-token streams), logged at most every 10 s.
  int evicted_ ABSL_GUARDED_BY(mu_) = 0;
  int evicted_unlogged_ ABSL_GUARDED_BY(mu_) = 0;
  int evicted_unlogged_refused_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time evicted_logged_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // Registry.
  std::map<std::string, BotState> bots_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> connect_count_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, BotConnection*> by_id_ ABSL_GUARDED_BY(mu_);
  uint64_t next_conn_id_ ABSL_GUARDED_BY(mu_) = 0;
  bool closing_all_ ABSL_GUARDED_BY(mu_) = false;
  // Matches.
  std::map<std::string, std::shared_ptr<HubMatchLink>> links_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const MatchObserver> match_observer_ ABSL_GUARDED_BY(mu_);
  // The timeouts of matches that have ended (RemoveLink), latest last, so
  // that a late answer to one is told how late it came.
  static constexpr size_t kRecentTimeoutsKept = 4096;
  struct RecentTimeout {
    HubMatchLink::TimedOut decision;
    bool answered = false;  // its late answer came
  };
  std::map<std::pair<std::string, uint64_t>, RecentTimeout> recent_timeouts_
      ABSL_GUARDED_BY(mu_);
  // Per bot: its recent timeouts not yet answered, and the latest deadline
  // among them (OwesLateAnswer).
  struct LateOwed {
    int count = 0;
    absl::Time latest_deadline = absl::InfinitePast();
  };
  std::map<std::string, LateOwed> late_owed_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<std::string, uint64_t>> recent_timeouts_order_ ABSL_GUARDED_BY(mu_);
  // SharedRules: by the rules' deterministic encoding, while a match holds
  // them (expired entries go when there are more than kSharedRulesKept).
  static constexpr size_t kSharedRulesKept = 16;
  absl::Mutex rules_mu_;  // held alone
  std::map<std::string, std::weak_ptr<const v1::Rules>> shared_rules_
      ABSL_GUARDED_BY(rules_mu_);
  // Budgets.
  std::map<std::string, LogBudget> budgets_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> cut_offs_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> last_cut_reason_ ABSL_GUARDED_BY(mu_);
  // Streams' lifetimes and the reaper.
  std::vector<std::pair<BotConnection*, absl::Time>> draining_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread reaper_;  // last: it runs on all of the above
};

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_BOT_HUB_H_
