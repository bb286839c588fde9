// LinkHost: the hub as a match's link (HubMatchLink) sees it: where each bot
// stands (its live stream, else whether it is within its grace or known
// gone), and sending on a stream by its id, with the count of answers each
// stream owes. BotHub implements it; nothing else calls it.
//
// Streams are named by id (0: none), never by pointer: a link holds no
// stream, and a stream that has gone is simply not found.
//
// Ownership and lifetime: the host is not owned by its links and outlives
// every one of them.
//
// Thread safety: every method may be called from any thread; links call
// none with their own mutex held.
#ifndef ARENA_REFEREE_SERVICE_LINK_HOST_H_
#define ARENA_REFEREE_SERVICE_LINK_HOST_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "arena/v1/arena.pb.h"
#include "referee/match/out_message.h"

namespace arena {

class LinkHost {
 public:
  // Where a bot without a live stream stands, for a request to it.
  struct Absence {
    bool grace = false;  // within the reconnect grace: the request waits
    bool down = false;   // known gone: the request fails with kind, detail
    v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;
    std::string detail;
  };

  // The id of the bot's live stream, or 0.
  virtual uint64_t CurrentConnection(const std::string& bot) const = 0;
  // Where a seat of `bot` bound to stream `bound` (0: none yet) is served
  // now. A bot's previous process finishes the matches it started on its
  // own stream while its next one takes new matches (BotHub::PromoteStandby
  // with retire_live), and a seat never moves from the one to the other:
  // `conn` is `bound` while that is the bot's retiring stream; `lost` (and
  // `conn` 0) once that stream has ended with the seat still bound; else
  // the bot's live stream (0: none).
  struct Route {
    uint64_t conn = 0;
    bool lost = false;
  };
  virtual Route RouteOf(const std::string& bot, uint64_t bound) const = 0;
  // Whether a bot with no live stream is within its grace or known gone.
  virtual Absence AbsenceOf(const std::string& bot) const = 0;
  // Queues `msg` on stream `conn_id`; with `ask` (a decision request) the
  // stream is first counted as owed one more answer (Ask below). False if
  // the stream is gone or closing (or was cut off by this message).
  // With `lead` (a MatchStart held for the seat's first request), it is
  // queued just before `msg`, and the two leave in one write.
  virtual bool SendOn(uint64_t conn_id, OutMessage msg, bool ask,
                      std::optional<OutMessage> lead) = 0;
  bool SendOn(uint64_t conn_id, OutMessage msg, bool ask) {
    return SendOn(conn_id, std::move(msg), ask, std::nullopt);
  }
  // Stream `conn_id` is owed (Ask) or no longer owed (Unask) an answer to
  // one more decision (BotConnection::Ask).
  virtual void Ask(uint64_t conn_id) = 0;
  virtual void Unask(uint64_t conn_id) = 0;
  // The detail of a decision failed as DISCONNECTED once the bot is gone.
  virtual std::string GoneDetail(const std::string& bot) const = 0;
  // One shared copy of `rules` for every live match whose rules are the
  // same (a game's card catalogue and options: the same in every match of a
  // tournament), so that a link keeps no copy of its own.
  virtual std::shared_ptr<const v1::Rules> SharedRules(const v1::Rules& rules) = 0;

 protected:
  ~LinkHost() = default;  // not deleted through this interface
};

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_LINK_HOST_H_
