#include "referee/match_runner.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/rng.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

class Runner {
 public:
  Runner(const Game& game, const MatchSpec& spec, SeatLink& link,
         RecordWriter& records)
      : game_(game),
        spec_(spec),
        link_(link),
        records_(records),
        n_(game.num_seats()),
        event_cursor_(n_, 0),
        decision_ms_(spec.time_control.decision_ms() > 0
                         ? spec.time_control.decision_ms()
                         : kDefaultDecisionMs),
        fault_rng_(DeriveSeed(spec.seed, 1)) {}

  MatchOutcome Run() {
    MatchOutcome outcome;
    cap_ = spec_.decision_cap > 0 ? spec_.decision_cap
                                  : game_.info().default_decision_cap;
    v1::RecordLine line;
    *line.mutable_header() = MakeHeader(game_, spec_);
    commitment_ = line.header().seed_commitment();
    const std::string header_digest = HeaderDigest(line.header());
    Write(line);

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
    start.set_seed_commitment(commitment_);
    for (int s = 0; s < n_; ++s) {
      start.set_seat(s);
      link_.Start(s, start);
    }
    FlushEvents();

    v1::MatchResult result;
    bool ended = false;
    while (!state_->IsTerminal()) {
      if (state_->step() >= cap_) {
        result = state_->Result();
        result.set_end_reason(v1::END_REASON_DECISION_CAP);
        result.set_forfeit_seat(-1);
        result.set_detail(absl::StrCat("decision cap of ", cap_,
                                       " reached; ranked by tie-break"));
        ended = true;
        break;
      }
      if (!Step(&result)) {
        ended = true;
        break;
      }
      FlushEvents();
    }
    if (!ended) {
      result = state_->Result();
      result.set_end_reason(v1::END_REASON_NORMAL);
      result.set_forfeit_seat(-1);
    }
    result.set_decisions(state_->step());
    result.set_higher_score_wins(game_.info().higher_score_wins);
    result.mutable_reveal()->set_seed(spec_.seed);
    result.mutable_reveal()->set_salt(spec_.seed_salt);
    result.set_header_digest(header_digest);
    line.Clear();
    *line.mutable_result() = result;
    Write(line);

    v1::MatchEnd end;
    end.set_match_id(spec_.match_id);
    *end.mutable_result() = result;
    for (int s = 0; s < n_; ++s) {
      end.set_seat(s);
      link_.End(s, end);
    }
    if (write_status_.ok()) write_status_ = records_.Finish();
    if (!write_status_.ok()) {
      spdlog::error("match {}: record not written whole: {}", spec_.match_id,
                    write_status_.ToString());
    }
    outcome.result = std::move(result);
    outcome.faults = std::move(faults_);
    outcome.record_status = write_status_;
    outcome.record_path = records_.final_path();
    return outcome;
  }

 private:
  // One decision step. Returns false if the match ended by forfeit.
  bool Step(v1::MatchResult* result) {
    const std::vector<int> acting = state_->ActingSeats();
    const int step = static_cast<int>(state_->step());
    const absl::Time sent = absl::Now();
    const absl::Time deadline = sent + absl::Milliseconds(decision_ms_);
    actions_.assign(acting.size(), -1);
    v1::RecordLine line;
    v1::DecisionStep* ds = line.mutable_decision();
    ds->set_step(step);
    std::vector<uint64_t> ids(acting.size(), 0);
    for (size_t i = 0; i < acting.size(); ++i) {
      const int seat = acting[i];
      const int num = state_->NumLegalActions(seat);
      if (num == 1 && spec_.auto_moves != v1::AUTO_MOVES_NONE) {
        actions_[i] = 0;
        continue;
      }
      OutMessage message;
      v1::DecisionRequest* request = message->mutable_decision_request();
      request->set_match_id(spec_.match_id);
      request->set_seat(seat);
      request->set_decision_id(ids[i] = ++next_decision_id_);
      request->set_step(step);
      request->set_deadline_ms(decision_ms_);
      request->set_simultaneous(acting.size() > 1);
      AddEvents(seat, request->mutable_view());
      state_->FillView(seat, request->mutable_view());
      state_->FillLegalActions(seat, request->mutable_legal_actions());
      link_.Send(seat, std::move(message), num);
    }
    for (size_t i = 0; i < acting.size(); ++i) {
      const int seat = acting[i];
      v1::SeatAction* sa = ds->add_actions();
      sa->set_seat(seat);
      if (ids[i] == 0) {
        sa->set_action(0);
        sa->set_source(v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE);
        sa->set_label(state_->ActionLabel(seat, 0));
        continue;
      }
      sa->set_decision_id(ids[i]);
      const int num = state_->NumLegalActions(seat);
      SeatReply reply = link_.Await(seat, ids[i], deadline);
      if (reply.ok && (reply.action < 0 || reply.action >= num)) {
        reply.ok = false;
        reply.fault = v1::FAULT_KIND_ILLEGAL;
        reply.detail = absl::StrCat("action index ", reply.action,
                                    " is not in [0, ", num, ")");
      }
      sa->set_think_us(reply.think_us);
      if (reply.ok) {
        actions_[i] = reply.action;
        sa->set_action(reply.action);
        sa->set_source(v1::SeatAction::SOURCE_BOT);
        sa->set_label(state_->ActionLabel(seat, reply.action));
        continue;
      }
      faults_.push_back({seat, reply.fault});
      const std::string detail =
          absl::StrCat(FaultName(reply.fault),
                       reply.detail.empty() ? "" : ": ", reply.detail);
      spdlog::warn("match {} step {}: seat {} ({}): {}", spec_.match_id, step,
                   seat, spec_.seat_bots[seat], detail);
      if (spec_.fault_policy == v1::FAULT_POLICY_RANDOM_MOVE) {
        const int a = static_cast<int>(fault_rng_.Uniform(num));
        actions_[i] = a;
        sa->set_action(a);
        sa->set_source(v1::SeatAction::SOURCE_REFEREE_FAULT);
        sa->set_fault(reply.fault);
        sa->set_fault_detail(detail);
        sa->set_label(state_->ActionLabel(seat, a));
        continue;
      }
      // Forfeit: the rest of this step is not played.
      v1::RecordLine fl;
      v1::Forfeit* f = fl.mutable_forfeit();
      f->set_step(step);
      f->set_seat(seat);
      f->set_fault(reply.fault);
      f->set_detail(detail);
      Write(fl);
      *result = ForfeitResult(*state_, seat,
                              absl::StrCat("seat ", seat, " (",
                                           spec_.seat_bots[seat],
                                           ") forfeited at step ", step, ": ",
                                           detail));
      return false;
    }
    Write(line);
    state_->Apply(actions_);
    return true;
  }

  void AddEvents(int seat, v1::View* view) {
    const auto& events = state_->events();
    for (size_t i = event_cursor_[seat]; i < events.size(); ++i) {
      if (const v1::Event* e = EventForSeat(events[i], seat)) {
        *view->add_events() = *e;
      }
    }
    event_cursor_[seat] = events.size();
  }

  void FlushEvents() {
    const auto& events = state_->events();
    v1::RecordLine line;
    for (; recorded_events_ < events.size(); ++recorded_events_) {
      *line.mutable_event() = ToRecordedEvent(events[recorded_events_], n_);
      Write(line);
    }
  }

  void Write(const v1::RecordLine& line) {
    if (!write_status_.ok()) return;
    write_status_ = records_.Append(line);
  }

  const Game& game_;
  const MatchSpec& spec_;
  SeatLink& link_;
  RecordWriter& records_;
  const int n_;
  int64_t cap_ = 0;
  std::unique_ptr<State> state_;
  std::vector<size_t> event_cursor_;
  const int64_t decision_ms_;  // the time control's, or the default
  size_t recorded_events_ = 0;
  uint64_t next_decision_id_ = 0;
  std::vector<int> actions_;
  std::vector<SeatFault> faults_;
  Rng fault_rng_;
  std::string commitment_;
  absl::Status write_status_;
};

}  // namespace

const char* FaultName(v1::FaultKind f) {
  switch (f) {
    case v1::FAULT_KIND_TIMEOUT: return "timeout";
    case v1::FAULT_KIND_ILLEGAL: return "illegal action";
    case v1::FAULT_KIND_DISCONNECTED: return "disconnected";
    case v1::FAULT_KIND_UNAVAILABLE: return "bot unavailable";
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
  h.set_started_at(absl::FormatTime(absl::Now(), absl::UTCTimeZone()));
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

MatchOutcome RunMatch(const Game& game, const MatchSpec& spec, SeatLink& link,
                      RecordWriter& records) {
  Runner runner(game, spec, link, records);
  return runner.Run();
}

}  // namespace arena
