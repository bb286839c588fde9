// A person at the terminal as a bot: `arena play`'s human seat.
//
// TerminalPlayer is a gRPC client of the referee like any bot (Hello with
// its token, one stream), living in arena's own process: it sees only what
// the referee sends its seat. At each DecisionRequest it prints the seat's
// view in words with card names (arena/views/replay.h), the events since its
// previous decision, the legal moves numbered 1..N (each by the game's own
// label, as records and replays give it) and the time left, then
// reads a line from `input_fd`: a number in 1..N is sent as the decision;
// anything else is refused with a one-line error and the time left, and
// asked again; `q` (or the end of the input) leaves the match: the stream is
// closed, which the referee records as the seat's fault (DISCONNECTED, a
// forfeit). An answer typed after the deadline is sent all the same and is
// the referee's usual timeout (its record says so; the late answer gets a
// notice).
//
// Card names come from a reference State the player makes from MatchStart's
// game, options and seats (the seed is irrelevant: only the catalogue and
// the game's words for events and actions are used); if its rules differ
// from MatchStart's, cards are shown by id and moves by their fields.
//
// Ownership and threads: Connect starts one reader thread (the stream's
// messages); Play runs on the caller's thread; the destructor closes the
// stream and joins the reader. Output goes to `out` from Play only (and
// from the reader for nothing). One match per player.
#ifndef ARENA_ARENA_CLI_TERMINAL_PLAYER_H_
#define ARENA_ARENA_CLI_TERMINAL_PLAYER_H_

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/v1/arena.grpc.pb.h"
#include "arena/v1/replay.pb.h"
#include "grpcpp/grpcpp.h"
#include "referee/game_api/game.h"

namespace arena {

// "9:58" for a duration (minutes and seconds, rounded down); under 10 s in
// tenths ("4.2s", "500ms", "0" once past).
std::string MinutesSeconds(absl::Duration d);

class TerminalPlayer {
 public:
  TerminalPlayer(std::string token, int input_fd, std::ostream* out);
  ~TerminalPlayer();
  TerminalPlayer(const TerminalPlayer&) = delete;
  TerminalPlayer& operator=(const TerminalPlayer&) = delete;

  // Opens the stream to the referee at `address` (a gRPC target) and starts
  // reading it. Returns at once.
  void Connect(const std::string& address);

  // Plays the seat's decisions until the match ends, the stream ends, the
  // person leaves, or `over()` says the referee is done. Returns true if the
  // person left (q or end of input).
  bool Play(const std::function<bool()>& over);

  // Closes the stream (if still open) and joins the reader. Idempotent.
  void Close();

 private:
  enum class Input { kLine, kEnd, kNothing };
  // A line from the input if one comes within `wait` (kNothing otherwise;
  // kEnd at the end of the input).
  Input ReadLine(absl::Duration wait, std::string* line);
  void ReadStream();
  // Whether play must stop: the match or the stream ended, or `over()`.
  bool Finished(const std::function<bool()>& over);
  void PrintStart(const v1::MatchStart& start);
  void PrintRequest(const v1::DecisionRequest& request, absl::Duration left);
  // Prompts for one decision; false if the person left.
  bool Decide(const v1::DecisionRequest& request, absl::Time deadline,
              const std::function<bool()>& over);
  void Send(const v1::BotMessage& message);

  const std::string token_;
  const int input_fd_;
  std::ostream* const out_;
  std::string pending_input_;  // read but not yet a whole line
  bool input_ended_ = false;

  std::unique_ptr<v1::Referee::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BotMessage, v1::RefereeMessage>> stream_;
  std::thread reader_;
  absl::Mutex write_mu_;

  absl::Mutex mu_;
  struct Request {
    v1::DecisionRequest request;
    absl::Time deadline;
  };
  std::deque<Request> requests_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::MatchStart> start_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> notices_ ABSL_GUARDED_BY(mu_);
  bool match_ended_ ABSL_GUARDED_BY(mu_) = false;
  bool stream_ended_ ABSL_GUARDED_BY(mu_) = false;

  // Play's own: the match as the seat knows it.
  bool started_ = false;
  int seat_ = -1;
  std::vector<std::string> seat_bots_;
  std::unique_ptr<State> reference_;  // for the game's words of events
  std::vector<v1::ReplayCard> cards_;
};

}  // namespace arena

#endif  // ARENA_ARENA_CLI_TERMINAL_PLAYER_H_
