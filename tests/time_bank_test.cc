// The time bank (TimeControl.time_bank_ms): a decision may run past the
// decision time by spending from its seat's bank for the match; the bot is
// told what is left with each request; the record holds what each decision
// spent, and verify checks the accounting.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/records/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/clock/mono_clock.h"
#include "referee/games/registry.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

// A bot at every seat whose k-th answer (counted over the match, from 0)
// takes think(k): the request leaves at once, the answer comes that long
// after, from the test's thread. What each request said of the bank is kept.
class TimedLink : public SeatLink {
 public:
  bool ReportsLeaving() const override { return true; }
  void Start(int, const v1::MatchStart& start) override {
    absl::MutexLock lock(&mu_);
    start_bank_ms_ = start.time_control().time_bank_ms();
  }
  int64_t start_bank_ms() {
    absl::MutexLock lock(&mu_);
    return start_bank_ms_;
  }
  void Send(int seat, OutMessage m, int) override {
    absl::MutexLock lock(&mu_);
    queue_.push_back({seat, m->decision_request().decision_id(),
                      m->decision_request().time_bank_ms()});
  }
  void End(int, const v1::MatchEnd&) override {}

  struct Request {
    int seat = 0;
    uint64_t id = 0;
    int64_t bank_ms = 0;  // DecisionRequest.time_bank_ms
  };
  bool Next(Request* r, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto any = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !queue_.empty(); };
    if (!AwaitWithMonoTimeout(&mu_, absl::Condition(&any), timeout)) return false;
    *r = queue_.front();
    queue_.erase(queue_.begin());
    return true;
  }
  // Leaves now, answers `think` later (the think time as a link measures it).
  void LeaveAndAnswer(const Request& r, absl::Duration think) {
    const absl::Time left = MonoNow();
    if (auto l = listener()) l->OnLeft(r.seat, r.id, left);
    absl::SleepFor(think);
    SeatReply reply;
    reply.ok = true;
    reply.action = 0;
    reply.think_us = absl::ToInt64Microseconds(MonoNow() - left);
    Deliver(r.seat, r.id, reply);
  }

 private:
  absl::Mutex mu_;
  std::vector<Request> queue_ ABSL_GUARDED_BY(mu_);
  int64_t start_bank_ms_ ABSL_GUARDED_BY(mu_) = -1;
};

struct Played {
  MatchOutcome outcome;
  std::vector<v1::RecordLine> lines;
  std::vector<TimedLink::Request> requests;  // in order
  int64_t start_bank_ms = -1;                // MatchStart's time control
};

// A 2-seat match (Quäsenbö unless said) of at most 60 decisions at decision_ms 100 and the given bank, the k-th
// answer (of the match), at `seat`, taking think(k, seat).
Played Play(int64_t bank_ms, const std::function<absl::Duration(int k, int seat)>& think,
            v1::FaultPolicy policy = v1::FAULT_POLICY_FORFEIT,
            const std::string& game_name = "quasenbo") {
  auto game = CreateGame(game_name, {}, 2);
  EXPECT_TRUE(game.ok());
  MatchSpec spec;
  spec.match_id = "bank-1";
  spec.game_name = game_name;
  spec.decision_cap = 60;  // enough: the match need not end by the rules
  spec.seat_bots = {"a", "b"};
  spec.seed = 11;
  spec.time_control.set_decision_ms(100);
  spec.time_control.set_time_bank_ms(bank_ms);
  spec.auto_moves = v1::AUTO_MOVES_NONE;
  spec.fault_policy = policy;
  auto link = std::make_shared<TimedLink>();
  auto writer = RecordWriter::Open("", spec.match_id);
  EXPECT_TRUE(writer.ok());
  // Kept here too: the match lets go of its writer when it ends.
  std::shared_ptr<RecordWriter> records(*std::move(writer));
  absl::Notification done;
  Played played;
  auto match = Match::Create(**game, spec, link, records,
                             [&](MatchOutcome o) {
                               played.outcome = std::move(o);
                               done.Notify();
                             });
  match->Start();
  TimedLink::Request r;
  for (int k = 0; !done.HasBeenNotified() && link->Next(&r, absl::Milliseconds(200)); ++k) {
    played.requests.push_back(r);
    link->LeaveAndAnswer(r, think(k, r.seat));
  }
  EXPECT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(60)));
  played.start_bank_ms = link->start_bank_ms();
  auto lines = ParseRecordLines(records->lines(), "bank");
  EXPECT_TRUE(lines.ok()) << lines.status();
  if (lines.ok()) played.lines = *std::move(lines);
  return played;
}

// Every seat action of the record, in order.
std::vector<v1::SeatAction> Actions(const std::vector<v1::RecordLine>& lines) {
  std::vector<v1::SeatAction> out;
  for (const auto& l : lines) {
    if (!l.has_decision()) continue;
    for (const auto& a : l.decision().actions()) out.push_back(a);
  }
  return out;
}

// One answer in ten takes 150 ms, 1.5 times the 100 ms decision time.
absl::Duration OneInTenSlow(int k, int) {
  return k % 10 == 9 ? absl::Milliseconds(150) : absl::Milliseconds(2);
}

TEST(TimeBank, ABankThatCoversTheSlowDecisionsLosesNothing) {
  // Pesten, whose matches are longer: 60 decisions, 6 of them slow.
  const Played p = Play(/*bank_ms=*/2000, OneInTenSlow, v1::FAULT_POLICY_FORFEIT, "pesten");
  EXPECT_TRUE(p.outcome.faults.empty());
  EXPECT_NE(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  EXPECT_EQ(p.start_bank_ms, 2000);  // MatchStart gives the whole bank
  const std::vector<v1::SeatAction> actions = Actions(p.lines);
  ASSERT_GE(actions.size(), 20u);
  ASSERT_EQ(actions.size(), p.requests.size());
  // Each slow answer spent about its 50 ms over the decision time (its
  // think time less 100 ms); the quick ones nothing. The bot was told, with
  // each request, the bank less what its seat had spent before.
  std::map<int, int64_t> spent_us;  // by seat
  int slow = 0;
  for (size_t k = 0; k < actions.size(); ++k) {
    const v1::SeatAction& a = actions[k];
    ASSERT_EQ(a.seat(), p.requests[k].seat);
    EXPECT_EQ(p.requests[k].bank_ms, (2000'000 - spent_us[a.seat()]) / 1000) << k;
    if (k % 10 == 9) {
      ++slow;
      EXPECT_GE(a.bank_spent_us(), 50'000 - 1000) << k;
      EXPECT_LE(a.bank_spent_us(), a.think_us() - 100'000) << k;
      EXPECT_LT(a.bank_spent_us(), 150'000) << k;
    } else {
      EXPECT_EQ(a.bank_spent_us(), 0) << k;
    }
    spent_us[a.seat()] += a.bank_spent_us();
  }
  EXPECT_GE(slow, 2);
  // The match's timing (the standings' source during a run) adds up the same.
  ASSERT_EQ(p.outcome.timing.seats.size(), 2u);
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(p.outcome.timing.seats[s].think.bank_spent_us(), spent_us[s]) << s;
  }
  EXPECT_TRUE(VerifyRecord(p.lines, "bank").ok()) << VerifyRecord(p.lines, "bank");
}

TEST(TimeBank, WithoutABankTheSameBotTimesOut) {
  const Played p = Play(/*bank_ms=*/0, OneInTenSlow);
  ASSERT_EQ(p.outcome.faults.size(), 1u);
  EXPECT_EQ(p.outcome.faults[0].kind, v1::FAULT_KIND_TIMEOUT);
  EXPECT_EQ(p.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  // At its first slow answer: the tenth request.
  EXPECT_EQ(p.requests.size(), 10u);
  for (const auto& r : p.requests) EXPECT_EQ(r.bank_ms, 0);
}

TEST(TimeBank, ABotThatOverspendsItsBankTimesOutWhenItRunsOut) {
  // A 200 ms bank; seat 0's first two answers take 250 ms. The first spends
  // about 150 ms of the bank; the second has the rest, about 50 ms, and
  // times out 100 ms + that after it left, before its 250 ms are up.
  // (Random moves replace faults, so the record holds the timeout.)
  int seat0_answers = 0;
  const Played p = Play(
      /*bank_ms=*/200,
      [&](int, int seat) {
        if (seat != 0 || seat0_answers++ >= 2) return absl::Milliseconds(2);
        return absl::Milliseconds(250);
      },
      v1::FAULT_POLICY_RANDOM_MOVE);
  std::vector<v1::SeatAction> seat0;
  for (const v1::SeatAction& a : Actions(p.lines)) {
    if (a.seat() == 0) seat0.push_back(a);
  }
  ASSERT_GE(seat0.size(), 3u);
  const v1::SeatAction& first = seat0[0];
  const v1::SeatAction& second = seat0[1];
  EXPECT_EQ(first.source(), v1::SeatAction::SOURCE_BOT);
  EXPECT_GE(first.bank_spent_us(), 150'000 - 1000);
  EXPECT_LT(first.bank_spent_us(), 200'000);
  const int64_t left_us = 200'000 - first.bank_spent_us();
  EXPECT_EQ(second.source(), v1::SeatAction::SOURCE_REFEREE_FAULT);
  EXPECT_EQ(second.fault(), v1::FAULT_KIND_TIMEOUT);
  EXPECT_THAT(second.fault_detail(), HasSubstr("time bank"));
  EXPECT_EQ(second.bank_spent_us(), left_us);
  // Timed out when the decision time and the bank left had run: not
  // before, and well before the 250 ms the bot took.
  EXPECT_GE(second.think_us(), 100'000 + left_us - 1000);
  EXPECT_LT(second.think_us(), 100'000 + left_us + 60'000);
  EXPECT_LT(second.think_us(), 240'000);
  // Nothing left after that: the next request says so, and spends nothing.
  EXPECT_EQ(seat0[2].bank_spent_us(), 0);
  EXPECT_TRUE(VerifyRecord(p.lines, "overspent").ok()) << VerifyRecord(p.lines, "overspent");
}

// The record's accounting, edited, fails verify and says what is wrong.
std::string VerifyEdited(std::vector<v1::RecordLine> lines,
                         const std::function<void(v1::SeatAction*)>& edit, int which) {
  int k = 0;
  for (auto& l : lines) {
    if (!l.has_decision()) continue;
    for (auto& a : *l.mutable_decision()->mutable_actions()) {
      if (k++ == which) edit(&a);
    }
  }
  return std::string(VerifyRecord(lines, "edited").message());
}

TEST(TimeBank, ARecordWhoseBankAccountingIsEditedFailsVerify) {
  const Played p = Play(/*bank_ms=*/120, OneInTenSlow, v1::FAULT_POLICY_RANDOM_MOVE);
  ASSERT_TRUE(VerifyRecord(p.lines, "as written").ok()) << VerifyRecord(p.lines, "as written");
  const std::vector<v1::SeatAction> actions = Actions(p.lines);
  int slow = -1;  // the first decision that spent
  for (size_t k = 0; k < actions.size() && slow < 0; ++k) {
    if (actions[k].bank_spent_us() > 0) slow = static_cast<int>(k);
  }
  ASSERT_GE(slow, 0);
  // More spent than the bank held.
  EXPECT_THAT(VerifyEdited(p.lines, [](v1::SeatAction* a) { a->set_bank_spent_us(500'000); },
                           slow),
              HasSubstr("were left"));
  // Spending on a quick answer, which ran nothing past the decision time.
  EXPECT_THAT(VerifyEdited(p.lines, [](v1::SeatAction* a) { a->set_bank_spent_us(10'000); }, 0),
              HasSubstr("past the decision time"));
  // A negative spending.
  EXPECT_THAT(VerifyEdited(p.lines, [](v1::SeatAction* a) { a->set_bank_spent_us(-5); }, slow),
              HasSubstr("spends -5 us"));
  // A bank in a record whose header has none.
  std::vector<v1::RecordLine> no_bank = p.lines;
  no_bank[0].mutable_header()->mutable_time_control()->set_time_bank_ms(0);
  EXPECT_THAT(std::string(VerifyRecord(no_bank, "no bank").message()), HasSubstr("has none"));
}

}  // namespace
}  // namespace arena
