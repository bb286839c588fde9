// A bot that misbehaves on purpose, for the end-to-end tests: it answers
// like a bot should for a while, then crashes (exits) or hangs.
//   bad_bot --mode=crash_after --n=3   exits with code 3 at its 4th decision
//   bad_bot --mode=hang_after --n=3    stops answering after 3 decisions
#include <cstdlib>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "arena/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, mode, "crash_after", "crash_after or hang_after");
ABSL_FLAG(int, n, 3, "decisions answered before misbehaving");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token = std::getenv("ARENA_TOKEN");
  if (!address || !token) return 2;
  auto stub = arena::v1::Referee::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  auto stream = stub->Play(&ctx);
  arena::v1::BotMessage hello;
  hello.mutable_hello()->set_token(token);
  stream->Write(hello);
  arena::v1::RefereeMessage m;
  int answered = 0;
  const std::string mode = absl::GetFlag(FLAGS_mode);
  while (stream->Read(&m)) {
    if (!m.has_decision_request()) continue;
    if (answered >= absl::GetFlag(FLAGS_n)) {
      if (mode == "crash_after") std::_Exit(3);
      continue;  // hang: read on, answer nothing
    }
    ++answered;
    arena::v1::BotMessage d;
    d.mutable_decision()->set_match_id(m.decision_request().match_id());
    d.mutable_decision()->set_decision_id(m.decision_request().decision_id());
    d.mutable_decision()->set_action_index(0);
    stream->Write(d);
  }
  return 0;
}
