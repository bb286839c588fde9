// Bad input over the real gRPC service, on loopback: a misbehaving bot made
// for the test (a raw client that can send anything) plays beside well-
// behaved SDK bots. Each kind of bad input gets a clear outcome in the record
// and, where the bot can be told, a Notice; the referee keeps serving the
// other matches.
#include <deque>
#include <thread>

#include "arena/record_tools.h"
#include "bots/sdk/bot.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/bot_hub.h"
#include "referee/registry.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

// A bot client that sends whatever the test says.
class RawBot {
 public:
  RawBot(const std::string& address, const std::string& token, bool hello = true)
      : stub_(v1::Referee::NewStub(
            grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))) {
    stream_ = stub_->Play(&ctx_);
    if (hello) {
      v1::BotMessage m;
      m.mutable_hello()->set_token(token);
      m.mutable_hello()->set_protocol_version(1);
      Send(m);
    }
    reader_ = std::thread([this] {
      v1::RefereeMessage m;
      while (stream_->Read(&m)) {
        absl::MutexLock lock(&mu_);
        inbox_.push_back(m);
      }
      absl::MutexLock lock(&mu_);
      ended_ = true;
    });
  }
  ~RawBot() {
    ctx_.TryCancel();
    reader_.join();
  }
  void Send(const v1::BotMessage& m) {
    absl::MutexLock lock(&write_mu_);
    stream_->Write(m);
  }
  void Decide(const std::string& match, uint64_t id, int action) {
    v1::BotMessage m;
    m.mutable_decision()->set_match_id(match);
    m.mutable_decision()->set_decision_id(id);
    m.mutable_decision()->set_action_index(action);
    Send(m);
  }
  // Next message of `kind` (others are kept), or false after `timeout`.
  bool Next(v1::RefereeMessage::KindCase kind, v1::RefereeMessage* out,
            absl::Duration timeout = absl::Seconds(10)) {
    absl::MutexLock lock(&mu_);
    auto found = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const auto& m : inbox_) {
        if (m.kind_case() == kind) return true;
      }
      return ended_;
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&found), timeout)) return false;
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
      if (it->kind_case() == kind) {
        *out = *it;
        inbox_.erase(it);
        return true;
      }
    }
    return false;
  }
  grpc::Status Finish() {
    {
      absl::MutexLock lock(&write_mu_);
      stream_->WritesDone();
    }
    reader_.join();
    reader_ = std::thread([] {});
    return stream_->Finish();
  }
  void Hangup() { ctx_.TryCancel(); }

 private:
  std::unique_ptr<v1::Referee::Stub> stub_;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BotMessage, v1::RefereeMessage>> stream_;
  absl::Mutex write_mu_;
  absl::Mutex mu_;
  std::deque<v1::RefereeMessage> inbox_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  std::thread reader_;
};

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hub_ = std::make_unique<BotHub>(std::vector<BotIdentity>{
        {"good1", "t-good1"}, {"good2", "t-good2"}, {"bad", "t-bad"}});
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    b.RegisterService(hub_->service());
    server_ = b.BuildAndStart();
    ASSERT_NE(port, 0);
    address_ = "127.0.0.1:" + std::to_string(port);
    for (const char* name : {"good1", "good2"}) {
      goods_.emplace_back([this, name] {
        bots::BotOptions o;
        o.address = address_;
        o.token = std::string("t-") + name;
        (void)bots::RunBot(o, [](const v1::MatchStart&, const v1::DecisionRequest& r) {
          return static_cast<int>(r.decision_id() % r.legal_actions_size());
        });
      });
    }
    ASSERT_TRUE(hub_->WaitForBots({"good1", "good2"}, absl::Seconds(10)));
    auto g = CreateGame("quasenbo", {}, 2);
    ASSERT_TRUE(g.ok());
    game_ = *std::move(g);
  }
  void TearDown() override {
    hub_->CloseAll();
    for (auto& t : goods_) t.join();
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

  struct Played {
    MatchOutcome outcome;
    std::vector<v1::RecordLine> lines;
  };
  // Plays one match between the named bots over the service.
  Played Play(const std::string& id, std::vector<std::string> bots,
              v1::FaultPolicy policy = v1::FAULT_POLICY_FORFEIT,
              int64_t decision_ms = 2000) {
    MatchSpec spec;
    spec.match_id = id;
    spec.game_name = "quasenbo";
    spec.seat_bots = std::move(bots);
    spec.seed = 99;
    spec.time_control.set_decision_ms(decision_ms);
    spec.fault_policy = policy;
    spec.auto_moves = v1::AUTO_MOVES_NONE;
    auto writer = RecordWriter::Open("", id);
    auto link = hub_->NewMatchLink(id, spec.seat_bots);
    Played p;
    p.outcome = RunMatch(*game_, spec, *link, **writer);
    auto parsed = ParseRecordLines((*writer)->lines(), id);
    EXPECT_TRUE(parsed.ok());
    p.lines = *parsed;
    absl::Status v = VerifyRecord(p.lines, id);
    EXPECT_TRUE(v.ok()) << v;
    return p;
  }

  // Plays `bad_match` (good1 at seat 0, the bad bot at seat 1, driven by
  // `behave`) and at the same time a match between the good bots, which
  // must end normally.
  Played WithBadBot(const std::function<void(RawBot&)>& behave,
                    v1::FaultPolicy policy = v1::FAULT_POLICY_FORFEIT,
                    int64_t decision_ms = 2000) {
    RawBot bad(address_, "t-bad");
    EXPECT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
    std::thread driver([&] { behave(bad); });
    Played good;
    std::thread other([&] { good = Play("good-match", {"good1", "good2"}); });
    Played p = Play("bad-match", {"good1", "bad"}, policy, decision_ms);
    other.join();
    driver.join();  // drivers end on their own, at the latest on a timeout
    bad.Hangup();
    EXPECT_NE(good.outcome.result.end_reason(), v1::END_REASON_FORFEIT)
        << good.outcome.result.detail();
    return p;
  }

  static const v1::Forfeit* ForfeitOf(const Played& p) {
    for (const auto& l : p.lines) {
      if (l.has_forfeit()) return &l.forfeit();
    }
    return nullptr;
  }

  std::unique_ptr<BotHub> hub_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::vector<std::thread> goods_;
  std::unique_ptr<Game> game_;
};

TEST_F(ServiceTest, UnknownTokenIsRefused) {
  RawBot bot(address_, "no-such-token");
  grpc::Status s = bot.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(s.error_message(), HasSubstr("unknown token"));
  EXPECT_FALSE(hub_->IsConnected("bad"));
}

TEST_F(ServiceTest, MessageBeforeHelloIsRefused) {
  RawBot bot(address_, "", /*hello=*/false);
  bot.Decide("m", 1, 0);
  grpc::Status s = bot.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(s.error_message(), HasSubstr("Hello"));
}

TEST_F(ServiceTest, SecondStreamOfOneBotIsRefused) {
  RawBot first(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  RawBot second(address_, "t-bad");
  grpc::Status s = second.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_TRUE(hub_->IsConnected("bad"));  // the first stream is untouched
}

TEST_F(ServiceTest, SilentBotTimesOutAndForfeits) {
  Played p = WithBadBot([](RawBot&) {}, v1::FAULT_POLICY_FORFEIT, 300);
  EXPECT_EQ(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  EXPECT_EQ(p.outcome.result.forfeit_seat(), 1);
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_TIMEOUT);
}

TEST_F(ServiceTest, LateAnswerIsATimeoutAndThenStale) {
  // Under the random-move policy the match goes on, so the late answer
  // reaches a running match and is refused as stale.
  v1::RefereeMessage notice;
  bool got_notice = false;
  Played p = WithBadBot(
      [&](RawBot& bot) {
        v1::RefereeMessage m;
        if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) return;
        absl::SleepFor(absl::Milliseconds(600));  // past the 300 ms deadline
        bot.Decide(m.decision_request().match_id(),
                   m.decision_request().decision_id(), 0);
        got_notice = bot.Next(v1::RefereeMessage::kNotice, &notice);
        while (bot.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Seconds(1))) {
          bot.Decide(m.decision_request().match_id(),
                     m.decision_request().decision_id(), 0);
        }
      },
      v1::FAULT_POLICY_RANDOM_MOVE, 300);
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  int timeouts = 0;
  for (const auto& l : p.lines) {
    for (const auto& a : l.decision().actions()) {
      if (a.fault() == v1::FAULT_KIND_TIMEOUT) {
        ++timeouts;
        EXPECT_EQ(a.source(), v1::SeatAction::SOURCE_REFEREE_FAULT);
        EXPECT_THAT(a.fault_detail(), HasSubstr("no answer within"));
      }
    }
  }
  EXPECT_GE(timeouts, 1);  // the next request may expire while it sleeps, too
  ASSERT_TRUE(got_notice);
  EXPECT_EQ(notice.notice().kind(), v1::NOTICE_KIND_STALE);
}

TEST_F(ServiceTest, AnswerToAFinishedMatchIsUnknownMatch) {
  v1::RefereeMessage notice;
  Played p = WithBadBot(
      [&](RawBot& bot) {
        v1::RefereeMessage m;
        if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) return;
        v1::RefereeMessage end;
        bot.Next(v1::RefereeMessage::kMatchEnd, &end);  // forfeited by timeout
        bot.Decide(m.decision_request().match_id(),
                   m.decision_request().decision_id(), 0);
        bot.Next(v1::RefereeMessage::kNotice, &notice);
      },
      v1::FAULT_POLICY_FORFEIT, 200);
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_TIMEOUT);
  EXPECT_EQ(notice.notice().kind(), v1::NOTICE_KIND_UNKNOWN_MATCH);
}

TEST_F(ServiceTest, IllegalActionForfeitsWithANotice) {
  v1::RefereeMessage notice;
  Played p = WithBadBot([&](RawBot& bot) {
    v1::RefereeMessage m;
    if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) return;
    bot.Decide(m.decision_request().match_id(), m.decision_request().decision_id(),
               m.decision_request().legal_actions_size());  // one past the end
    bot.Next(v1::RefereeMessage::kNotice, &notice);
  });
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_ILLEGAL);
  EXPECT_THAT(p.outcome.result.detail(), HasSubstr("illegal action"));
  EXPECT_EQ(notice.notice().kind(), v1::NOTICE_KIND_ILLEGAL);
}

TEST_F(ServiceTest, IllegalActionUnderRandomPolicyIsPlayedForTheBot) {
  Played p = WithBadBot(
      [&](RawBot& bot) {
        v1::RefereeMessage m;
        while (bot.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Seconds(1))) {
          bot.Decide(m.decision_request().match_id(),
                     m.decision_request().decision_id(), -1);
        }
      },
      v1::FAULT_POLICY_RANDOM_MOVE);
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  int faults = 0;
  for (const auto& l : p.lines) {
    for (const auto& a : l.decision().actions()) {
      if (a.source() == v1::SeatAction::SOURCE_REFEREE_FAULT) {
        ++faults;
        EXPECT_EQ(a.seat(), 1);
        EXPECT_EQ(a.fault(), v1::FAULT_KIND_ILLEGAL);
      }
    }
  }
  EXPECT_GT(faults, 0);
}

TEST_F(ServiceTest, MalformedStaleForeignAndUnknownAreNoticedNotPunished) {
  std::vector<v1::NoticeKind> kinds;
  // A match the bad bot holds no seat in, registered for the whole test.
  auto foreign = hub_->NewMatchLink("foreign-match", {"good1", "good2"});
  Played p = WithBadBot([&](RawBot& bot) {
    v1::RefereeMessage m;
    bool first = true;
    while (bot.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Seconds(1))) {
      const auto& r = m.decision_request();
      if (first) {
        first = false;
        v1::BotMessage empty;  // no content at all
        bot.Send(empty);
        bot.Decide("", r.decision_id(), 0);                // no match id
        bot.Decide("no-such-match", r.decision_id(), 0);   // unknown match
        bot.Decide("foreign-match", 1, 0);                 // a match it is not in
        bot.Decide(r.match_id(), r.decision_id() + 1000, 0);  // never asked
      }
      bot.Decide(r.match_id(), r.decision_id(), 0);
      bot.Decide(r.match_id(), r.decision_id(), 0);  // again: stale
    }
    v1::RefereeMessage n;
    while (bot.Next(v1::RefereeMessage::kNotice, &n, absl::Milliseconds(200))) {
      kinds.push_back(n.notice().kind());
    }
  });
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT)
      << p.outcome.result.detail();
  std::set<v1::NoticeKind> seen(kinds.begin(), kinds.end());
  EXPECT_TRUE(seen.count(v1::NOTICE_KIND_MALFORMED));
  EXPECT_TRUE(seen.count(v1::NOTICE_KIND_UNKNOWN_MATCH));
  EXPECT_TRUE(seen.count(v1::NOTICE_KIND_FOREIGN));
  EXPECT_TRUE(seen.count(v1::NOTICE_KIND_STALE));
}

TEST_F(ServiceTest, DisconnectMidMatchForfeitsAndOthersGoOn) {
  Played p = WithBadBot([&](RawBot& bot) {
    v1::RefereeMessage m;
    if (bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) bot.Hangup();
  });
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_DISCONNECTED);
  // The referee still serves: another match between the good bots.
  Played again = Play("after", {"good1", "good2"});
  EXPECT_NE(again.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
}

TEST_F(ServiceTest, AbsentBotIsUnavailable) {
  Played p = Play("absent", {"good1", "bad"});  // "bad" never connected
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_UNAVAILABLE);
}

TEST_F(ServiceTest, ManyMatchesAtOnceOverOneStreamPerBot) {
  std::vector<std::thread> ts;
  std::vector<Played> results(16);
  for (int i = 0; i < 16; ++i) {
    ts.emplace_back([&, i] {
      results[i] = Play("many-" + std::to_string(i),
                        i % 2 ? std::vector<std::string>{"good1", "good2"}
                              : std::vector<std::string>{"good2", "good1"});
    });
  }
  for (auto& t : ts) t.join();
  for (const auto& r : results) {
    EXPECT_EQ(r.outcome.result.end_reason(), v1::END_REASON_NORMAL)
        << r.outcome.result.detail();
  }
}

}  // namespace
}  // namespace arena
