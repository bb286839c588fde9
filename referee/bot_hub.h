// BotHub: the referee's side of the bot protocol.
//
// It knows the bot identities (name and token), serves the Referee.Play
// stream on gRPC's callback API (one reactor per connection), and routes
// every Decision to the match that asked for it. Matches reach their bots
// through the SeatLink that NewMatchLink returns.
//
// Bad input never reaches a game: an unknown token ends the stream with
// UNAUTHENTICATED; a second live connection of one identity ends with
// ALREADY_EXISTS; a malformed message, a decision for an unknown match, a
// stale (late or repeated) decision, an illegal index or a decision for a seat
// the bot does not hold each get a Notice to the bot and a log line; a
// disconnection turns the bot's pending decisions into faults. None of these
// touch other bots or other matches.
//
// Thread safety: every method may be called from any thread. The hub must
// outlive the gRPC server it is registered with and every link it made.
#ifndef ARENA_REFEREE_BOT_HUB_H_
#define ARENA_REFEREE_BOT_HUB_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/v1/arena.grpc.pb.h"
#include "referee/match_runner.h"

namespace arena {

struct BotIdentity {
  std::string name;
  std::string token;
};

class BotConnection;
class HubMatchLink;

class BotHub {
 public:
  explicit BotHub(const std::vector<BotIdentity>& bots);
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

  // Ends every open stream (the bots see the stream finish).
  void CloseAll();

 private:
  friend class BotConnection;
  friend class HubMatchLink;
  class Service;

  // Called by connections.
  absl::Status Register(BotConnection* conn, const std::string& token,
                        std::string* bot_name);
  void Unregister(BotConnection* conn);
  void OnDecision(BotConnection* conn, const v1::Decision& d);
  // Called by links.
  uint64_t CurrentConnection(const std::string& bot) const;
  bool SendOn(uint64_t conn_id, OutMessage msg);
  void RemoveLink(const std::string& match_id);

  std::unique_ptr<Service> service_;
  std::map<std::string, std::string> token_to_bot_;
  mutable absl::Mutex mu_;
  std::map<std::string, BotConnection*> live_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> connect_count_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, BotConnection*> by_id_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<HubMatchLink>> links_ ABSL_GUARDED_BY(mu_);
  uint64_t next_conn_id_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace arena

#endif  // ARENA_REFEREE_BOT_HUB_H_
