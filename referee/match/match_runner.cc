#include "referee/match/match_runner.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "referee/clock/mono_clock.h"
#include "referee/game_api/rng.h"
#include "referee/match/sent_log.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

class MatchImpl : public Match {
 public:
  MatchImpl(const Game& game, MatchSpec spec, std::shared_ptr<SeatLink> link,
            std::shared_ptr<RecordWriter> records, Done done)
      : game_(game),
        spec_(std::move(spec)),
        link_(std::move(link)),
        records_(std::move(records)),
        done_(std::move(done)),
        n_(game.num_seats()),
        decision_ms_(spec_.time_control.decision_ms() > 0
                         ? spec_.time_control.decision_ms()
                         : kDefaultDecisionMs),
        fault_rng_(DeriveSeed(spec_.seed, 1)) {}

  void Start() override {
    auto self = std::static_pointer_cast<MatchImpl>(shared_from_this());
    link_->set_listener(self);
    self_ = self;  // the match keeps itself alive until Finish
    {
      absl::MutexLock lock(&mu_);
      driving_ = true;
    }
    cap_ = spec_.decision_cap > 0 ? spec_.decision_cap
                                  : game_.info().default_decision_cap;
    v1::RecordLine line;
    *line.mutable_header() = MakeHeader(game_, spec_);
    header_digest_ = HeaderDigest(line.header());
    const std::string commitment = line.header().seed_commitment();
    WriteNow(line);
    {
      absl::MutexLock lock(&record_mu_);
      const std::string part = records_->part_path();
      auto sent = SentLog::Open(part.empty() ? "" : part + ".sent", n_);
      if (sent.ok()) {
        sent_ = *std::move(sent);
      } else {
        sent_status_ = sent.status();
        spdlog::error("match {}: a resync will lack events: {}", spec_.match_id,
                      sent_status_.ToString());
      }
    }

    state_ = game_.NewInitialState(spec_.seed);
    state_->set_decision_cap(cap_);
    v1::MatchStart start;
    start.set_game(spec_.game_name);
    start.set_match_id(spec_.match_id);
    for (const auto& [k, v] : spec_.options) (*start.mutable_options())[k] = v;
    start.set_num_seats(n_);
    for (const auto& b : spec_.seat_bots) start.add_seat_bots(b);
    state_->FillRules(start.mutable_rules());
    start.mutable_time_control()->set_decision_ms(decision_ms_);
    start.mutable_time_control()->set_time_bank_ms(spec_.time_control.time_bank_ms());
    start.set_seed_commitment(commitment);
    timing_.seats.resize(n_);
    reports_leaving_ = link_->ReportsLeaving();
    // The seats asked in the first step get their MatchStart with that
    // request (BeginStep asks the same seats: nothing changes in between).
    std::vector<bool> asked_first(n_, false);
    if (!state_->IsTerminal() && state_->step() < cap_) {
      for (int seat : state_->ActingSeats()) {
        asked_first[seat] = spec_.auto_moves == v1::AUTO_MOVES_NONE ||
                            state_->NumLegalActions(seat) != 1;
      }
    }
    for (int s = 0; s < n_; ++s) {
      start.set_seat(s);
      if (asked_first[s]) {
        link_->StartBeforeRequest(s, start);
      } else {
        link_->Start(s, start);
      }
    }
    FlushEvents();
    Drive();
  }

  void OnLeft(int seat, uint64_t decision_id, absl::Time at) override {
    absl::MutexLock lock(&mu_);
    if (finished_ || !reports_leaving_) return;
    for (Slot& sl : slots_) {
      if (sl.decision_id != decision_id || sl.seat != seat) continue;
      if (sl.answered || sl.left != absl::InfinitePast()) return;
      sl.left = at;
      sl.clock_from = std::min(at, sl.queued + absl::Milliseconds(decision_ms_));
      sl.deadline = sl.clock_from + absl::Milliseconds(decision_ms_) + sl.bank;
      DeadlineTimer::Shared().NoteLag(at - sl.queued);
      return;
    }
  }

  bool OnReply(int seat, uint64_t decision_id, SeatReply reply) override {
    bool drive = false;
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return false;
      Slot* slot = nullptr;
      for (Slot& sl : slots_) {
        if (sl.decision_id == decision_id && sl.seat == seat) slot = &sl;
      }
      if (slot == nullptr || slot->answered) return false;
      slot->answered = true;
      slot->answered_at = MonoNow();
      slot->reply = std::move(reply);
      // Told under mu_, so that it comes before Finish (and `done_`): the
      // caller's state it touches may be gone after that.
      if (!first_answer_told_) {
        first_answer_told_ = true;
        if (spec_.on_first_answer) spec_.on_first_answer();
      }
      drive = --remaining_ == 0 && !driving_;
      if (drive) driving_ = true;
    }
    if (drive) Drive();
    return true;
  }

  absl::StatusOr<std::string> SentEvents(int seat) override {
    if (seat < 0 || seat >= n_) return absl::InvalidArgumentError("no such seat");
    absl::MutexLock lock(&record_mu_);
    if (!sent_status_.ok()) return sent_status_;
    if (sent_ == nullptr) return absl::FailedPreconditionError("the match has ended");
    return sent_->Read(seat);
  }

 private:
  // One request of the step in progress (or a referee's only move).
  struct Slot {
    int seat = 0;
    uint64_t decision_id = 0;  // 0: the referee's only move
    int num_legal = 0;
    bool answered = false;
    bool timed_out = false;  // by the timer: the link still holds it open
    SeatReply reply;
    absl::Time queued;                      // given to the link
    absl::Time left = absl::InfinitePast();  // left for the bot, if told
    absl::Time deadline;                    // it times out then
    // Its clock: from when it ran (the leaving, the send, or a restart),
    // with the seat's time bank as it stood at the request.
    absl::Time clock_from;
    absl::Duration bank;
    absl::Time answered_at = absl::InfinitePast();  // OnReply's time
    int restarts = 0;                       // clock restarts (the lag rule)
    absl::Duration referee_lag;             // the time they gave back
  };

  // Runs the match forward while it need not wait for a bot. The caller has
  // set driving_ (under mu_); only the driving thread touches the state.
  void Drive() {
    auto self = shared_from_this();  // `done_` may drop the last owner
    for (;;) {
      if (step_open_) {
        if (!ResolveStep()) break;  // forfeit
        FlushEvents();
      }
      if (state_->IsTerminal() || state_->step() >= cap_) break;
      if (!BeginStep()) return;  // waiting for answers
    }
    Finish();
  }

  // Sends the step's requests. Returns false if the match now waits (and
  // has released driving_), true if every answer is already in.
  bool BeginStep() {
    const std::vector<int>& acting = state_->ActingSeats();
    const int step = static_cast<int>(state_->step());
    const absl::Time sent = MonoNow();
    const absl::Duration decision_time = absl::Milliseconds(decision_ms_);
    // The earliest any of the step's requests can time out (the timer's
    // first entry; OnTimer re-arms it while none is due).
    const absl::Time deadline = sent + decision_time;
    std::vector<Slot> slots(acting.size());
    std::vector<OutMessage> out;
    for (size_t i = 0; i < acting.size(); ++i) {
      Slot& sl = slots[i];
      sl.seat = acting[i];
      sl.num_legal = state_->NumLegalActions(sl.seat);
      if (sl.num_legal == 1 && spec_.auto_moves != v1::AUTO_MOVES_NONE) {
        sl.answered = true;
        continue;
      }
      sl.queued = sent;
      // Until the link says the request has left: a decision time from
      // when it leaves, if it leaves within a decision time. The seat's
      // time bank comes after the decision time.
      sl.bank = absl::Microseconds(bank_left_us_[sl.seat]);
      sl.clock_from = reports_leaving_ ? deadline : sent;
      sl.deadline = sl.clock_from + decision_time + sl.bank;
      OutMessage message;
      v1::DecisionRequest* request = message->mutable_decision_request();
      request->set_match_id(spec_.match_id);
      request->set_seat(sl.seat);
      request->set_decision_id(sl.decision_id = ++next_decision_id_);
      request->set_step(step);
      request->set_deadline_ms(decision_ms_);
      request->set_time_bank_ms(bank_left_us_[sl.seat] / 1000);
      request->set_simultaneous(acting.size() > 1);
      AddEvents(sl.seat, request->mutable_view());
      state_->FillView(sl.seat, request->mutable_view());
      state_->FillLegalActions(sl.seat, request->mutable_legal_actions());
      out.push_back(std::move(message));
    }
    // Who is asked, kept aside: once slots_ is published, answers fill it.
    sends_.clear();
    for (const Slot& sl : slots) {
      if (sl.decision_id != 0) sends_.push_back({sl.seat, sl.num_legal});
    }
    bool arm = false;
    {
      absl::MutexLock lock(&mu_);
      slots_ = std::move(slots);
      remaining_ = static_cast<int>(out.size());
      step_open_ = true;
      if (!out.empty() && !timer_armed_) arm = timer_armed_ = true;
    }
    if (arm) ArmTimer(deadline);
    for (size_t k = 0; k < out.size(); ++k) {
      link_->Send(sends_[k].first, std::move(out[k]), sends_[k].second);
    }
    WriteDeferred();  // still the driving thread: answers only fill slots_
    absl::MutexLock lock(&mu_);
    if (remaining_ > 0) {
      driving_ = false;
      return false;
    }
    return true;
  }

  void ArmTimer(absl::Time when) {
    std::weak_ptr<MatchImpl> weak =
        std::static_pointer_cast<MatchImpl>(shared_from_this());
    DeadlineTimer::Shared().At(when, [weak, when] {
      if (auto m = weak.lock()) m->OnTimer(when);
    });
  }

  // The timer fired (armed for `due`): time out the open step's unanswered
  // requests if their deadline has passed, else wait for it; if the timer
  // itself ran late, restart their clocks instead (the lag rule,
  // RefereeLagTolerance).
  void OnTimer(absl::Time due) {
    absl::Time rearm = absl::InfiniteFuture();
    bool drive = false;
    {
      absl::MutexLock lock(&mu_);
      timer_armed_ = false;
      if (finished_) return;
      const absl::Time now = MonoNow();
      const bool behind = now - due > RefereeLagTolerance(decision_ms_);
      if (!step_open_ || remaining_ == 0) {
        // Between steps: keep one entry, a full decision time from now.
        rearm = now + absl::Milliseconds(decision_ms_);
      } else {
        // Each unanswered request times out on its own deadline (its clock
        // started when it left); the entry stays for the next one due.
        for (Slot& sl : slots_) {
          if (sl.answered) continue;
          if (now < sl.deadline) {
            rearm = std::min(rearm, sl.deadline);
            continue;
          }
          if (behind && sl.restarts < kMaxClockRestarts) {
            // The answer may be in, unread behind the referee's own lag.
            ++sl.restarts;
            sl.referee_lag += now - sl.deadline;
            sl.clock_from = now;
            sl.deadline = now + absl::Milliseconds(decision_ms_) + sl.bank;
            rearm = std::min(rearm, sl.deadline);
            continue;
          }
          sl.answered = true;
          sl.timed_out = true;
          sl.reply = SeatReply();
          sl.reply.fault = v1::FAULT_KIND_TIMEOUT;
          const absl::Time from =
              sl.left != absl::InfinitePast() ? sl.left : sl.queued;
          sl.reply.think_us = absl::ToInt64Microseconds(now - from);
          sl.reply.detail = absl::StrCat(
              "no answer within ", absl::FormatDuration(absl::Milliseconds(decision_ms_)));
          if (sl.bank > absl::ZeroDuration()) {
            absl::StrAppend(&sl.reply.detail, " and its time bank's ",
                            absl::FormatDuration(sl.bank));
          }
          if (sl.restarts > 0) {
            absl::StrAppend(&sl.reply.detail, " (its clock restarted ", sl.restarts,
                            " times, ", absl::ToInt64Milliseconds(sl.referee_lag),
                            " ms in all, while the referee was behind)");
          }
          --remaining_;
        }
        if (remaining_ == 0 && !driving_) drive = driving_ = true;
        if (remaining_ == 0) rearm = absl::InfiniteFuture();
      }
      if (rearm != absl::InfiniteFuture()) timer_armed_ = true;
    }
    if (rearm != absl::InfiniteFuture()) {
      ArmTimer(rearm);
      return;
    }
    if (drive) Drive();
  }

  // What a request of the step just closed spent of its seat's time bank:
  // the time it ran past the decision time on its clock (from the leaving,
  // or the restart), never more than its think time, at most the bank; all
  // of the bank for a timeout; nothing without a reply.
  int64_t BankSpentUs(const Slot& sl) const {
    if (sl.bank <= absl::ZeroDuration() || sl.decision_id == 0) return 0;
    if (sl.timed_out) return absl::ToInt64Microseconds(sl.bank);
    if (sl.answered_at == absl::InfinitePast()) return 0;
    const int64_t used = std::min(absl::ToInt64Microseconds(sl.answered_at - sl.clock_from),
                                  sl.reply.think_us);
    return std::clamp<int64_t>(used - decision_ms_ * 1000, 0,
                               absl::ToInt64Microseconds(sl.bank));
  }

  // Resolves the open step from its answers. Returns false if the match
  // ended by forfeit.
  bool ResolveStep() {
    std::vector<Slot> slots;
    {
      absl::MutexLock lock(&mu_);
      slots = std::move(slots_);
      slots_.clear();
      step_open_ = false;
    }
    const int step = static_cast<int>(state_->step());
    actions_.assign(slots.size(), -1);
    v1::RecordLine line;
    v1::DecisionStep* ds = line.mutable_decision();
    ds->set_step(step);
    for (size_t i = 0; i < slots.size(); ++i) {
      Slot& sl = slots[i];
      const int seat = sl.seat;
      v1::SeatAction* sa = ds->add_actions();
      sa->set_seat(seat);
      if (sl.decision_id == 0) {
        actions_[i] = 0;
        sa->set_action(0);
        sa->set_source(v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE);
        sa->set_label(state_->ActionLabel(seat, 0));
        continue;
      }
      sa->set_decision_id(sl.decision_id);
      if (sl.timed_out) link_->Withdraw(seat, sl.decision_id);
      if (sl.restarts > 0) {
        sa->set_referee_lag_us(absl::ToInt64Microseconds(sl.referee_lag));
        timing_.clock_restarts += sl.restarts;
        timing_.referee_lag_us_sum += absl::ToInt64Microseconds(sl.referee_lag);
      }
      const int num = sl.num_legal;
      SeatReply& reply = sl.reply;
      ++timing_.requests;
      if (sl.left != absl::InfinitePast()) {
        const int64_t lag = absl::ToInt64Microseconds(sl.left - sl.queued);
        ++timing_.left;
        timing_.send_lag_us_sum += lag;
        timing_.send_lag_us_max = std::max(timing_.send_lag_us_max, lag);
      }
      if (!sl.timed_out && (reply.ok || reply.fault == v1::FAULT_KIND_ILLEGAL)) {
        MatchTiming::Seat& st = timing_.seats[seat];
        ++st.answered;
        st.think_us_sum += reply.think_us;
        st.think_us_max = std::max(st.think_us_max, reply.think_us);
        st.think.Add(reply.think_us);
      }
      if (reply.ok && (reply.action < 0 || reply.action >= num)) {
        reply.ok = false;
        reply.fault = v1::FAULT_KIND_ILLEGAL;
        reply.detail = absl::StrCat("action index ", reply.action,
                                    " is not in [0, ", num, ")");
      }
      sa->set_think_us(reply.think_us);
      const int64_t spent = BankSpentUs(sl);  // timed where recorded: not at a forfeit
      bank_left_us_[seat] -= spent;
      sa->set_bank_spent_us(spent);
      if (reply.ok) {
        actions_[i] = reply.action;
        sa->set_action(reply.action);
        sa->set_source(v1::SeatAction::SOURCE_BOT);
        sa->set_label(state_->ActionLabel(seat, reply.action));
        sa->set_note(std::move(reply.note));
        sa->set_note_cut_bytes(reply.note_cut_bytes);
        timing_.seats[seat].think.AddBankSpent(spent);
        continue;
      }
      faults_.push_back({seat, reply.fault});
      const std::string detail = absl::StrCat(
          FaultName(reply.fault), reply.detail.empty() ? "" : ": ", reply.detail);
      const bool no_show = reply.fault == v1::FAULT_KIND_NO_SHOW;  // logged where withdrawn
      if (spec_.log_faults) {
        spdlog::log(no_show ? spdlog::level::debug : spdlog::level::warn,
                    "match {} step {}: seat {} ({}): {}", spec_.match_id, step, seat,
                    spec_.seat_bots[seat], detail);
      }
      // A withdrawn bot (NO_SHOW) forfeits whatever the policy: random moves
      // for a bot that is not there would give it results it did not earn.
      if (spec_.fault_policy == v1::FAULT_POLICY_RANDOM_MOVE && !no_show) {
        const int a = static_cast<int>(fault_rng_.Uniform(num));
        actions_[i] = a;
        sa->set_action(a);
        sa->set_source(v1::SeatAction::SOURCE_REFEREE_FAULT);
        sa->set_fault(reply.fault);
        sa->set_fault_detail(detail);
        sa->set_label(state_->ActionLabel(seat, a));
        timing_.seats[seat].think.AddBankSpent(spent);
        continue;
      }
      // Forfeit: the rest of this step is not played.
      v1::RecordLine fl;
      v1::Forfeit* f = fl.mutable_forfeit();
      f->set_step(step);
      f->set_seat(seat);
      f->set_fault(reply.fault);
      f->set_detail(detail);
      Write(&fl);
      forfeit_ = ForfeitResult(*state_, seat,
                               absl::StrCat("seat ", seat, " (",
                                            spec_.seat_bots[seat],
                                            ") forfeited at step ", step, ": ",
                                            detail));
      forfeited_ = true;
      return false;
    }
    Write(&line);
    state_->Apply(actions_);
    return true;
  }

  void Finish() {
    {
      absl::MutexLock lock(&mu_);
      finished_ = true;
      slots_.clear();
      if (!first_answer_told_) {
        first_answer_told_ = true;
        if (spec_.on_first_answer) spec_.on_first_answer();
      }
    }
    v1::MatchResult result;
    if (forfeited_) {
      result = std::move(forfeit_);
    } else if (!state_->IsTerminal()) {
      result = state_->Result();
      result.set_end_reason(v1::END_REASON_DECISION_CAP);
      result.set_forfeit_seat(-1);
      result.set_detail(absl::StrCat("decision cap of ", cap_,
                                     " reached; ranked by tie-break"));
    } else {
      result = state_->Result();
      result.set_end_reason(v1::END_REASON_NORMAL);
      result.set_forfeit_seat(-1);
    }
    result.set_decisions(state_->step());
    result.set_higher_score_wins(game_.info().higher_score_wins);
    result.mutable_reveal()->set_seed(spec_.seed);
    result.mutable_reveal()->set_salt(spec_.seed_salt);
    result.set_header_digest(header_digest_);
    // One MatchResult, moved rather than copied (a Quodlibet partie's, with
    // its score lines, is some 25 KiB in memory).
    v1::RecordLine line;
    line.mutable_result()->Swap(&result);
    WriteDeferred();  // the lines before it
    WriteNow(line);
    v1::MatchEnd end;
    end.set_match_id(spec_.match_id);
    end.mutable_result()->Swap(line.mutable_result());
    line.Clear();
    for (int s = 0; s < n_; ++s) {
      end.set_seat(s);
      link_->End(s, end);
    }
    result.Swap(end.mutable_result());
    // The link and the writer go before `done`: once it has run, the
    // caller may tear down what they use (the hub, the records folder).
    link_.reset();
    MatchOutcome outcome;
    {
      absl::MutexLock lock(&record_mu_);
      if (write_status_.ok()) write_status_ = records_->Finish();
      outcome.record_status = write_status_;
      outcome.record_path = records_->final_path();
      records_.reset();
      sent_.reset();  // its file is removed
    }
    if (!outcome.record_status.ok()) {
      spdlog::error("match {}: record not written whole: {}", spec_.match_id,
                    outcome.record_status.ToString());
    }
    state_.reset();  // nothing of the match is needed any more
    outcome.result = std::move(result);
    outcome.faults = std::move(faults_);
    outcome.timing = std::move(timing_);
    Done done = std::move(done_);
    done_ = nullptr;
    if (done) done(std::move(outcome));
    self_.reset();  // the caller of Drive still holds a reference
  }

  // The events `seat` may know since its previous request, as they were
  // queued for it when they happened.
  void AddEvents(int seat, v1::View* view) {
    std::string& pending = pending_events_[seat];
    if (!pending.empty() && !view->MergeFromString(pending)) {
      spdlog::error("match {}: seat {}: queued events do not parse", spec_.match_id, seat);
    }
    {
      absl::MutexLock lock(&record_mu_);
      if (sent_status_.ok() && sent_ != nullptr) {
        sent_status_ = sent_->Append(seat, pending);
        if (!sent_status_.ok()) {
          spdlog::error("match {}: a resync will lack events: {}", spec_.match_id,
                        sent_status_.ToString());
        }
      }
    }
    if (pending.capacity() > kKeptPendingBytes) {
      std::string().swap(pending);  // a burst's buffer is not kept
    } else {
      pending.clear();
    }
  }

  // Writes the state's new events to the record, queues for each seat what
  // it may see of them (serialized, as View.events entries: a third of the
  // size of the messages), and lets the state forget them. So the match
  // keeps nothing per event beyond what a seat has not yet been sent.
  void FlushEvents() {
    const auto& events = state_->events();
    const size_t base = state_->events_discarded();
    v1::RecordLine line;
    for (; recorded_events_ < base + events.size(); ++recorded_events_) {
      const LoggedEvent& e = events[recorded_events_ - base];
      *line.mutable_event() = ToRecordedEvent(e, n_);
      Write(&line);
      // Each version (the event, its redaction) serialized once.
      full_.clear();
      redacted_.clear();
      for (int seat = 0; seat < n_; ++seat) {
        const v1::Event* seen = EventForSeat(e, seat);
        if (seen == nullptr) continue;
        std::string& bytes = seen == &e.event ? full_ : redacted_;
        if (bytes.empty()) AppendViewEvent(*seen, &bytes);
        pending_events_[seat].append(bytes);
      }
    }
    state_->DiscardEventsBefore(recorded_events_);
  }

  static void AppendViewEvent(const v1::Event& e, std::string* out) {
    google::protobuf::io::StringOutputStream raw(out);
    google::protobuf::io::CodedOutputStream coded(&raw);
    coded.WriteTag(google::protobuf::internal::WireFormatLite::MakeTag(
        v1::View::kEventsFieldNumber,
        google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    coded.WriteVarint32(static_cast<uint32_t>(e.ByteSizeLong()));
    e.SerializeWithCachedSizes(&coded);
  }

  // Record lines wait in deferred_ (taken from `line`, which is left empty)
  // until the next step's requests are sent: their JSON is written while the
  // bots think, not before they are asked. Same lines, same order. (Not
  // more than a step's: kept for 16 lines, the heap messages took a whole
  // Quodlibet partie's peak from 60.2 to 67.9 KiB, over the 64 KiB bound.)
  void Write(v1::RecordLine* line) {
    deferred_.emplace_back();
    deferred_.back().Swap(line);
  }
  void WriteDeferred() {
    if (deferred_.empty()) return;
    {
      absl::MutexLock lock(&record_mu_);
      if (write_status_.ok()) write_status_ = records_->AppendAll(deferred_);
    }
    deferred_.clear();
  }
  void WriteNow(const v1::RecordLine& line) {
    absl::MutexLock lock(&record_mu_);
    if (write_status_.ok()) write_status_ = records_->Append(line);
  }

  const Game& game_;
  const MatchSpec spec_;
  std::shared_ptr<SeatLink> link_;  // the driving thread's; reset at the end
  std::shared_ptr<RecordWriter> records_ ABSL_GUARDED_BY(record_mu_);
  Done done_;
  std::shared_ptr<MatchImpl> self_;  // from Start until Finish
  const int n_;
  // The driving thread's (one at a time, handed over under mu_).
  int64_t cap_ = 0;
  std::unique_ptr<State> state_;
  // Per seat: the events it may see and has not been sent yet, serialized.
  std::vector<std::string> pending_events_ = std::vector<std::string>(n_);
  static constexpr size_t kKeptPendingBytes = 16 * 1024;
  std::string full_, redacted_;  // FlushEvents' buffers
  const int64_t decision_ms_;  // the time control's, or the default
  std::vector<int64_t> bank_left_us_ =  // per seat, us (the driving thread's)
      std::vector<int64_t>(n_, std::max<int64_t>(0, spec_.time_control.time_bank_ms()) * 1000);
  size_t recorded_events_ = 0;
  uint64_t next_decision_id_ = 0;
  std::vector<int> actions_;
  std::vector<std::pair<int, int>> sends_;  // (seat, legal actions) asked
  std::vector<SeatFault> faults_;
  std::vector<v1::RecordLine> deferred_;  // written after the step's sends
  Rng fault_rng_;
  std::string header_digest_;
  MatchTiming timing_;
  bool reports_leaving_ = false;  // set in Start, before any request
  bool forfeited_ = false;
  v1::MatchResult forfeit_;

  // Answers and the hand-over of the driving thread.
  absl::Mutex mu_;
  std::vector<Slot> slots_ ABSL_GUARDED_BY(mu_);
  int remaining_ ABSL_GUARDED_BY(mu_) = 0;
  bool step_open_ ABSL_GUARDED_BY(mu_) = false;
  bool driving_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool first_answer_told_ ABSL_GUARDED_BY(mu_) = false;  // spec_.on_first_answer
  bool timer_armed_ ABSL_GUARDED_BY(mu_) = false;

  // The record, also read back for a resync.
  absl::Mutex record_mu_;
  absl::Status write_status_ ABSL_GUARDED_BY(record_mu_);
  // What each seat was sent of the events, for a resync (referee/match/sent_log.h).
  std::unique_ptr<SentLog> sent_ ABSL_GUARDED_BY(record_mu_);
  absl::Status sent_status_ ABSL_GUARDED_BY(record_mu_);
};

}  // namespace

const char* FaultName(v1::FaultKind f) {
  switch (f) {
    case v1::FAULT_KIND_TIMEOUT: return "timeout";
    case v1::FAULT_KIND_ILLEGAL: return "illegal action";
    case v1::FAULT_KIND_DISCONNECTED: return "disconnected";
    case v1::FAULT_KIND_UNAVAILABLE: return "bot unavailable";
    case v1::FAULT_KIND_CRASHED: return "crashed";
    case v1::FAULT_KIND_NO_SHOW: return "no show";
    case v1::FAULT_KIND_CUT_OFF: return "cut off";
    default: return "fault";
  }
}

v1::MatchResult ForfeitResult(const State& state, int seat,
                              const std::string& detail) {
  // The game's own ranking (with its tie-breaks), the forfeiting seat moved
  // to last place: every other seat keeps its order and its ties.
  v1::MatchResult result = state.Result();
  const int n = result.placements_size();
  std::vector<int> placed(n, 1);
  for (int s = 0; s < n; ++s) {
    if (s == seat) continue;
    for (int t = 0; t < n; ++t) {
      if (t != seat && result.placements(t) < result.placements(s)) ++placed[s];
    }
  }
  placed[seat] = n;
  for (int s = 0; s < n; ++s) result.set_placements(s, placed[s]);
  result.set_end_reason(v1::END_REASON_FORFEIT);
  result.set_forfeit_seat(seat);
  result.set_detail(detail);
  return result;
}

v1::RecordedEvent ToRecordedEvent(const LoggedEvent& e, int num_seats) {
  v1::RecordedEvent re;
  re.mutable_visibility()->set_is_public(e.is_public);
  for (int s = 0; s < num_seats; ++s) {
    if ((e.seats_mask >> s) & 1) re.mutable_visibility()->add_seats(s);
  }
  *re.mutable_event() = e.event;
  return re;
}

v1::RecordHeader MakeHeader(const Game& game, const MatchSpec& spec) {
  v1::RecordHeader h;
  h.set_format_version(kRecordFormatVersion);
  h.set_match_id(spec.match_id);
  h.set_game(spec.game_name);
  for (const auto& [k, v] : spec.options) (*h.mutable_options())[k] = v;
  h.set_num_seats(game.num_seats());
  for (const auto& b : spec.seat_bots) h.add_seat_bots(b);
  h.set_seed(spec.seed);
  h.set_software_version(ARENA_VERSION);
  *h.mutable_time_control() = spec.time_control;
  if (spec.time_control.decision_ms() <= 0) {
    h.mutable_time_control()->set_decision_ms(kDefaultDecisionMs);
    h.set_default_time_control(true);
  }
  h.set_fault_policy(spec.fault_policy);
  h.set_decision_cap(spec.decision_cap > 0 ? spec.decision_cap
                                           : game.info().default_decision_cap);
  h.set_auto_moves(spec.auto_moves);
  h.set_started_at(absl::FormatTime(absl::Now(), absl::UTCTimeZone()));  // a date
  // A spec without a commitment (in-process matches, tests) gets one made
  // here from its seed and salt, so that every record can be checked.
  h.set_seed_commitment(spec.seed_commitment.empty()
                            ? SeedCommitment(spec.match_id, spec.seed,
                                             spec.seed_salt)
                            : spec.seed_commitment);
  h.set_tournament_id(spec.tournament_id);
  h.set_predictable_seed(spec.predictable_seed);
  h.set_deal_group(spec.deal_group);
  return h;
}

Match::~Match() = default;

std::shared_ptr<Match> Match::Create(const Game& game, MatchSpec spec,
                                     std::shared_ptr<SeatLink> link,
                                     std::shared_ptr<RecordWriter> records,
                                     Done done) {
  // Not make_shared: the deadline timer may hold a weak reference for up to
  // a decision time after the match, which would pin the whole object.
  return std::shared_ptr<Match>(new MatchImpl(
      game, std::move(spec), std::move(link), std::move(records), std::move(done)));
}

MatchOutcome RunMatch(const Game& game, const MatchSpec& spec, SeatLink& link,
                      RecordWriter& records) {
  absl::Notification finished;
  MatchOutcome outcome;
  // The caller owns the link and the writer: borrowed, not deleted.
  auto match = Match::Create(
      game, spec, std::shared_ptr<SeatLink>(&link, [](SeatLink*) {}),
      std::shared_ptr<RecordWriter>(&records, [](RecordWriter*) {}),
      [&](MatchOutcome o) {
        outcome = std::move(o);
        finished.Notify();
      });
  match->Start();
  finished.WaitForNotification();
  return outcome;
}

struct DeadlineTimer::Impl {
  MonoTimer timer;
  absl::Mutex mu;
  // The largest lag noted since lag_since (Behind's window).
  absl::Duration lag ABSL_GUARDED_BY(mu);
  absl::Time lag_since ABSL_GUARDED_BY(mu) = absl::InfinitePast();

  void Note(absl::Duration d) {
    absl::MutexLock lock(&mu);
    const absl::Time now = MonoNow();
    if (now - lag_since > kLagWindow) {
      lag = absl::ZeroDuration();
      lag_since = now;
    }
    lag = std::max(lag, d);
  }
};

DeadlineTimer::DeadlineTimer() : impl_(new Impl) {
  impl_->timer.OnLate([impl = impl_](absl::Duration late) { impl->Note(late); });
}

DeadlineTimer& DeadlineTimer::Shared() {
  static DeadlineTimer* const timer = new DeadlineTimer;
  return *timer;
}

void DeadlineTimer::NoteLag(absl::Duration lag) { impl_->Note(lag); }

absl::Duration DeadlineTimer::Behind() {
  const absl::Time earliest = impl_->timer.Earliest();
  absl::MutexLock lock(&impl_->mu);
  const absl::Time now = MonoNow();
  absl::Duration behind = absl::ZeroDuration();
  if (now - impl_->lag_since <= kLagWindow) behind = impl_->lag;
  if (earliest != absl::InfiniteFuture()) behind = std::max(behind, now - earliest);
  return behind;
}

void DeadlineTimer::At(absl::Time when, std::function<void()> fn) {
  impl_->timer.At(when, std::move(fn));
}

}  // namespace arena
