// Bad input over the real gRPC service, on loopback: a misbehaving bot made
// for the test (a raw client that can send anything) plays beside well-
// behaved SDK bots. Each kind of bad input gets a clear outcome in the record
// and, where the bot can be told, a Notice; the referee keeps serving the
// other matches.
#include <atomic>
#include <deque>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "arena/records/record_tools.h"
#include "bots/sdk/bot.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/clock/mono_clock.h"
#include "referee/service/bot_hub.h"
#include "referee/records/record.h"
#include "referee/games/registry.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

// A bot client that sends whatever the test says.
class RawBot {
 public:
  // With read = false the bot never reads what the referee sends.
  RawBot(const std::string& address, const std::string& token, bool hello = true,
         bool read = true)
      : stub_(v1::Referee::NewStub(
            grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))) {
    stream_ = stub_->Play(&ctx_);
    if (hello) {
      v1::BotMessage m;
      m.mutable_hello()->set_token(token);
      m.mutable_hello()->set_protocol_version(1);
      Send(m);
    }
    if (!read) {
      reader_ = std::thread([] {});
      return;
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
    if (reader_.joinable()) reader_.join();
  }
  bool Ended() {
    absl::MutexLock lock(&mu_);
    return ended_;
  }
  // False once the stream is broken.
  bool Send(const v1::BotMessage& m) {
    absl::MutexLock lock(&write_mu_);
    return stream_->Write(m);
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
    if (reader_.joinable()) reader_.join();
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
    hub_ = std::make_unique<BotHub>(
        std::vector<BotIdentity>{{"good1", "t-good1"},
                                 {"good2", "t-good2"},
                                 {"bad", "t-bad"},
                                 {"bad", "t-bad-next"},  // its next process's (ExpectStandby)
                                 {"bad2", "t-bad2"}},
        options_);
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

  std::string records_dir_;  // empty: records in memory

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
    auto writer = RecordWriter::Open(records_dir_, id);
    auto link = hub_->NewMatchLink(id, spec.seat_bots);
    Played p;
    p.outcome = RunMatch(*game_, spec, *link, **writer);
    auto parsed = records_dir_.empty() ? ParseRecordLines((*writer)->lines(), id)
                                       : ReadRecordFile(p.outcome.record_path);
    EXPECT_TRUE(parsed.ok());
    p.lines = *parsed;
    absl::Status v = VerifyRecord(p.lines, id);
    EXPECT_TRUE(v.ok()) << v;
    return p;
  }

  // Three rounds: bots "bad" and "bad2" connect with their valid tokens, are
  // each welcomed within 1 s, and play a match that ends normally (for the
  // tests that flood the hub meanwhile). Defined after PlayOn.
  void HonestBotsAreWelcomedAndPlay();

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

  HubOptions options_;  // set before SetUp by the tests' fixtures
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

TEST_F(ServiceTest, SecondStreamOfOneBotTakesOver) {
  RawBot first(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  RawBot second(address_, "t-bad");
  v1::RefereeMessage welcome;
  ASSERT_TRUE(second.Next(v1::RefereeMessage::kWelcome, &welcome));
  grpc::Status s = first.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_THAT(s.error_message(), HasSubstr("replaced by a newer stream of bot bad"));
  EXPECT_TRUE(hub_->IsConnected("bad"));  // on the second stream
  EXPECT_EQ(hub_->Connections("bad"), 2);
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
  // It says how late the answer came: slept 600 ms against 300.
  std::smatch late;
  const std::string text = notice.notice().message();
  ASSERT_TRUE(std::regex_search(
      text, late,
      std::regex(R"(decision \d+ came (\d+) ms after its deadline \(300 ms to answer\); it had timed out)")))
      << text;
  const int late_ms = std::stoi(late[1].str());
  EXPECT_GE(late_ms, 200);
  EXPECT_LT(late_ms, 5000);
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
  // The match has gone, but the notice still says how late the answer was.
  EXPECT_TRUE(std::regex_search(
      notice.notice().message(),
      std::regex(R"(decision \d+ came \d+ ms after its deadline \(200 ms to answer\); it had )"
                 R"(timed out; the match has ended)")))
      << notice.notice().message();
}

// A bot whose decision timed out and ended its match owes that answer: a
// tournament holds its next match's start until the answer comes (late) or
// the timeout is old, since a match started now would start its clock into
// the same stall.
TEST_F(ServiceTest, ATimedOutAnswerIsOwedUntilItComes) {
  bool owed_after_end = false, owed_long_ago = true, other_owes = true;
  bool owed_after_answer = true;
  v1::RefereeMessage notice;
  Played p = WithBadBot(
      [&](RawBot& bot) {
        v1::RefereeMessage m;
        if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) return;
        v1::RefereeMessage end;
        bot.Next(v1::RefereeMessage::kMatchEnd, &end);  // forfeited by timeout
        // The hub learns of the match's timeouts as the match lets go of it.
        const absl::Time give_up = absl::Now() + absl::Seconds(5);
        while (!(owed_after_end = hub_->OwesLateAnswer("bad", absl::Seconds(30))) &&
               absl::Now() < give_up) {
          absl::SleepFor(absl::Milliseconds(5));
        }
        owed_long_ago = hub_->OwesLateAnswer("bad", absl::ZeroDuration());
        other_owes = hub_->OwesLateAnswer("good1", absl::Seconds(30));
        bot.Decide(m.decision_request().match_id(),
                   m.decision_request().decision_id(), 0);
        bot.Next(v1::RefereeMessage::kNotice, &notice);  // read: the answer is in
        owed_after_answer = hub_->OwesLateAnswer("bad", absl::Seconds(30));
      },
      v1::FAULT_POLICY_FORFEIT, 200);
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_TIMEOUT);
  EXPECT_TRUE(owed_after_end);
  EXPECT_FALSE(owed_long_ago);  // a timeout older than `within` holds nothing
  EXPECT_FALSE(other_owes);
  EXPECT_EQ(notice.notice().kind(), v1::NOTICE_KIND_UNKNOWN_MATCH);
  EXPECT_FALSE(owed_after_answer);
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

class NoGraceServiceTest : public ServiceTest {
 protected:
  NoGraceServiceTest() { options_.reconnect_grace = absl::ZeroDuration(); }
};

TEST_F(NoGraceServiceTest, DisconnectMidMatchForfeitsAndOthersGoOn) {
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

// With a grace, a hang-up is a fault only if the bot stays away: here its
// decision times out on its own deadline while the grace (longer) runs.
TEST_F(ServiceTest, HangupWithinGraceRunsOnTheDecisionDeadline) {
  Played p = WithBadBot(
      [&](RawBot& bot) {
        v1::RefereeMessage m;
        if (bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) bot.Hangup();
      },
      v1::FAULT_POLICY_FORFEIT, 500);
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_TIMEOUT);
}

class ShortGraceServiceTest : public ServiceTest {
 protected:
  ShortGraceServiceTest() { options_.reconnect_grace = absl::Milliseconds(300); }
};

TEST_F(ShortGraceServiceTest, BotAwayPastTheGraceIsDisconnected) {
  const absl::Time t0 = absl::Now();
  Played p = WithBadBot(
      [&](RawBot& bot) {
        v1::RefereeMessage m;
        if (bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) bot.Hangup();
      },
      v1::FAULT_POLICY_FORFEIT, 20000);
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_DISCONNECTED);
  EXPECT_THAT(ForfeitOf(p)->detail(), HasSubstr("did not come back"));
  EXPECT_LT(absl::Now() - t0, absl::Seconds(15));  // not the 20 s deadline
}

// Answers every request and resync of `bot` with action 0 until no request
// comes for a second; returns the number of resyncs seen.
int PlayOn(RawBot& bot) {
  int resyncs = 0;
  for (;;) {
    v1::RefereeMessage m;
    if (bot.Next(v1::RefereeMessage::kResync, &m, absl::Milliseconds(50))) {
      ++resyncs;
      for (const auto& r : m.resync().open_decisions()) {
        bot.Decide(r.match_id(), r.decision_id(), 0);
      }
      continue;
    }
    if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Seconds(1))) {
      return resyncs;
    }
    bot.Decide(m.decision_request().match_id(), m.decision_request().decision_id(), 0);
  }
}

void ServiceTest::HonestBotsAreWelcomedAndPlay() {
  for (int round = 0; round < 3; ++round) {
    std::vector<std::unique_ptr<RawBot>> honest;
    for (const char* token : {"t-bad", "t-bad2"}) {
      const absl::Time t0 = absl::Now();
      honest.push_back(std::make_unique<RawBot>(address_, token));
      v1::RefereeMessage m;
      ASSERT_TRUE(honest.back()->Next(v1::RefereeMessage::kWelcome, &m, absl::Seconds(5)))
          << token << " round " << round << ": "
          << (honest.back()->Ended() ? honest.back()->Finish().error_message() : "");
      EXPECT_LT(absl::Now() - t0, absl::Seconds(1)) << token << " round " << round;
    }
    std::thread a([&] { PlayOn(*honest[0]); });
    std::thread b([&] { PlayOn(*honest[1]); });
    Played p = Play(absl::StrCat("honest-", round), {"bad", "bad2"});
    a.join();
    b.join();
    EXPECT_EQ(p.outcome.result.end_reason(), v1::END_REASON_NORMAL)
        << p.outcome.result.detail();
  }
}

TEST_F(ServiceTest, ReconnectWithinGraceGetsAResyncAndPlaysOn) {
  v1::RefereeMessage first_request;
  v1::Resync resync;
  int resyncs = 0;
  Played p = WithBadBot(
      [&](RawBot& bot) {
        if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &first_request)) return;
        bot.Hangup();  // a restart: gone for 500 ms
        absl::SleepFor(absl::Milliseconds(500));
        RawBot again(address_, "t-bad");
        v1::RefereeMessage m;
        if (!again.Next(v1::RefereeMessage::kResync, &m)) return;
        resync = m.resync();
        for (const auto& r : resync.open_decisions()) {
          again.Decide(r.match_id(), r.decision_id(), 0);
        }
        resyncs = 1 + PlayOn(again);
      },
      v1::FAULT_POLICY_FORFEIT, 5000);
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT)
      << p.outcome.result.detail();
  EXPECT_GE(resyncs, 1);
  EXPECT_EQ(resync.match_id(), "bad-match");
  EXPECT_EQ(resync.seat(), 1);
  EXPECT_EQ(resync.match_start().seat(), 1);
  EXPECT_EQ(resync.match_start().match_id(), "bad-match");
  ASSERT_EQ(resync.open_decisions_size(), 1);
  EXPECT_EQ(resync.open_decisions(0).decision_id(),
            first_request.decision_request().decision_id());
  // The view: every event sent so far, and the game's own part.
  EXPECT_EQ(resync.view().events_size(),
            first_request.decision_request().view().events_size());
  EXPECT_EQ(resync.view().game_case(),
            first_request.decision_request().view().game_case());
}

// A bot's next process (BotHub::ExpectStandby, with another of its tokens)
// connects while its current stream plays a match: it is welcomed and held
// apart, and gets nothing of that match (no resync, match start or
// request), which plays on with the current stream to its end; a second
// stream with that token takes the first's place as the standby. Promoted,
// it is the bot's live stream (the old one ends as replaced) and plays the
// next match.
class StandbyServiceTest : public ServiceTest {
 protected:
  void CheckAStandbyTakesNothingOverUntilPromoted() {
    std::unique_ptr<RawBot> next, first_next;
    v1::RefereeMessage welcome, anything;
    bool got_something = false;
    Played p = WithBadBot([&](RawBot& bot) {
      v1::RefereeMessage m;
      if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) return;
      hub_->ExpectStandby("bad", "t-bad-next");
      first_next = std::make_unique<RawBot>(address_, "t-bad-next");
      if (!first_next->Next(v1::RefereeMessage::kWelcome, &welcome)) return;
      next = std::make_unique<RawBot>(address_, "t-bad-next");
      if (!next->Next(v1::RefereeMessage::kWelcome, &welcome)) return;
      bot.Decide(m.decision_request().match_id(), m.decision_request().decision_id(), 0);
      PlayOn(bot);
      for (auto kind : {v1::RefereeMessage::kResync, v1::RefereeMessage::kMatchStart,
                        v1::RefereeMessage::kDecisionRequest}) {
        got_something = got_something || next->Next(kind, &anything, absl::Milliseconds(100)) ||
                        first_next->Next(kind, &anything, absl::Milliseconds(10));
      }
    });
    EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT) << p.outcome.result.detail();
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(welcome.welcome().bot_name(), "bad");
    EXPECT_FALSE(got_something) << anything.DebugString();
    EXPECT_TRUE(first_next->Ended()) << "the first standby, replaced by the second";
    EXPECT_TRUE(hub_->HasStandby("bad"));
    // (WithBadBot hung the current stream up: the bot has none live now.)
    ASSERT_TRUE(hub_->PromoteStandby("bad"));
    EXPECT_FALSE(hub_->HasStandby("bad"));
    EXPECT_TRUE(hub_->IsConnected("bad"));
    std::thread driver([&] { PlayOn(*next); });
    Played after = Play("after-match", {"good1", "bad"});
    driver.join();
    EXPECT_NE(after.outcome.result.end_reason(), v1::END_REASON_FORFEIT)
        << after.outcome.result.detail();
    EXPECT_FALSE(hub_->PromoteStandby("bad")) << "no standby left";
  }
};

TEST_F(StandbyServiceTest, AStandbyStreamTakesNothingOverUntilPromoted) {
  CheckAStandbyTakesNothingOverUntilPromoted();
}

// The same with each stream's resync (run after its Hello is welcomed)
// late: the first standby's comes after the second has replaced it. It
// took the bot's seats over from the live stream, whose answer was then
// stale and the match forfeited (one CI run in many, the resync's thread
// being slow by chance).
class LateResyncServiceTest : public StandbyServiceTest {
 protected:
  LateResyncServiceTest() { options_.resync_delay_for_test = absl::Milliseconds(300); }
};

TEST_F(LateResyncServiceTest, AStandbyReplacedBeforeItsResyncTakesNothingOver) {
  CheckAStandbyTakesNothingOverUntilPromoted();
}

// Answers the requests of `bot` with action 0 until none comes for a
// second; every match id it was told of (starts, requests, resyncs) goes
// into `seen`.
void PlayNoting(RawBot& bot, std::set<std::string>* seen) {
  for (;;) {
    v1::RefereeMessage m;
    while (bot.Next(v1::RefereeMessage::kMatchStart, &m, absl::Milliseconds(1))) {
      seen->insert(m.match_start().match_id());
    }
    if (bot.Next(v1::RefereeMessage::kResync, &m, absl::Milliseconds(20))) {
      seen->insert(m.resync().match_id());
      for (const auto& r : m.resync().open_decisions()) {
        bot.Decide(r.match_id(), r.decision_id(), 0);
      }
      continue;
    }
    if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Seconds(1))) return;
    seen->insert(m.decision_request().match_id());
    bot.Decide(m.decision_request().match_id(), m.decision_request().decision_id(), 0);
  }
}

// A bot's next process takes its new matches while its previous one
// finishes the match it is in (PromoteStandby with retire_live): each match
// stays with the process it started with, a reconnect of the next process
// is resynced into its own matches only, the previous process's token is
// refused from then on, and the retiring stream is busy until its match ends.
TEST_F(ServiceTest, AHandedOverMatchStaysWithItsProcessWhileTheNextTakesNewOnes) {
  RawBot old(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  Played first, second;
  std::thread first_match([&] { first = Play("first", {"good1", "bad"}); });
  v1::RefereeMessage m;
  ASSERT_TRUE(old.Next(v1::RefereeMessage::kDecisionRequest, &m));
  const v1::DecisionRequest pending = m.decision_request();
  EXPECT_EQ(pending.match_id(), "first");

  hub_->ExpectStandby("bad", "t-bad-next");
  auto next = std::make_unique<RawBot>(address_, "t-bad-next");
  ASSERT_TRUE(next->Next(v1::RefereeMessage::kWelcome, &m));
  EXPECT_FALSE(hub_->RetiringBusy("bad", "t-bad")) << "nothing retires before the handover";
  ASSERT_TRUE(hub_->PromoteStandby("bad", /*retire_live=*/true));
  EXPECT_TRUE(hub_->RetiringBusy("bad", "t-bad"));
  EXPECT_FALSE(hub_->PromoteStandby("bad", /*retire_live=*/true)) << "no standby left";

  // The previous process's token may not come back as the bot's stream.
  RawBot again(address_, "t-bad");
  const grpc::Status refused = again.Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("replaced by the bot's next one"));

  // A new match goes to the next process; the next process reconnects
  // mid-match and is resynced into that one only.
  std::set<std::string> next_saw, old_saw;
  std::thread second_match([&] { second = Play("second", {"good2", "bad"}); });
  ASSERT_TRUE(next->Next(v1::RefereeMessage::kDecisionRequest, &m));
  EXPECT_EQ(m.decision_request().match_id(), "second");
  next_saw.insert("second");
  auto next_back = std::make_unique<RawBot>(address_, "t-bad-next");
  ASSERT_TRUE(next_back->Next(v1::RefereeMessage::kResync, &m));
  next_saw.insert(m.resync().match_id());
  for (const auto& r : m.resync().open_decisions()) {
    next_back->Decide(r.match_id(), r.decision_id(), 0);
  }
  std::thread next_plays([&] { PlayNoting(*next_back, &next_saw); });
  // The previous process, still on its stream, finishes its own match.
  old.Decide(pending.match_id(), pending.decision_id(), 0);
  old_saw.insert("first");
  PlayNoting(old, &old_saw);
  first_match.join();
  second_match.join();
  next_plays.join();
  EXPECT_EQ(old_saw, std::set<std::string>({"first"}));
  EXPECT_EQ(next_saw, std::set<std::string>({"second"}));
  for (const Played* p : {&first, &second}) {
    EXPECT_EQ(p->outcome.result.end_reason(), v1::END_REASON_NORMAL)
        << p->outcome.result.detail();
    EXPECT_EQ(ForfeitOf(*p), nullptr);
  }
  EXPECT_FALSE(hub_->RetiringBusy("bad", "t-bad")) << "its match is over";
  EXPECT_FALSE(old.Ended()) << "the hub leaves the stream to whoever stops the process";
}

// A retiring process that finished its match is kept (arena parks it for a
// later deal it has not met): RestoreStandby makes its stream the standby
// again, and promoted it is the bot's live stream and plays, while the one
// it replaces retires in turn. Not while it holds a seat, nor beside a
// standby, nor once its stream has ended.
TEST_F(ServiceTest, AKeptRetiringStreamBecomesTheStandbyAgainOnceItHoldsNoSeat) {
  RawBot old(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  Played first;
  std::thread first_match([&] { first = Play("first", {"good1", "bad"}); });
  v1::RefereeMessage m;
  ASSERT_TRUE(old.Next(v1::RefereeMessage::kDecisionRequest, &m));
  const v1::DecisionRequest pending = m.decision_request();
  hub_->ExpectStandby("bad", "t-bad-next");
  RawBot next(address_, "t-bad-next");
  ASSERT_TRUE(next.Next(v1::RefereeMessage::kWelcome, &m));
  ASSERT_TRUE(hub_->PromoteStandby("bad", /*retire_live=*/true));
  EXPECT_FALSE(hub_->RestoreStandby("bad", "t-bad")) << "it still holds its seat";
  std::set<std::string> old_saw;
  old.Decide(pending.match_id(), pending.decision_id(), 0);
  PlayNoting(old, &old_saw);
  first_match.join();
  ASSERT_FALSE(hub_->RetiringBusy("bad", "t-bad"));
  EXPECT_FALSE(hub_->RestoreStandby("bad", "t-unknown")) << "no such retiring stream";

  ASSERT_TRUE(hub_->RestoreStandby("bad", "t-bad"));
  EXPECT_TRUE(hub_->HasStandby("bad"));
  EXPECT_FALSE(hub_->RestoreStandby("bad", "t-bad")) << "it is the standby already";
  // Promoted, the kept process plays the next match; the one it replaces
  // retires (its token refused from now on).
  ASSERT_TRUE(hub_->PromoteStandby("bad", /*retire_live=*/true));
  std::set<std::string> next_saw;
  std::thread old_plays([&] { PlayNoting(old, &old_saw); });
  std::thread next_plays([&] { PlayNoting(next, &next_saw); });
  Played second = Play("second", {"good2", "bad"});
  old_plays.join();
  next_plays.join();
  EXPECT_EQ(old_saw, std::set<std::string>({"first", "second"}));
  EXPECT_TRUE(next_saw.empty()) << *next_saw.begin();
  for (const Played* p : {&first, &second}) {
    EXPECT_EQ(p->outcome.result.end_reason(), v1::END_REASON_NORMAL)
        << p->outcome.result.detail();
    EXPECT_EQ(ForfeitOf(*p), nullptr);
  }
  RawBot again(address_, "t-bad-next");
  EXPECT_EQ(again.Finish().error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  // A kept stream that ended is not restored.
  next.Hangup();
  absl::SleepFor(absl::Seconds(1));  // the hub has seen it end
  EXPECT_FALSE(hub_->RestoreStandby("bad", "t-bad-next"));
  EXPECT_FALSE(hub_->HasStandby("bad"));
}

// The retiring process's stream ends while it still plays: its seat fails
// at once as DISCONNECTED, saying why, and is never moved to the bot's live
// process (which hears nothing of that match).
TEST_F(ServiceTest, ARetiringProcessThatDiesLosesItsSeatNotItsNextProcess) {
  auto old = std::make_unique<RawBot>(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  Played p;
  const absl::Time t0 = absl::Now();
  std::thread match([&] { p = Play("lost", {"good1", "bad"}, v1::FAULT_POLICY_FORFEIT, 20000); });
  v1::RefereeMessage m;
  ASSERT_TRUE(old->Next(v1::RefereeMessage::kDecisionRequest, &m));
  hub_->ExpectStandby("bad", "t-bad-next");
  RawBot next(address_, "t-bad-next");
  ASSERT_TRUE(next.Next(v1::RefereeMessage::kWelcome, &m));
  ASSERT_TRUE(hub_->PromoteStandby("bad", /*retire_live=*/true));
  old->Hangup();
  match.join();
  EXPECT_LT(absl::Now() - t0, absl::Seconds(10)) << "not at its 20 s deadline";
  const v1::Forfeit* f = ForfeitOf(p);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->seat(), 1);
  EXPECT_EQ(f->fault(), v1::FAULT_KIND_DISCONNECTED);
  EXPECT_THAT(f->detail(), HasSubstr("not moved to its next process"));
  for (auto kind : {v1::RefereeMessage::kResync, v1::RefereeMessage::kMatchStart,
                    v1::RefereeMessage::kDecisionRequest}) {
    EXPECT_FALSE(next.Next(kind, &m, absl::Milliseconds(50))) << m.DebugString();
  }
  EXPECT_TRUE(hub_->IsConnected("bad")) << "its next process is untouched";
  EXPECT_FALSE(hub_->RetiringBusy("bad", "t-bad"));
}

// A resync mid-match, with the record on disk: the view holds exactly the
// events the seat was sent in its requests (read back from the match's sent
// log beside the record, not kept in memory), and the log is gone after.
TEST_F(ServiceTest, ResyncMidMatchHoldsExactlyTheEventsSentSoFar) {
  records_dir_ = absl::StrCat(::testing::TempDir(), "/resync-", ::getpid());
  std::filesystem::remove_all(records_dir_);
  std::filesystem::create_directories(records_dir_);
  std::vector<std::string> sent;  // every event the bad seat got, serialized
  v1::Resync resync;
  bool log_seen = false;
  Played p = WithBadBot(
      [&](RawBot& bot) {
        v1::RefereeMessage m;
        for (int i = 0; i < 6; ++i) {
          if (!bot.Next(v1::RefereeMessage::kDecisionRequest, &m)) return;
          for (const auto& e : m.decision_request().view().events()) {
            sent.push_back(e.SerializeAsString());
          }
          if (i < 5) bot.Decide(m.decision_request().match_id(),
                                m.decision_request().decision_id(), 0);
        }
        bot.Hangup();
        absl::SleepFor(absl::Milliseconds(200));
        RawBot again(address_, "t-bad");
        if (!again.Next(v1::RefereeMessage::kResync, &m)) return;
        resync = m.resync();
        // The resync read the log back from its file (a short match's log
        // is made by that first read: referee/match/sent_log.h).
        for (const auto& f : std::filesystem::directory_iterator(
                 records_dir_ + "/" + kInProgressDir)) {
          if (absl::EndsWith(f.path().string(), ".sent")) log_seen = true;
        }
        for (const auto& r : resync.open_decisions()) {
          again.Decide(r.match_id(), r.decision_id(), 0);
        }
        PlayOn(again);
      },
      v1::FAULT_POLICY_FORFEIT, 5000);
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT)
      << p.outcome.result.detail();
  EXPECT_TRUE(log_seen);
  ASSERT_GT(sent.size(), 6u);
  ASSERT_EQ(resync.view().events_size(), static_cast<int>(sent.size()));
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(resync.view().events(static_cast<int>(i)).SerializeAsString(), sent[i])
        << "event " << i;
  }
  for (const auto& f : std::filesystem::directory_iterator(
           records_dir_ + "/" + kInProgressDir)) {
    ADD_FAILURE() << "left behind: " << f.path();
  }
  std::filesystem::remove_all(records_dir_);
}

TEST_F(ServiceTest, FrozenBotIsTakenOverByItsRestartWithinTwoSeconds) {
  absl::Duration takeover;
  grpc::Status old_status;
  Played p = WithBadBot(
      [&](RawBot& frozen) {
        v1::RefereeMessage m;
        if (!frozen.Next(v1::RefereeMessage::kDecisionRequest, &m)) return;
        // Frozen: the stream stays open, nothing is answered. Its restart:
        const absl::Time t0 = absl::Now();
        RawBot restarted(address_, "t-bad");
        v1::RefereeMessage r;
        if (!restarted.Next(v1::RefereeMessage::kResync, &r)) return;
        for (const auto& d : r.resync().open_decisions()) {
          restarted.Decide(d.match_id(), d.decision_id(), 0);
        }
        takeover = absl::Now() - t0;
        old_status = frozen.Finish();
        PlayOn(restarted);
      },
      v1::FAULT_POLICY_FORFEIT, 8000);
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT)
      << p.outcome.result.detail();
  EXPECT_LT(takeover, absl::Seconds(2));
  EXPECT_EQ(old_status.error_code(), grpc::StatusCode::ABORTED);
}

// The notice for a decision id says nothing about whether another seat has
// answered: its open decision, its answered one and an id never asked all
// get the same kind and the same text.
// Catches the replies a link delivers, for a test that drives a link by hand
// (in place of a Match).
class ReplyCatcher : public SeatLink::Listener {
 public:
  bool OnReply(int, uint64_t decision_id, SeatReply reply) override {
    absl::MutexLock lock(&mu_);
    replies_[decision_id] = std::move(reply);
    return true;
  }
  absl::StatusOr<std::string> SentEvents(int) override { return std::string(); }
  void OnLeft(int, uint64_t decision_id, absl::Time at) override {
    absl::MutexLock lock(&mu_);
    left_[decision_id] = at;
  }
  // When request `decision_id` left, as the link reported (InfinitePast if
  // it did not within `timeout`).
  absl::Time AwaitLeft(uint64_t decision_id, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto in = [&] { return left_.count(decision_id) != 0; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&in), timeout)) return absl::InfinitePast();
    return left_[decision_id];
  }
  // The reply to `decision_id`, once it is in (a timeout fault if not).
  SeatReply Await(uint64_t decision_id, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto in = [&] { return replies_.count(decision_id) != 0; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&in), timeout)) {
      SeatReply r;
      r.fault = v1::FAULT_KIND_TIMEOUT;
      return r;
    }
    return replies_[decision_id];
  }

 private:
  absl::Mutex mu_;
  std::map<uint64_t, SeatReply> replies_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, absl::Time> left_ ABSL_GUARDED_BY(mu_);
};

// A MatchStart held for the seat's first request leaves with it, first; the
// link reports when the request left (its clock starts then), and the time
// it gives the answer is counted from there.
TEST_F(ServiceTest, HeldMatchStartLeavesWithTheFirstRequestWhoseLeavingIsReported) {
  RawBot bot(address_, "t-bad");
  RawBot other(address_, "t-bad2");
  ASSERT_TRUE(hub_->WaitForBots({"bad", "bad2"}, absl::Seconds(5)));
  auto link = hub_->NewMatchLink("held", {"bad", "bad2"});
  ASSERT_TRUE(link->ReportsLeaving());
  auto catcher = std::make_shared<ReplyCatcher>();
  link->set_listener(catcher);
  v1::MatchStart start;
  start.set_match_id("held");
  start.mutable_rules()->mutable_other()->set_type_url("type.googleapis.com/x.Rules");
  start.mutable_rules()->mutable_other()->set_value("the deck");
  start.set_seat(0);
  link->StartBeforeRequest(0, start);
  start.set_seat(1);
  link->Start(1, start);  // not held: seat 1 is told at once
  v1::RefereeMessage m;
  ASSERT_TRUE(other.Next(v1::RefereeMessage::kMatchStart, &m));
  EXPECT_EQ(m.match_start().seat(), 1);
  EXPECT_EQ(m.match_start().rules().other().value(), "the deck");
  const absl::Time before_send = MonoNow();
  OutMessage req;
  req->mutable_decision_request()->set_match_id("held");
  req->mutable_decision_request()->set_seat(0);
  req->mutable_decision_request()->set_decision_id(1);
  req->mutable_decision_request()->set_deadline_ms(60000);
  link->Send(0, std::move(req), 3);
  const absl::Time left = catcher->AwaitLeft(1, absl::Seconds(10));
  EXPECT_GE(left, before_send);
  ASSERT_TRUE(bot.Next(v1::RefereeMessage::kMatchStart, &m, absl::Seconds(10)));
  EXPECT_EQ(m.match_start().seat(), 0);
  EXPECT_EQ(m.match_start().match_id(), "held");
  // The link keeps the rules shared, not in its copy: they still go out whole.
  EXPECT_EQ(m.match_start().rules().other().type_url(), "type.googleapis.com/x.Rules");
  EXPECT_EQ(m.match_start().rules().other().value(), "the deck");
  ASSERT_TRUE(bot.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Seconds(10)));
  bot.Decide("held", 1, 2);
  const SeatReply reply = catcher->Await(1, absl::Seconds(10));
  EXPECT_TRUE(reply.ok);
  EXPECT_EQ(reply.action, 2);
  EXPECT_LE(reply.think_us, absl::ToInt64Microseconds(MonoNow() - left));
}

// Live matches with the same rules (a tournament's) hold one copy of them;
// different rules get their own.
TEST_F(ServiceTest, MatchesWithTheSameRulesShareOneCopyOfThem) {
  LinkHost& host = *hub_;
  v1::Rules a;
  a.mutable_other()->set_type_url("type.googleapis.com/x.Rules");
  a.mutable_other()->set_value("deck one");
  v1::Rules b = a;
  v1::Rules c = a;
  c.mutable_other()->set_value("deck two");
  const std::shared_ptr<const v1::Rules> pa = host.SharedRules(a);
  const std::shared_ptr<const v1::Rules> pb = host.SharedRules(b);
  const std::shared_ptr<const v1::Rules> pc = host.SharedRules(c);
  EXPECT_EQ(pa.get(), pb.get());
  EXPECT_NE(pa.get(), pc.get());
  EXPECT_EQ(pa->other().value(), "deck one");
  EXPECT_EQ(pc->other().value(), "deck two");
  // Many rules that no match holds any more are let go, and sharing holds.
  for (int i = 0; i < 100; ++i) {
    v1::Rules r = a;
    r.mutable_other()->set_value("deck " + std::to_string(i + 3));
    EXPECT_EQ(host.SharedRules(r)->other().value(), r.other().value());
  }
  EXPECT_EQ(host.SharedRules(b).get(), pa.get());
}

// The match observer hears each match's bots, once each, when its link is
// made and again when the match lets go of it.
TEST_F(ServiceTest, TheMatchObserverHearsEachMatchStartAndEnd) {
  absl::Mutex mu;
  std::vector<std::pair<std::vector<std::string>, bool>> heard;
  hub_->SetMatchObserver([&](const std::vector<std::string>& bots, bool live) {
    absl::MutexLock lock(&mu);
    heard.emplace_back(bots, live);
  });
  const std::vector<std::string> both = {"good1", "good2"};
  {
    auto link = hub_->NewMatchLink("watched", {"good2", "good1", "good2"});
    absl::MutexLock lock(&mu);
    ASSERT_EQ(heard.size(), 1u);
    EXPECT_EQ(heard[0].first, both);
    EXPECT_TRUE(heard[0].second);
  }
  {
    absl::MutexLock lock(&mu);
    ASSERT_EQ(heard.size(), 2u);
    EXPECT_EQ(heard[1].first, both);
    EXPECT_FALSE(heard[1].second);
  }
  // A match played to its end: live while it runs, ended once its link goes.
  Played p = Play("played", {"good1", "good2"});
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  {
    absl::MutexLock lock(&mu);
    ASSERT_EQ(heard.size(), 4u);
    EXPECT_TRUE(heard[2].second);
    EXPECT_FALSE(heard[3].second);
  }
  hub_->SetMatchObserver(nullptr);
  { auto link = hub_->NewMatchLink("unwatched", both); }
  absl::MutexLock lock(&mu);
  EXPECT_EQ(heard.size(), 4u);
}

TEST_F(ServiceTest, OneNoticeKindForAnyDecisionIdNotTheSeatsOpenOne) {
  RawBot bad(address_, "t-bad");
  RawBot other(address_, "t-bad2");
  ASSERT_TRUE(hub_->WaitForBots({"bad", "bad2"}, absl::Seconds(5)));
  auto link = hub_->NewMatchLink("sim", {"bad", "bad2"});
  auto catcher = std::make_shared<ReplyCatcher>();
  link->set_listener(catcher);
  v1::MatchStart start;
  start.set_match_id("sim");
  for (int seat = 0; seat < 2; ++seat) {
    start.set_seat(seat);
    link->Start(seat, start);
    OutMessage req;
    req->mutable_decision_request()->set_match_id("sim");
    req->mutable_decision_request()->set_seat(seat);
    req->mutable_decision_request()->set_decision_id(seat + 1);
    req->mutable_decision_request()->set_simultaneous(true);
    link->Send(seat, std::move(req), 3);
  }
  v1::RefereeMessage m;
  ASSERT_TRUE(bad.Next(v1::RefereeMessage::kDecisionRequest, &m));
  ASSERT_TRUE(other.Next(v1::RefereeMessage::kDecisionRequest, &m));
  std::vector<v1::Notice> notices;
  auto notice_for = [&](uint64_t id) {
    bad.Decide("sim", id, 0);
    v1::RefereeMessage n;
    EXPECT_TRUE(bad.Next(v1::RefereeMessage::kNotice, &n));
    notices.push_back(n.notice());
  };
  notice_for(2);             // the other seat's decision, still open
  other.Decide("sim", 2, 1);  // now answered
  SeatReply r = catcher->Await(2, absl::Seconds(5));
  EXPECT_TRUE(r.ok);
  notice_for(2);             // the other seat's decision, answered
  notice_for(77);            // never asked
  bad.Decide("sim", 1, 0);   // its own: accepted
  EXPECT_TRUE(catcher->Await(1, absl::Seconds(5)).ok);
  notice_for(1);             // its own, answered
  ASSERT_EQ(notices.size(), 4u);
  for (const auto& n : notices) {
    EXPECT_EQ(n.kind(), v1::NOTICE_KIND_STALE);
    std::string text = n.message();
    const std::string id = absl::StrCat(n.decision_id());
    text.replace(text.find(id), id.size(), "#");
    EXPECT_EQ(text, "match sim: decision # is not an open decision of this bot");
  }
}

// Lazy reads (HubOptions::lazy_reads): once a bot owes no answer, its
// stream's next read waits for the next message written to it, so that
// gRPC's flow-control update for the answer leaves with that message
// instead of on its own. These show the read is put off, that a write or
// the reaper starts it again, and that a bot leaving meanwhile is seen.

// Match "lazy", seat 0 held by bot "bad" (seat 1 by "good1", never asked):
// its link, started for seat 0, and what its answers reach.
struct LazyMatch {
  explicit LazyMatch(BotHub& hub)
      : link(hub.NewMatchLink("lazy", {"bad", "good1"})),
        catcher(std::make_shared<ReplyCatcher>()) {
    link->set_listener(catcher);
    v1::MatchStart start;
    start.set_match_id("lazy");
    link->Start(0, start);
  }
  // Asks seat 0 for decision `id` (3 legal actions).
  void Ask(uint64_t id) {
    OutMessage req;
    req->mutable_decision_request()->set_match_id("lazy");
    req->mutable_decision_request()->set_seat(0);
    req->mutable_decision_request()->set_decision_id(id);
    link->Send(0, std::move(req), 3);
  }
  // Asks `bot` (seat 0) for decision `id`, has it answer `action`, and
  // returns the reply the match got.
  SeatReply AskAndAnswer(RawBot& bot, uint64_t id, int action) {
    Ask(id);
    v1::RefereeMessage m;
    EXPECT_TRUE(bot.Next(v1::RefereeMessage::kDecisionRequest, &m));
    EXPECT_EQ(m.decision_request().decision_id(), id);
    bot.Decide("lazy", id, action);
    return catcher->Await(id, absl::Seconds(5));
  }
  std::unique_ptr<SeatLink> link;
  std::shared_ptr<ReplyCatcher> catcher;
};

class LazyReadServiceTest : public ServiceTest {
 protected:
  LazyReadServiceTest() { options_.lazy_read_wait = absl::Hours(1); }
};

TEST_F(LazyReadServiceTest, AfterItsLastAnswerABotIsReadAgainWithItsNextRequest) {
  RawBot bad(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBots({"bad"}, absl::Seconds(5)));
  LazyMatch match(*hub_);
  SeatReply r = match.AskAndAnswer(bad, 1, 2);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.action, 2);
  // It owes nothing now: what it sends is not read (no notice comes)...
  bad.Decide("lazy", 1, 0);
  v1::RefereeMessage m;
  EXPECT_FALSE(bad.Next(v1::RefereeMessage::kNotice, &m, absl::Milliseconds(700)));
  // ...until the hub writes to it: then the stale answer gets its notice,
  // and the new decision is answered as usual.
  match.Ask(2);
  ASSERT_TRUE(bad.Next(v1::RefereeMessage::kDecisionRequest, &m));
  EXPECT_EQ(m.decision_request().decision_id(), 2u);
  ASSERT_TRUE(bad.Next(v1::RefereeMessage::kNotice, &m, absl::Seconds(5)));
  EXPECT_EQ(m.notice().kind(), v1::NOTICE_KIND_STALE);
  EXPECT_EQ(m.notice().decision_id(), 1u);
  bad.Decide("lazy", 2, 1);
  r = match.catcher->Await(2, absl::Seconds(5));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.action, 1);
}

TEST_F(LazyReadServiceTest, ABotThatOwesNothingAndGoesAwayIsSeenAtOnce) {
  auto bad = std::make_unique<RawBot>(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBots({"bad"}, absl::Seconds(5)));
  LazyMatch match(*hub_);
  ASSERT_TRUE(match.AskAndAnswer(*bad, 1, 0).ok);
  // No read is out (and the reaper would wait an hour): only the call's
  // cancellation can tell the hub.
  const absl::Time t0 = absl::Now();
  bad.reset();  // cancels its call
  while (hub_->IsConnected("bad") && absl::Now() - t0 < absl::Seconds(5)) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_FALSE(hub_->IsConnected("bad"));
  EXPECT_LT(absl::Now() - t0, absl::Seconds(2));
}

// A stream marks itself closing before it tells the hub it is gone; a
// request sent in between (here, the window is held open for a second) must
// be handled as one sent just before the close: kept for the grace and
// resynced to the bot's restart, or failed once the bot is gone. It was
// failed at once as "stream is closed", a forfeit inside the grace (seen
// in Load.BotRestartWithinTheGraceForfeitsNothing, one CI run in a few).
class ClosingWindowServiceTest : public ServiceTest {
 protected:
  ClosingWindowServiceTest() {
    options_.unregister_delay_for_test = absl::Seconds(1);
    options_.lazy_read_wait = absl::Hours(1);  // only the cancel tells
  }
  // Connects bot "bad", starts match "lazy" for it, has it answer decision
  // 1, hangs it up, and asks it decision 2 while its stream is closing but
  // still its (checked). Call under ASSERT_NO_FATAL_FAILURE.
  void AskWhileClosing() {
    bad_ = std::make_unique<RawBot>(address_, "t-bad");
    ASSERT_TRUE(hub_->WaitForBots({"bad"}, absl::Seconds(5)));
    match_ = std::make_unique<LazyMatch>(*hub_);
    ASSERT_TRUE(match_->AskAndAnswer(*bad_, 1, 0).ok);
    bad_->Hangup();
    absl::SleepFor(absl::Milliseconds(300));  // the cancel is in
    ASSERT_TRUE(hub_->IsConnected("bad"));    // the hub is not yet told
    match_->Ask(2);
  }
  std::unique_ptr<RawBot> bad_;
  std::unique_ptr<LazyMatch> match_;
};

TEST_F(ClosingWindowServiceTest, ARequestToAClosingStreamGoesToTheRestart) {
  ASSERT_NO_FATAL_FAILURE(AskWhileClosing());
  // Not failed: the bot is within its grace once the hub is told.
  SeatReply early = match_->catcher->Await(2, absl::Seconds(2));
  EXPECT_EQ(early.fault, v1::FAULT_KIND_TIMEOUT) << early.detail;  // none yet
  const absl::Time t0 = absl::Now();
  while (hub_->IsConnected("bad") && absl::Now() - t0 < absl::Seconds(5)) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  RawBot again(address_, "t-bad");
  v1::RefereeMessage m;
  ASSERT_TRUE(again.Next(v1::RefereeMessage::kResync, &m));
  ASSERT_EQ(m.resync().open_decisions_size(), 1);
  EXPECT_EQ(m.resync().open_decisions(0).decision_id(), 2u);
  again.Decide("lazy", 2, 1);
  SeatReply r = match_->catcher->Await(2, absl::Seconds(5));
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_EQ(r.action, 1);
}

class ClosingWindowNoGraceServiceTest : public ClosingWindowServiceTest {
 protected:
  ClosingWindowNoGraceServiceTest() { options_.reconnect_grace = absl::ZeroDuration(); }
};

TEST_F(ClosingWindowNoGraceServiceTest, ARequestToAClosingStreamFailsOnceTheBotIsGone) {
  ASSERT_NO_FATAL_FAILURE(AskWhileClosing());
  // Failed when the hub is told (a second after the hang-up), not left to
  // the decision's deadline.
  SeatReply r = match_->catcher->Await(2, absl::Seconds(5));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fault, v1::FAULT_KIND_DISCONNECTED) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("stream to bot bad ended"));
}

// SetBotDown: arena saw the bot's process exit (or withdrew the bot). What
// the grace kept for it fails at once with the kind and detail given, not
// after the grace; new requests fail at once the same way until the bot
// connects again; then it is asked as usual.
TEST_F(ServiceTest, ABotSetDownFailsWhatWasKeptAtOnceAndNewRequestsUntilItIsBack) {
  ASSERT_EQ(options_.reconnect_grace, absl::Seconds(5));
  auto bad = std::make_unique<RawBot>(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBots({"bad"}, absl::Seconds(5)));
  LazyMatch match(*hub_);
  match.Ask(1);
  v1::RefereeMessage m;
  ASSERT_TRUE(bad->Next(v1::RefereeMessage::kDecisionRequest, &m));
  bad.reset();  // the process is gone; the grace keeps decision 1
  for (int i = 0; i < 500 && hub_->IsConnected("bad"); ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_FALSE(hub_->IsConnected("bad"));
  EXPECT_EQ(match.catcher->Await(1, absl::Milliseconds(200)).fault,
            v1::FAULT_KIND_TIMEOUT);  // (no reply yet)
  const absl::Time t0 = absl::Now();
  hub_->SetBotDown("bad", v1::FAULT_KIND_CRASHED, "bot bad exited with status 3");
  SeatReply r = match.catcher->Await(1, absl::Seconds(3));  // the grace is 5 s
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fault, v1::FAULT_KIND_CRASHED);
  EXPECT_EQ(r.detail, "bot bad exited with status 3");
  EXPECT_LT(absl::Now() - t0, absl::Seconds(3));

  // Withdrawn: a new request fails at once (not UNAVAILABLE, not kept).
  hub_->SetBotDown("bad", v1::FAULT_KIND_NO_SHOW, "bot bad was withdrawn");
  match.Ask(2);
  r = match.catcher->Await(2, absl::Seconds(3));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fault, v1::FAULT_KIND_NO_SHOW);
  EXPECT_EQ(r.detail, "bot bad was withdrawn");

  // Back (a new stream with its token): asked again.
  RawBot again(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBots({"bad"}, absl::Seconds(5)));
  match.Ask(3);
  ASSERT_TRUE(again.Next(v1::RefereeMessage::kDecisionRequest, &m));
  EXPECT_EQ(m.decision_request().decision_id(), 3u);
  again.Decide("lazy", 3, 2);
  r = match.catcher->Await(3, absl::Seconds(5));
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_EQ(r.action, 2);
}

// A SetBotDown that comes when the bot has a live stream (its restart has
// already connected) leaves that stream and its decisions alone.
TEST_F(ServiceTest, SetBotDownLeavesALiveStreamAlone) {
  RawBot bad(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBots({"bad"}, absl::Seconds(5)));
  LazyMatch match(*hub_);
  match.Ask(1);
  v1::RefereeMessage m;
  ASSERT_TRUE(bad.Next(v1::RefereeMessage::kDecisionRequest, &m));
  hub_->SetBotDown("bad", v1::FAULT_KIND_CRASHED, "an older process exited");
  EXPECT_EQ(match.catcher->Await(1, absl::Milliseconds(300)).fault,
            v1::FAULT_KIND_TIMEOUT);  // (no reply yet)
  bad.Decide("lazy", 1, 1);
  SeatReply r = match.catcher->Await(1, absl::Seconds(5));
  EXPECT_TRUE(r.ok) << r.detail;
  match.Ask(2);  // and later requests still go to it
  ASSERT_TRUE(bad.Next(v1::RefereeMessage::kDecisionRequest, &m));
  EXPECT_EQ(m.decision_request().decision_id(), 2u);
  EXPECT_TRUE(hub_->IsConnected("bad"));
}

// With the default wait, what a bot that owes nothing sends is read by the
// reaper's next rounds even though nothing is written to it.
TEST_F(ServiceTest, AStaleAnswerFromABotThatOwesNothingGetsItsNoticeWithinASecond) {
  ASSERT_TRUE(options_.lazy_reads);
  RawBot bad(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBots({"bad"}, absl::Seconds(5)));
  LazyMatch match(*hub_);
  ASSERT_TRUE(match.AskAndAnswer(bad, 1, 0).ok);
  const absl::Time t0 = absl::Now();
  bad.Decide("lazy", 1, 0);
  v1::RefereeMessage m;
  ASSERT_TRUE(bad.Next(v1::RefereeMessage::kNotice, &m, absl::Seconds(5)));
  EXPECT_EQ(m.notice().kind(), v1::NOTICE_KIND_STALE);
  EXPECT_LT(absl::Now() - t0, absl::Seconds(1));
}

class BoundsServiceTest : public ServiceTest {
 protected:
  BoundsServiceTest() {
    options_.hello_timeout = absl::Milliseconds(500);
    options_.max_outbound_bytes = 256 * 1024;
    options_.invalid_per_second = 1000000;  // the queue bound is tested here
  }
};

TEST_F(BoundsServiceTest, StreamWithoutHelloIsClosed) {
  RawBot silent(address_, "", /*hello=*/false);
  const absl::Time t0 = absl::Now();
  v1::RefereeMessage m;
  EXPECT_FALSE(silent.Next(v1::RefereeMessage::kWelcome, &m, absl::Seconds(10)));
  EXPECT_TRUE(silent.Ended());
  grpc::Status s = silent.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(s.error_message(), HasSubstr("no Hello within"));
  EXPECT_LT(absl::Now() - t0, absl::Seconds(5));
  EXPECT_EQ(hub_->Unauthenticated(), 0);
}

TEST_F(BoundsServiceTest, BotThatDoesNotReadIsCutOffAndIdsAreClipped) {
  RawBot flooder(address_, "t-bad", /*hello=*/true, /*read=*/false);
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  const std::string long_id(4000, 'x');
  int sent = 0;
  for (; sent < 200000 && hub_->CutOffs("bad") == 0; ++sent) {
    v1::BotMessage d;
    d.mutable_decision()->set_match_id(long_id);
    d.mutable_decision()->set_decision_id(sent);
    if (!flooder.Send(d)) break;
  }
  // Within the bound: 256 KiB of clipped notices is a few thousand.
  // (Counted as the stream is cut, and then the hub lets go of the bot.)
  for (int i = 0; i < 100 && (hub_->CutOffs("bad") == 0 || hub_->IsConnected("bad"));
       ++i) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(hub_->CutOffs("bad"), 1);
  EXPECT_FALSE(hub_->IsConnected("bad"));
  EXPECT_LT(sent, 200000);
}

TEST_F(ServiceTest, LongIdsAreEchoedClipped) {
  RawBot bot(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  bot.Decide(std::string(10000, 'y'), 1, 0);
  v1::RefereeMessage n;
  ASSERT_TRUE(bot.Next(v1::RefereeMessage::kNotice, &n));
  EXPECT_EQ(n.notice().kind(), v1::NOTICE_KIND_UNKNOWN_MATCH);
  EXPECT_LE(n.notice().match_id().size(), kMaxEchoedId + 20);
  EXPECT_THAT(n.notice().match_id(), HasSubstr("(10000 bytes)"));
  EXPECT_LE(n.notice().message().size(), 200u);
}

class BudgetServiceTest : public ServiceTest {
 protected:
  BudgetServiceTest() { options_.invalid_per_second = 50; }
};

TEST_F(BudgetServiceTest, TooManyInvalidMessagesDisconnect) {
  RawBot bot(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  for (int i = 0; i < 500; ++i) {
    v1::BotMessage empty;
    if (!bot.Send(empty)) break;
  }
  grpc::Status s = bot.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("invalid messages in one second"));
  EXPECT_EQ(hub_->CutOffs("bad"), 1);
}

// The flood limit counts only what cannot be an answer.
class FloodServiceTest : public ServiceTest {
 protected:
  FloodServiceTest() {
    options_.invalid_per_second = 20;
    options_.log_lines_per_10s = 3;
  }
  // Six matches at once between good1 and bad, bad at seat 0 and 1 in turn.
  std::vector<Played> PlaySixWithBad(const std::string& prefix, v1::FaultPolicy policy) {
    std::vector<std::thread> plays;
    std::vector<Played> results(6);
    for (int i = 0; i < 6; ++i) {
      plays.emplace_back([&, i] {
        results[i] = Play(absl::StrCat(prefix, i),
                          i % 2 ? std::vector<std::string>{"good1", "bad"}
                                : std::vector<std::string>{"bad", "good1"},
                          policy);
      });
    }
    for (auto& t : plays) t.join();
    return results;
  }
};

// A bot that sends every answer twice (the second is stale) at several
// matches at once is told so, but not counted as flooding: it loses nothing.
TEST_F(FloodServiceTest, ABotThatAnswersEveryDecisionTwiceLosesNothing) {
  RawBot bad(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  std::atomic<bool> done{false};
  std::atomic<int> answered{0}, stale{0};
  std::set<v1::NoticeKind> kinds;  // only the driver writes it before join
  std::thread driver([&] {
    const absl::Time until = absl::Now() + absl::Seconds(60);
    auto drain = [&] {
      v1::RefereeMessage n;
      while (bad.Next(v1::RefereeMessage::kNotice, &n, absl::ZeroDuration())) {
        kinds.insert(n.notice().kind());
        if (n.notice().kind() == v1::NOTICE_KIND_STALE) ++stale;
      }
    };
    while (!done && absl::Now() < until) {
      v1::RefereeMessage m;
      if (bad.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Milliseconds(100))) {
        const auto& r = m.decision_request();
        bad.Decide(r.match_id(), r.decision_id(), 0);
        bad.Decide(r.match_id(), r.decision_id(), 0);  // again
        ++answered;
      }
      drain();
    }
    absl::SleepFor(absl::Milliseconds(300));  // the last notices
    drain();
  });
  const std::vector<Played> results = PlaySixWithBad("twice-", v1::FAULT_POLICY_FORFEIT);
  done = true;
  driver.join();
  for (const auto& p : results) {
    EXPECT_EQ(p.outcome.result.end_reason(), v1::END_REASON_NORMAL)
        << p.outcome.result.detail();
    for (const auto& l : p.lines) {
      for (const auto& a : l.decision().actions()) {
        EXPECT_EQ(a.fault(), v1::FAULT_KIND_UNSPECIFIED) << a.ShortDebugString();
      }
    }
  }
  EXPECT_EQ(hub_->CutOffs("bad"), 0);
  EXPECT_TRUE(hub_->IsConnected("bad"));
  EXPECT_GT(answered.load(), 2 * options_.invalid_per_second);  // many repeats
  EXPECT_GT(stale.load(), 0);
  kinds.erase(v1::NOTICE_KIND_STALE);
  kinds.erase(v1::NOTICE_KIND_UNKNOWN_MATCH);  // a repeat after its match ended
  EXPECT_TRUE(kinds.empty());
}

// A bot that answers every decision illegally, fast, at several matches at
// once under the random-move policy: each is a fault (a random move is
// played for it), not a flood: it is never cut off, however many it sends.
TEST_F(FloodServiceTest, IllegalAnswersAreFaultsNotAFlood) {
  RawBot bad(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  std::atomic<bool> done{false};
  std::atomic<int> illegal{0};
  std::thread driver([&] {
    const absl::Time until = absl::Now() + absl::Seconds(60);
    while (!done && absl::Now() < until) {
      v1::RefereeMessage m;
      if (bad.Next(v1::RefereeMessage::kDecisionRequest, &m, absl::Milliseconds(100))) {
        const auto& r = m.decision_request();
        bad.Decide(r.match_id(), r.decision_id(), r.legal_actions_size());  // one past
        ++illegal;
      }
      v1::RefereeMessage n;
      while (bad.Next(v1::RefereeMessage::kNotice, &n, absl::ZeroDuration())) {
      }
    }
  });
  const std::vector<Played> results = PlaySixWithBad("illegal-", v1::FAULT_POLICY_RANDOM_MOVE);
  done = true;
  driver.join();
  int faults = 0;
  for (const auto& p : results) {
    EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT)
        << p.outcome.result.detail();
    for (const auto& l : p.lines) {
      for (const auto& a : l.decision().actions()) {
        if (a.fault() == v1::FAULT_KIND_UNSPECIFIED) continue;
        EXPECT_EQ(a.fault(), v1::FAULT_KIND_ILLEGAL) << a.ShortDebugString();
        ++faults;
      }
    }
  }
  EXPECT_GT(illegal.load(), 2 * options_.invalid_per_second);  // well past the limit
  EXPECT_EQ(faults, illegal.load());
  EXPECT_EQ(hub_->CutOffs("bad"), 0);
  EXPECT_TRUE(hub_->IsConnected("bad"));
}

// A bot that sends garbage past the limit is cut off: counted, logged even
// though its warnings used up its log budget long before, and its open
// decision fails as CUT_OFF with the reason (not left to the grace); so
// does a request made to it afterwards.
TEST_F(FloodServiceTest, AFloodIsCutOffLoudlyAndItsOpenDecisionFailsAsCutOff) {
  auto log = std::make_shared<std::ostringstream>();
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(*log);
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  absl::Cleanup restore = [&] { spdlog::set_default_logger(previous); };

  RawBot bad(address_, "t-bad");
  ASSERT_TRUE(hub_->WaitForBot("bad", absl::Seconds(5)));
  LazyMatch match(*hub_);
  match.Ask(1);
  v1::RefereeMessage m;
  ASSERT_TRUE(bad.Next(v1::RefereeMessage::kDecisionRequest, &m));
  const absl::Time t0 = absl::Now();
  for (int i = 0; i < 500; ++i) {
    v1::BotMessage empty;
    if (!bad.Send(empty)) break;
  }
  SeatReply r = match.catcher->Await(1, absl::Seconds(3));  // the grace is 5 s
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fault, v1::FAULT_KIND_CUT_OFF) << r.detail;
  EXPECT_EQ(r.detail, "more than 20 invalid messages in one second");
  EXPECT_LT(absl::Now() - t0, absl::Seconds(3));
  grpc::Status s = bad.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(hub_->CutOffs("bad"), 1);
  match.Ask(2);  // until it connects again
  r = match.catcher->Await(2, absl::Seconds(3));
  EXPECT_EQ(r.fault, v1::FAULT_KIND_CUT_OFF) << r.detail;

  std::move(restore).Invoke();
  const std::string text = log->str();
  EXPECT_THAT(text, HasSubstr("bot bad (ipv4:127.0.0.1:"));
  EXPECT_THAT(text, HasSubstr("cut off: more than 20 invalid messages in one second"));
  // The budget was spent: the notices' own warnings stopped after 3 lines
  // (its connect line among them), while it sent over 20.
  int malformed = 0;
  for (size_t at = 0; (at = text.find("message with no known content", at)) !=
                      std::string::npos; ++at) {
    ++malformed;
  }
  EXPECT_LT(malformed, options_.log_lines_per_10s);
}

// Unknown tokens from one address are refused more and more slowly (100 ms,
// doubling to 2 s), each still as UNAUTHENTICATED.
TEST_F(ServiceTest, UnknownTokensAreRefusedMoreSlowlyPerAddress) {
  std::vector<absl::Duration> took;
  for (int i = 0; i < 5; ++i) {
    const absl::Time t0 = absl::Now();
    RawBot guess(address_, absl::StrCat("guess-", i));
    grpc::Status s = guess.Finish();
    took.push_back(absl::Now() - t0);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << i;
    EXPECT_THAT(s.error_message(), HasSubstr("unknown token"));
  }
  EXPECT_GE(took[4], absl::Milliseconds(1000));  // the fifth waits 1.6 s
  EXPECT_GT(took[4], took[0]);
}

// A client that guesses tokens from the same address as honest
// bots (127.0.0.1 here; in arena's sandbox every bot is "unix:") slows only
// its own answers. Every honest Hello meanwhile is welcomed at once and the
// honest bots' matches are played.
TEST_F(ServiceTest, AGuesserOnTheSameAddressLocksNoHonestBotOut) {
  std::atomic<bool> stop{false};
  std::atomic<int> guesses{0}, refused{0};
  absl::Mutex mu;
  absl::Duration slowest;  // guarded by mu
  std::vector<std::thread> flooders;
  for (int t = 0; t < 2; ++t) {
    flooders.emplace_back([&, t] {
      const absl::Time until = absl::Now() + absl::Seconds(20);
      for (int i = 0; i < 200 && !stop && absl::Now() < until; ++i) {
        const absl::Time t0 = absl::Now();
        RawBot guess(address_, absl::StrCat("guess-", t, "-", i));
        grpc::Status s = guess.Finish();
        ++guesses;
        if (s.error_code() == grpc::StatusCode::UNAUTHENTICATED) ++refused;
        absl::MutexLock lock(&mu);
        slowest = std::max(slowest, absl::Now() - t0);
      }
    });
  }
  absl::Cleanup join = [&] {  // also when an assertion below returns early
    stop = true;
    for (auto& t : flooders) t.join();
  };
  for (int i = 0; i < 100 && guesses < 4; ++i) absl::SleepFor(absl::Milliseconds(50));
  ASSERT_GE(guesses.load(), 4);  // the address is backing off by now
  ASSERT_NO_FATAL_FAILURE(HonestBotsAreWelcomedAndPlay());
  std::move(join).Invoke();
  EXPECT_EQ(refused.load(), guesses.load());
  absl::MutexLock lock(&mu);
  EXPECT_GE(slowest, absl::Seconds(1));  // slowed: its waits reached 1.6 s
}

// A small cap on streams without Hello, for the tests of what happens when
// clients hold all of it.
class CapServiceTest : public ServiceTest {
 protected:
  static constexpr int kCap = 8;
  CapServiceTest() { options_.max_unauthenticated = kCap; }

  // Waits (bounded) until `bot`'s stream has ended.
  static bool EndsWithin(RawBot& bot, absl::Duration timeout) {
    const absl::Time until = absl::Now() + timeout;
    while (!bot.Ended() && absl::Now() < until) absl::SleepFor(absl::Milliseconds(5));
    return bot.Ended();
  }
};

// One client holds the cap's worth of silent streams and another
// that many unknown-token ones (each reopened 50 ms after it ends). A new
// stream makes room instead of being refused, so honest bots are welcomed
// at once and play, and the hub never holds more than the cap.
TEST_F(CapServiceTest, ClientsHoldingEveryStreamWithoutHelloLockNoHonestBotOut) {
  std::atomic<bool> stop{false};
  std::atomic<int> opened{0}, guesses_refused{0};
  std::atomic<int> most{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // watches the bound
    const absl::Time until = absl::Now() + absl::Seconds(60);
    while (!stop && absl::Now() < until) {
      const int n = hub_->Unauthenticated();
      if (n > most) most = n;
      absl::SleepFor(absl::Milliseconds(1));
    }
  });
  for (int t = 0; t < 2 * kCap; ++t) {
    const bool silent = t < kCap;
    threads.emplace_back([&, t, silent] {
      const absl::Time until = absl::Now() + absl::Seconds(60);
      for (int i = 0; i < 2000 && !stop && absl::Now() < until; ++i) {
        {
          RawBot s(address_, absl::StrCat("guess-", t, "-", i), /*hello=*/!silent);
          ++opened;
          while (!stop && !s.Ended() && absl::Now() < until) {
            absl::SleepFor(absl::Milliseconds(10));
          }
          if (!silent && s.Ended()) {
            grpc::Status st = s.Finish();
            if (st.error_code() == grpc::StatusCode::UNAUTHENTICATED) ++guesses_refused;
          }
        }
        absl::SleepFor(absl::Milliseconds(50));
      }
    });
  }
  absl::Cleanup join = [&] {  // also when an assertion below returns early
    stop = true;
    for (auto& t : threads) t.join();
  };
  // The cap is held, and newcomers have had to make room.
  for (int i = 0; i < 200 && (hub_->Unauthenticated() < kCap || opened < 4 * kCap);
       ++i) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_EQ(hub_->Unauthenticated(), kCap);
  ASSERT_NO_FATAL_FAILURE(HonestBotsAreWelcomedAndPlay());
  std::move(join).Invoke();
  EXPECT_LE(most.load(), kCap);
  EXPECT_EQ(most.load(), kCap);  // it was held full
  EXPECT_GT(hub_->Evicted(), 0);
  EXPECT_GT(guesses_refused.load(), 0);
}

// The rule for whom a newcomer evicts: the oldest (by arrival) of the
// streams waiting for an unknown token's refusal, else the oldest silent
// one; no stream is spared for being young, so a silent stream goes only
// once kCap streams have arrived after it. An evicted silent stream ends
// with UNAVAILABLE (bots retry it), an unknown token with UNAUTHENTICATED.
class EvictionOrderServiceTest : public CapServiceTest {
 protected:
  EvictionOrderServiceTest() {
    options_.hello_timeout = absl::Seconds(30);  // only eviction ends them here
    options_.token_backoff_first = absl::Seconds(30);
    options_.token_backoff_max = absl::Seconds(30);
  }
};

TEST_F(EvictionOrderServiceTest, NewcomersEvictUnknownTokensFirstThenTheOldestSilent) {
  std::vector<std::unique_ptr<RawBot>> old_silent;  // arrive in this order
  for (int i = 0; i < kCap; ++i) {
    old_silent.push_back(std::make_unique<RawBot>(address_, "", /*hello=*/false));
    for (int j = 0; j < 200 && hub_->Unauthenticated() < i + 1; ++j) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_EQ(hub_->Unauthenticated(), i + 1);
  }
  // Full. A guess arrives silent, so it evicts the oldest silent stream.
  RawBot guess(address_, "no-such-token");
  ASSERT_TRUE(EndsWithin(*old_silent[0], absl::Seconds(5)));
  grpc::Status s = old_silent[0]->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(s.error_message(), HasSubstr("too many streams without Hello"));
  EXPECT_EQ(hub_->Evicted(), 1);
  EXPECT_EQ(hub_->Unauthenticated(), kCap);
  // Once its Hello is read, the guess (the youngest) is the first to go.
  absl::SleepFor(absl::Milliseconds(500));
  std::vector<std::unique_ptr<RawBot>> newer;
  newer.push_back(std::make_unique<RawBot>(address_, "", /*hello=*/false));
  ASSERT_TRUE(EndsWithin(guess, absl::Seconds(5)));
  s = guess.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(s.error_message(), HasSubstr("unknown token"));
  // Then the silent ones by age, whatever theirs: each of kCap - 1 newer
  // arrivals evicts the next old one, and the newest is never the one.
  for (int i = 1; i < kCap; ++i) {
    newer.push_back(std::make_unique<RawBot>(address_, "", /*hello=*/false));
    ASSERT_TRUE(EndsWithin(*old_silent[i], absl::Seconds(5))) << i;
    for (const auto& n : newer) EXPECT_FALSE(n->Ended()) << i;
    for (int j = i + 1; j < kCap; ++j) EXPECT_FALSE(old_silent[j]->Ended()) << i;
    EXPECT_EQ(old_silent[i]->Finish().error_code(), grpc::StatusCode::UNAVAILABLE) << i;
  }
  // Now every stream is newer than newer[0], which goes with the next.
  RawBot last(address_, "", /*hello=*/false);
  ASSERT_TRUE(EndsWithin(*newer[0], absl::Seconds(5)));
  for (size_t i = 1; i < newer.size(); ++i) EXPECT_FALSE(newer[i]->Ended()) << i;
  EXPECT_EQ(hub_->Evicted(), kCap + 2);
  EXPECT_EQ(hub_->Unauthenticated(), kCap);
  // An honest bot is welcomed at once, full or not.
  RawBot honest(address_, "t-bad");
  v1::RefereeMessage m;
  ASSERT_TRUE(honest.Next(v1::RefereeMessage::kWelcome, &m, absl::Seconds(5)));
  EXPECT_TRUE(hub_->IsConnected("bad"));
  EXPECT_EQ(hub_->Evicted(), kCap + 3);  // it arrived silent, like any stream
}

TEST_F(ServiceTest, SilentBotWithoutTimeControlEndsByTheDefaultDeadline) {
  const absl::Time t0 = absl::Now();
  Played p = WithBadBot([](RawBot&) {}, v1::FAULT_POLICY_FORFEIT, /*decision_ms=*/0);
  const absl::Duration took = absl::Now() - t0;
  ASSERT_NE(ForfeitOf(p), nullptr);
  EXPECT_EQ(ForfeitOf(p)->fault(), v1::FAULT_KIND_TIMEOUT);
  EXPECT_GE(took, absl::Milliseconds(kDefaultDecisionMs));
  EXPECT_LT(took, absl::Milliseconds(3 * kDefaultDecisionMs));
  ASSERT_TRUE(p.lines[0].has_header());
  EXPECT_EQ(p.lines[0].header().time_control().decision_ms(), kDefaultDecisionMs);
  EXPECT_TRUE(p.lines[0].header().default_time_control());
}

}  // namespace
}  // namespace arena
