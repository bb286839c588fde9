#include "bots/sdk/bot.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "openssl/sha.h"
#include "referee/clock/mono_clock.h"
#include "referee/records/bot_note.h"
#include "absl/synchronization/mutex.h"
#include "arena/v1/arena.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "spdlog/spdlog.h"

namespace arena::bots {
namespace {

// The note the policy running on this thread set (SetNote).
thread_local std::string current_note;

// A small FIFO of decisions for the worker threads.
class Queue {
 public:
  void Push(v1::DecisionRequest r) {
    absl::MutexLock lock(&mu_);
    items_.push_back(std::move(r));
  }
  // Blocks; false when closed and empty.
  bool Pop(v1::DecisionRequest* out) {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](Queue* q) ABSL_EXCLUSIVE_LOCKS_REQUIRED(q->mu_) {
          return q->closed_ || !q->items_.empty();
        },
        this));
    if (items_.empty()) return false;
    *out = std::move(items_.front());
    items_.erase(items_.begin());
    return true;
  }
  void Close() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }

 private:
  absl::Mutex mu_;
  std::vector<v1::DecisionRequest> items_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// Seed commitments checked at MatchEnd (VerifySeedCommitment).
struct CommitmentTally {
  int64_t verified = 0, failed = 0;
};

// The MatchStart of each live match, by match id.
using MatchStarts = std::map<std::string, std::shared_ptr<const v1::MatchStart>>;

// What a policy is given for a request of a match it never saw start.
const std::shared_ptr<const v1::MatchStart>& NoMatchStart() {
  static const auto* none =
      new std::shared_ptr<const v1::MatchStart>(std::make_shared<v1::MatchStart>());
  return *none;
}

// One stream, from Hello to its end. `matches` (by match id) outlives it, so
// that a reconnect plays on; `welcomed` says whether the referee took us.
grpc::Status PlayOnce(const BotOptions& options, const Policy& policy,
                      const std::shared_ptr<grpc::Channel>& channel,
                      absl::Mutex& matches_mu,
                      MatchStarts& matches,
                      bool* welcomed, CommitmentTally* commitments) {
  auto stub = v1::Referee::NewStub(channel);
  grpc::ClientContext ctx;
  auto stream = stub->Play(&ctx);

  absl::Mutex write_mu;
  auto write = [&](const v1::BotMessage& m) {
    absl::MutexLock lock(&write_mu);
    stream->Write(m);
  };
  v1::BotMessage hello;
  hello.mutable_hello()->set_token(options.token);
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_client(options.client);
  write(hello);

  // A match's start is shared, not copied, for each of its decisions.
  auto decide = [&](const v1::DecisionRequest& req) {
    std::shared_ptr<const v1::MatchStart> start;
    {
      absl::MutexLock lock(&matches_mu);
      auto it = matches.find(req.match_id());
      if (it != matches.end()) start = it->second;
    }
    if (start == nullptr) start = NoMatchStart();
    v1::BotMessage out;
    v1::Decision* d = out.mutable_decision();
    d->set_match_id(req.match_id());
    d->set_decision_id(req.decision_id());
    current_note.clear();
    d->set_action_index(policy(*start, req));
    if (!current_note.empty()) d->set_note(ValidUtf8Prefix(current_note, kMaxSentNoteBytes));
    current_note.clear();
    write(out);
  };

  Queue queue;
  std::vector<std::thread> workers;
  for (int i = 1; i < options.threads; ++i) {
    workers.emplace_back([&] {
      v1::DecisionRequest r;
      while (queue.Pop(&r)) decide(r);
    });
  }

  v1::RefereeMessage msg;
  while (stream->Read(&msg)) {
    switch (msg.kind_case()) {
      case v1::RefereeMessage::kWelcome:
        spdlog::info("connected as {}", msg.welcome().bot_name());
        *welcomed = true;
        break;
      case v1::RefereeMessage::kResync: {
        // Back after a reconnect: the match, the view so far, and the
        // decisions still open (answered like any request).
        {
          absl::MutexLock lock(&matches_mu);
          matches[msg.resync().match_id()] =
              std::make_shared<const v1::MatchStart>(msg.resync().match_start());
        }
        for (auto& r : *msg.mutable_resync()->mutable_open_decisions()) {
          if (workers.empty()) {
            decide(r);
          } else {
            queue.Push(std::move(r));
          }
        }
        break;
      }
      case v1::RefereeMessage::kMatchStart: {
        absl::MutexLock lock(&matches_mu);
        std::string id = msg.match_start().match_id();
        matches[std::move(id)] = std::make_shared<const v1::MatchStart>(
            std::move(*msg.mutable_match_start()));
        break;
      }
      case v1::RefereeMessage::kDecisionRequest:
        if (workers.empty()) {
          decide(msg.decision_request());
        } else {
          queue.Push(std::move(*msg.mutable_decision_request()));
        }
        break;
      case v1::RefereeMessage::kMatchEnd: {
        std::shared_ptr<const v1::MatchStart> start;
        {
          absl::MutexLock lock(&matches_mu);
          auto it = matches.find(msg.match_end().match_id());
          if (it == matches.end()) break;
          start = std::move(it->second);
          matches.erase(it);
        }
        // A bot filling several seats gets one MatchEnd per seat: check once.
        if (absl::Status s = VerifySeedCommitment(*start, msg.match_end());
            !s.ok()) {
          ++commitments->failed;
          spdlog::error("{}", std::string(s.message()));
        } else {
          ++commitments->verified;
        }
        break;
      }
      case v1::RefereeMessage::kNotice:
        spdlog::warn("referee notice: {}", msg.notice().message());
        break;
      default:
        break;
    }
  }
  queue.Close();
  for (auto& w : workers) w.join();
  {
    absl::MutexLock lock(&write_mu);
    stream->WritesDone();
  }
  return stream->Finish();
}

// The credentials for the referee: TLS with the CA in `tls_ca` (a PEM file),
// else plaintext.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> Credentials(
    const BotOptions& options) {
  if (options.tls_ca.empty()) return grpc::InsecureChannelCredentials();
  std::ifstream in(options.tls_ca);
  std::stringstream pem;
  pem << in.rdbuf();
  if (!in || pem.str().find("-----BEGIN") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot read a PEM certificate from ", options.tls_ca, " (ARENA_TLS_CA)"));
  }
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = pem.str();
  return grpc::SslCredentials(o);
}

}  // namespace

absl::Status VerifySeedCommitment(const v1::MatchStart& start,
                                  const v1::MatchEnd& end) {
  if (start.seed_commitment().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "match ", start.match_id(), ": the referee sent no seed commitment"));
  }
  if (!end.result().has_reveal()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "match ", end.match_id(), ": the referee revealed no seed"));
  }
  const std::string text = absl::StrCat(
      "arena-seed-commitment-v1\n", start.match_id(), "\n",
      end.result().reveal().seed(), "\n", end.result().reveal().salt());
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(),
         digest);
  const std::string hex = absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest), sizeof digest));
  if (hex != start.seed_commitment()) {
    return absl::DataLossError(absl::StrCat(
        "match ", start.match_id(), ": the revealed seed ",
        end.result().reveal().seed(), " does not open the commitment ",
        start.seed_commitment(), " made at the start: the deal may have been "
        "tampered with"));
  }
  return absl::OkStatus();
}

void SetNote(absl::string_view note) { current_note.assign(note.data(), note.size()); }

absl::Status RunBot(const BotOptions& options, const Policy& policy) {
  if (options.address.empty()) {
    return absl::InvalidArgumentError(
        "no referee address: pass --address or set ARENA_ADDRESS");
  }
  if (options.token.empty()) {
    return absl::InvalidArgumentError(
        "no token: pass --token or set ARENA_TOKEN");
  }
  auto credentials = Credentials(options);
  if (!credentials.ok()) return credentials.status();
  grpc::ChannelArguments args;
  // Keepalive pings find a dead referee (or path) while the bot waits.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  auto channel = grpc::CreateCustomChannel(options.address, *credentials, args);

  absl::Mutex matches_mu;
  MatchStarts matches;
  CommitmentTally commitments;  // over every stream of this bot
  auto report = [&] {
    spdlog::info("seed commitments: {} verified, {} did not open",
                 commitments.verified, commitments.failed);
  };
  absl::Time last_up = MonoNow();
  absl::Duration wait = absl::Milliseconds(100);
  for (;;) {
    bool welcomed = false;
    grpc::Status status = PlayOnce(options, policy, channel, matches_mu,
                                   matches, &welcomed, &commitments);
    if (status.ok()) {  // the referee ended it
      report();
      return absl::OkStatus();
    }
    const auto code = status.error_code();
    const std::string why = absl::StrCat(
        "referee ended the stream: ", status.error_message(), " (code ",
        static_cast<int>(code), ")");
    // Refusals are final; a broken stream or a referee not (yet) up is
    // retried, with a growing wait, for reconnect_window.
    if (code == grpc::StatusCode::UNAUTHENTICATED ||
        code == grpc::StatusCode::ABORTED ||
        code == grpc::StatusCode::RESOURCE_EXHAUSTED ||
        code == grpc::StatusCode::INVALID_ARGUMENT) {
      report();
      return absl::UnavailableError(why);
    }
    if (welcomed) {
      last_up = MonoNow();
      wait = absl::Milliseconds(100);
    }
    if (MonoNow() - last_up > options.reconnect_window) {
      return absl::UnavailableError(why);
    }
    spdlog::warn("{}; reconnecting in {}", why, absl::FormatDuration(wait));
    absl::SleepFor(wait);
    wait = std::min(wait * 2, absl::Seconds(2));
  }
}

}  // namespace arena::bots
