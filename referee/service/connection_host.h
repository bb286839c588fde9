// ConnectionHost: the hub as a bot's stream (BotConnection) sees it, and all
// a stream may ask of it: to be admitted, registered for a token, resynced,
// cut off, unregistered and retired, to route a Decision, to log, and to
// count invalid messages. BotHub implements it; nothing else calls it.
//
// Ownership and lifetime: the host is not owned by its connections and
// outlives every one of them (the hub outlives the gRPC server).
//
// Thread safety: every method may be called from any thread (from the
// stream's gRPC reactions); none is called with the stream's own mutex held.
#ifndef ARENA_REFEREE_SERVICE_CONNECTION_HOST_H_
#define ARENA_REFEREE_SERVICE_CONNECTION_HOST_H_

#include <string>

#include "absl/status/status.h"
#include "arena/v1/arena.pb.h"
#include "spdlog/spdlog.h"

namespace arena {

class BotConnection;

class ConnectionHost {
 public:
  // A new stream; at the cap it evicts the oldest stream without Hello
  // (unknown-token ones first). False only once CloseAll has run (or with
  // a cap of 0).
  virtual bool Add(BotConnection* conn) = 0;
  // Checks the token; on success the stream is the bot's (taking over from
  // an older one) and its Welcome is queued. An unknown token is an error,
  // and the reaper refuses the stream once its address's back-off is over.
  virtual absl::Status Register(BotConnection* conn,
                                const std::string& token) = 0;
  // Sends the bot a Resync for every live match it holds a seat in, on
  // `conn_id` if that is still the bot's live stream (a standby, or a
  // stream another took over from since its Hello, gets nothing).
  virtual void ResyncBot(const std::string& bot, uint64_t conn_id) = 0;
  // `conn` is being cut off for `reason`: counted, logged (on the cut-off
  // budget, never the bot's warning budget), and its unregistering fails
  // the bot's open decisions as CUT_OFF and marks it down until it
  // connects again.
  virtual void MarkCutOff(BotConnection* conn, const std::string& reason) = 0;
  // The stream is gone (closed, cut off, or done): the bot is away, down or
  // gone (no-op if the stream was not, or no longer is, the bot's).
  virtual void Unregister(BotConnection* conn) = 0;
  // From OnDone: gRPC is done with `conn`; the host deletes it once no one
  // holds a pin on it.
  virtual void Retire(BotConnection* conn) = 0;
  // Routes `d` to its match. True if it closed an open decision of `conn`.
  virtual bool OnDecision(BotConnection* conn, const v1::Decision& d) = 0;
  // A warning about `who`, rate-limited per `who` (HubOptions).
  virtual void Warn(const std::string& who, const std::string& text) = 0;
  // Counts an invalid message of `bot`; false once over the budget.
  virtual bool NoteInvalid(const std::string& bot) = 0;
  // A stream ending with a last write in flight: cancelled if still not
  // finished after a second.
  virtual void Drain(BotConnection* conn) = 0;

 protected:
  ~ConnectionHost() = default;  // not deleted through this interface
};

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_CONNECTION_HOST_H_
