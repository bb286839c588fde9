// Fair clocks: a decision's clock starts when its request leaves for the bot
// (not when the match hands it to its link), and the tournament's verdict on
// timeouts that the machine's load causes (AssessLoad).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/tournament/tournament.h"
#include "gtest/gtest.h"
#include "referee/clock/mono_clock.h"
#include "referee/games/registry.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"

namespace arena {
namespace {

// ---------------------------------------------------------------- AssessLoad

LoadSample::Bot Bot(const std::string& name, int64_t answered, double mean_ms,
                    int64_t timeouts) {
  LoadSample::Bot b;
  b.name = name;
  b.answered = answered;
  b.think_us_sum = static_cast<int64_t>(answered * mean_ms * 1000);
  b.timeouts = timeouts;
  return b;
}

LoadSample Sample(int jobs, int64_t decision_ms, std::vector<LoadSample::Bot> bots) {
  LoadSample s;
  s.jobs = jobs;
  s.decision_ms = decision_ms;
  s.bots = std::move(bots);
  s.requests = 1000;
  s.send_lag_us_sum = s.requests * decision_ms * 100;  // a tenth: lagging
  return s;
}

TEST(AssessLoad, NoTimeoutsNoVerdict) {
  const LoadVerdict v = AssessLoad(
      Sample(64, 10, {Bot("a", 1000, 4, 0), Bot("b", 1000, 4, 0)}));
  EXPECT_FALSE(v.saturated);
  EXPECT_EQ(v.timeouts, 0);
  EXPECT_TRUE(v.text.empty());
}

TEST(AssessLoad, FastBotsTimingOutTogetherAreTheLoad) {
  // Four bots that answer in 2 ms on average at a 10 ms deadline, each with
  // timeouts: 64 * 10 / (8 * 2) = 40 matches at once would fit.
  const LoadVerdict v = AssessLoad(Sample(
      64, 10,
      {Bot("a", 1000, 2, 5), Bot("b", 1000, 2, 3), Bot("c", 1000, 2, 1),
       Bot("d", 1000, 2, 0)}));
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.timeouts, 9);
  EXPECT_EQ(v.load_timeouts, 9);
  EXPECT_EQ(v.suggested_jobs, 40);
  EXPECT_NE(v.text.find("try --jobs 40"), std::string::npos) << v.text;
}

TEST(AssessLoad, ASlowBotIsNotTheLoad) {
  // The one bot that times out takes 8 ms of its 10 on average: its pace,
  // not the machine's; the others answer fast and never time out.
  // (The referee lags all the same.)
  const LoadVerdict v = AssessLoad(Sample(
      64, 10, {Bot("slow", 1000, 8, 40), Bot("b", 1000, 0.5, 0), Bot("c", 1000, 0.5, 0)}));
  EXPECT_FALSE(v.saturated);
  EXPECT_EQ(v.timeouts, 40);
  EXPECT_EQ(v.load_timeouts, 0);
  EXPECT_EQ(v.suggested_jobs, 0);
}

TEST(AssessLoad, BotsSlowedAlikeByTheLoadAreNotSlowBots) {
  // All four take over half the deadline on average, alike: the load.
  const LoadVerdict v = AssessLoad(Sample(
      64, 10,
      {Bot("a", 1000, 5.4, 30), Bot("b", 1000, 5.1, 28), Bot("c", 1000, 3.9, 19),
       Bot("d", 1000, 4.1, 21)}));
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.load_timeouts, 98);
}

TEST(AssessLoad, SlowBotsTimeoutsAreNotCountedBesideTheLoad) {
  const LoadVerdict v = AssessLoad(Sample(
      8, 10, {Bot("slow", 1000, 8, 40), Bot("b", 1000, 1, 2), Bot("c", 1000, 1, 1)}));
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.timeouts, 43);
  EXPECT_EQ(v.load_timeouts, 3);
}

TEST(AssessLoad, FastBotsTimingOutNeedTheRefereesLag) {
  LoadSample s = Sample(4, 100, {Bot("a", 1000, 1, 2), Bot("b", 1000, 1, 3)});
  s.send_lag_us_sum = s.requests * 4900;  // just under a twentieth of 100 ms
  s.send_lag_us_max = 49000;              // just under half
  LoadVerdict v = AssessLoad(s);
  EXPECT_FALSE(v.saturated) << "the bots' own hiccups";
  EXPECT_EQ(v.load_timeouts, 5);
  EXPECT_NE(v.summary.find("5 timeouts"), std::string::npos) << v.summary;
  s.send_lag_us_sum = s.requests * 5000;  // 5 ms a request: a twentieth
  EXPECT_TRUE(AssessLoad(s).saturated);
  s.send_lag_us_sum = 0;
  s.send_lag_us_max = 50000;  // one request waited half the deadline
  EXPECT_TRUE(AssessLoad(s).saturated);
}

TEST(AssessLoad, SuggestionStaysBelowTheJobsAndAtLeastOne) {
  // Mean time already small: the tail timed out, so fewer jobs all the same.
  LoadVerdict v = AssessLoad(
      Sample(64, 10, {Bot("a", 1000, 0.1, 1), Bot("b", 1000, 0.1, 1)}));
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.suggested_jobs, 63);
  v = AssessLoad(Sample(2, 10, {Bot("a", 1000, 2.4, 1), Bot("b", 1000, 2.4, 1)}));
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.suggested_jobs, 1);
  v = AssessLoad(Sample(1, 10, {Bot("a", 1000, 2, 1), Bot("b", 1000, 2, 1)}));
  EXPECT_EQ(v.suggested_jobs, 1);
}

// ------------------------------------------------ the clock starts at leaving

// A link whose requests leave when the test says so (Leave), answered when
// the test says so (Answer).
class HeldLink : public SeatLink {
 public:
  struct Request {
    int seat = 0;
    uint64_t id = 0;
  };
  explicit HeldLink(bool reports_leaving) : reports_leaving_(reports_leaving) {}
  bool ReportsLeaving() const override { return reports_leaving_; }
  void Start(int, const v1::MatchStart&) override {}
  void Send(int seat, OutMessage m, int) override {
    absl::MutexLock lock(&mu_);
    requests_.push_back({seat, m->decision_request().decision_id()});
  }
  void End(int, const v1::MatchEnd&) override {}

  bool NextRequest(Request* r, absl::Duration timeout = absl::Seconds(10)) {
    absl::MutexLock lock(&mu_);
    auto any = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !requests_.empty(); };
    if (!mu_.AwaitWithTimeout(absl::Condition(&any), timeout)) return false;
    *r = requests_.front();
    requests_.erase(requests_.begin());
    return true;
  }
  void Leave(const Request& r) {
    if (auto l = listener()) l->OnLeft(r.seat, r.id, MonoNow());
  }
  void Answer(const Request& r) {
    SeatReply reply;
    reply.ok = true;
    reply.action = 0;
    Deliver(r.seat, r.id, reply);
  }

 private:
  const bool reports_leaving_;
  absl::Mutex mu_;
  std::vector<Request> requests_ ABSL_GUARDED_BY(mu_);
};

struct Played {
  MatchOutcome outcome;
  absl::Duration since_start;  // from before Start to the end
};

// A Quäsenbö match whose first request leaves `leave_after` after it was
// sent (never if infinite: then nothing is answered) and is answered
// `answer_after` after that; every later one leaves and is answered at once.
Played Play(bool reports_leaving, int64_t decision_ms, absl::Duration leave_after,
            absl::Duration answer_after,
            const std::function<void(MatchSpec&)>& edit = nullptr) {
  auto game = CreateGame("quasenbo", {}, 2);
  EXPECT_TRUE(game.ok());
  MatchSpec spec;
  spec.match_id = "clock-1";
  spec.game_name = "quasenbo";
  spec.seat_bots = {"a", "b"};
  spec.seed = 7;
  spec.time_control.set_decision_ms(decision_ms);
  spec.auto_moves = v1::AUTO_MOVES_NONE;
  if (edit) edit(spec);
  auto link = std::make_shared<HeldLink>(reports_leaving);
  auto writer = RecordWriter::Open("", spec.match_id);
  EXPECT_TRUE(writer.ok());
  absl::Notification done;
  Played played;
  auto match = Match::Create(**game, spec, link,
                             std::shared_ptr<RecordWriter>(*std::move(writer)),
                             [&](MatchOutcome o) {
                               played.outcome = std::move(o);
                               done.Notify();
                             });
  const absl::Time started = MonoNow();
  match->Start();
  HeldLink::Request r;
  EXPECT_TRUE(link->NextRequest(&r));
  if (leave_after != absl::InfiniteDuration()) {
    absl::SleepFor(leave_after);
    link->Leave(r);
    absl::SleepFor(answer_after);
    link->Answer(r);
    while (!done.HasBeenNotified() && link->NextRequest(&r, absl::Milliseconds(50))) {
      link->Leave(r);
      link->Answer(r);
    }
  }
  EXPECT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  played.since_start = MonoNow() - started;
  return played;
}

TEST(FairClock, ARequestThatLeavesLateIsTimedFromItsLeaving) {
  // Left 1.2 s after it was sent (past the 1 s deadline counted from the
  // send), answered 50 ms after it left: in time, since its clock started
  // when it left.
  const Played p = Play(/*reports_leaving=*/true, 1000, absl::Milliseconds(1200),
                        absl::Milliseconds(50));
  EXPECT_TRUE(p.outcome.faults.empty());
  EXPECT_EQ(p.outcome.result.end_reason(), v1::END_REASON_NORMAL);
  ASSERT_EQ(p.outcome.timing.seats.size(), 2u);
  EXPECT_GE(p.outcome.timing.send_lag_us_max, 1200000);
  // The answer's time is counted from the leaving: 50 ms, not 1,250.
  EXPECT_LT(p.outcome.timing.seats[0].think_us_max, 1000000);
}

TEST(FairClock, WithoutLeavingReportsTheClockStartsAtTheSend) {
  // The same, from a link that does not report leaving: timed from the
  // send, the first request times out at 1 s.
  const Played p = Play(/*reports_leaving=*/false, 1000, absl::Milliseconds(1200),
                        absl::Milliseconds(50));
  ASSERT_EQ(p.outcome.faults.size(), 1u);
  EXPECT_EQ(p.outcome.faults[0].kind, v1::FAULT_KIND_TIMEOUT);
  EXPECT_EQ(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
}

TEST(FairClock, ARequestThatLeavesPastADecisionTimeHasItsClockStartedThen) {
  // Left 900 ms after the send with a 300 ms deadline: it had not left a
  // decision time after the send, so its clock started then and it timed
  // out 600 ms after the send; the answer that follows is too late.
  const Played p = Play(/*reports_leaving=*/true, 300, absl::Milliseconds(900),
                        absl::Milliseconds(10));
  ASSERT_EQ(p.outcome.faults.size(), 1u);
  EXPECT_EQ(p.outcome.faults[0].kind, v1::FAULT_KIND_TIMEOUT);
}

TEST(FairClock, ARequestThatNeverLeavesTimesOutAfterTwoDecisionTimes) {
  // Nothing leaves, nothing is answered: a timeout, not before 2 x 300 ms
  // (a lower bound: a loaded machine can only make it later).
  const Played p = Play(/*reports_leaving=*/true, 300, absl::InfiniteDuration(),
                        absl::ZeroDuration());
  ASSERT_EQ(p.outcome.faults.size(), 1u);
  EXPECT_EQ(p.outcome.faults[0].kind, v1::FAULT_KIND_TIMEOUT);
  EXPECT_GE(p.since_start, absl::Milliseconds(600));
}

// ------------------------------------- a tournament's stagger of match starts

// MatchSpec::on_first_answer: told once, when the first answer comes or,
// without one, when the match ends; always before the match's `done`, so
// that a tournament's count of matches waiting for a first answer is right
// when it books the match.
struct FirstAnswerTally {
  absl::Mutex mu;
  int told = 0;
  // For Play's `edit`: counts each time the match tells its first answer.
  std::function<void(MatchSpec&)> Counting() {
    return [this](MatchSpec& spec) {
      spec.on_first_answer = [this] {
        absl::MutexLock lock(&mu);
        ++told;
      };
    };
  }
};

TEST(FairClock, TheFirstAnswerIsToldOnceBeforeTheMatchEnds) {
  FirstAnswerTally t;
  const Played p = Play(/*reports_leaving=*/true, 1000, absl::ZeroDuration(),
                        absl::ZeroDuration(), t.Counting());
  EXPECT_EQ(p.outcome.result.end_reason(), v1::END_REASON_NORMAL);
  absl::MutexLock lock(&t.mu);
  EXPECT_EQ(t.told, 1);  // not once per answer (a match asks about 30 times)
  ASSERT_EQ(p.outcome.timing.seats.size(), 2u);
  EXPECT_GT(p.outcome.timing.seats[0].answered + p.outcome.timing.seats[1].answered, 2);
}

TEST(FairClock, AMatchWithoutAnAnswerTellsItAtItsEnd) {
  FirstAnswerTally t;
  const Played p = Play(/*reports_leaving=*/true, 200, absl::InfiniteDuration(),
                        absl::ZeroDuration(), t.Counting());
  ASSERT_EQ(p.outcome.faults.size(), 1u);
  EXPECT_EQ(p.outcome.faults[0].kind, v1::FAULT_KIND_TIMEOUT);
  absl::MutexLock lock(&t.mu);
  EXPECT_EQ(t.told, 1);  // by the time `done` ran (Play waits for it)
}

}  // namespace
}  // namespace arena
