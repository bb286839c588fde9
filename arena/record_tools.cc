#include "arena/record_tools.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "referee/match_runner.h"
#include "referee/record.h"
#include "referee/registry.h"

namespace arena {
namespace {

using google::protobuf::util::MessageDifferencer;

std::string Short(const google::protobuf::Message& m) {
  std::string s;
  google::protobuf::TextFormat::Printer p;
  p.SetSingleLineMode(true);
  p.PrintToString(m, &s);
  if (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Hooks for replay; all optional.
struct Visitor {
  std::function<void(const v1::RecordHeader&, const State&)> on_start;
  std::function<void(const LoggedEvent&)> on_event;
  std::function<void(const v1::DecisionStep&, const State& before)> on_decision;
  std::function<void(const v1::Forfeit&)> on_forfeit;
  std::function<void(const v1::MatchResult&, const State&)> on_result;
};

class Resim {
 public:
  Resim(const std::vector<v1::RecordLine>& lines, std::string source,
        const Visitor& visitor)
      : lines_(lines), source_(std::move(source)), v_(visitor) {}

  absl::Status Run(int64_t stop_after_step = -1) {
    if (lines_.empty() || !lines_[0].has_header()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_, ": the first line is not a record header"));
    }
    const v1::RecordHeader& h = lines_[0].header();
    id_ = h.match_id().empty() ? source_ : h.match_id();
    if (h.format_version() != 1) {
      return Err(absl::StrCat("record format ", h.format_version(),
                              " is not supported (1 is)"));
    }
    Options opts(h.options().begin(), h.options().end());
    auto game = CreateGame(h.game(), opts, h.num_seats());
    if (!game.ok()) return Err(std::string(game.status().message()));
    game_ = *std::move(game);
    if (h.seat_bots_size() != game_->num_seats()) {
      return Err(absl::StrCat("header names ", h.seat_bots_size(),
                              " bots for ", game_->num_seats(), " seats"));
    }
    state_ = game_->NewInitialState(h.seed());
    state_->set_decision_cap(h.decision_cap());
    if (v_.on_start) v_.on_start(h, *state_);
    bool forfeited = false;
    v1::Forfeit forfeit;
    for (size_t i = 1; i < lines_.size(); ++i) {
      line_ = i + 1;
      const v1::RecordLine& l = lines_[i];
      if (result_seen_) return Err("a line follows the result");
      switch (l.kind_case()) {
        case v1::RecordLine::kEvent: {
          const auto& events = state_->events();
          if (next_event_ >= events.size()) {
            return Err(absl::StrCat("the record has an event that re-simulation "
                                    "does not produce: ", Short(l.event())));
          }
          const v1::RecordedEvent expected =
              ToRecordedEvent(events[next_event_], game_->num_seats());
          if (!MessageDifferencer::Equals(expected, l.event())) {
            return Err(absl::StrCat("event differs: recorded {", Short(l.event()),
                                    "}, re-simulated {", Short(expected), "}"));
          }
          if (v_.on_event) v_.on_event(events[next_event_]);
          ++next_event_;
          break;
        }
        case v1::RecordLine::kDecision: {
          if (forfeited) return Err("a decision follows the forfeit");
          if (absl::Status s = CheckEventsConsumed(); !s.ok()) return s;
          if (stop_after_step >= 0 && state_->step() > stop_after_step) {
            return absl::OkStatus();
          }
          if (absl::Status s = ApplyDecision(l.decision()); !s.ok()) return s;
          break;
        }
        case v1::RecordLine::kForfeit:
          if (absl::Status s = CheckEventsConsumed(); !s.ok()) return s;
          forfeited = true;
          forfeit = l.forfeit();
          if (forfeit.step() != state_->step()) {
            return Err(absl::StrCat("forfeit at step ", forfeit.step(),
                                    " but the match is at step ", state_->step()));
          }
          if (std::find(state_->ActingSeats().begin(), state_->ActingSeats().end(),
                        forfeit.seat()) == state_->ActingSeats().end()) {
            return Err(absl::StrCat("seat ", forfeit.seat(),
                                    " forfeited but did not have to act"));
          }
          if (v_.on_forfeit) v_.on_forfeit(forfeit);
          break;
        case v1::RecordLine::kResult: {
          if (absl::Status s = CheckEventsConsumed(); !s.ok()) return s;
          if (absl::Status s = CheckResult(l.result(), forfeited, forfeit, h);
              !s.ok()) {
            return s;
          }
          result_seen_ = true;
          if (v_.on_result) v_.on_result(l.result(), *state_);
          break;
        }
        case v1::RecordLine::kHeader:
          return Err("a second header");
        default:
          return Err("an empty line");
      }
    }
    if (!result_seen_ && stop_after_step < 0) {
      line_ = lines_.size();
      return Err("the record ends before its result (unfinished or truncated)");
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Err(const std::string& what) const {
    return absl::DataLossError(absl::StrCat(
        "match ", id_, ": line ", line_, ", step ",
        state_ ? state_->step() : 0, ": ", what));
  }

  absl::Status CheckEventsConsumed() {
    if (next_event_ != state_->events().size()) {
      return Err(absl::StrCat(
          "re-simulation produces an event the record lacks: ",
          Short(ToRecordedEvent(state_->events()[next_event_],
                                game_->num_seats()))));
    }
    return absl::OkStatus();
  }

  absl::Status ApplyDecision(const v1::DecisionStep& d) {
    if (state_->IsTerminal()) return Err("a decision after the game ended");
    if (d.step() != state_->step()) {
      return Err(absl::StrCat("decision numbered ", d.step()));
    }
    const std::vector<int>& acting = state_->ActingSeats();
    if (d.actions_size() != static_cast<int>(acting.size())) {
      return Err(absl::StrCat("decision by ", d.actions_size(),
                              " seats, but seats ", absl::StrJoin(acting, ","),
                              " had to act"));
    }
    std::vector<int> actions;
    for (int i = 0; i < d.actions_size(); ++i) {
      const v1::SeatAction& a = d.actions(i);
      if (a.seat() != acting[i]) {
        return Err(absl::StrCat("seat ", a.seat(), " acted, but seat ",
                                acting[i], " had to"));
      }
      const int n = state_->NumLegalActions(a.seat());
      if (a.action() < 0 || a.action() >= n) {
        return Err(absl::StrCat("seat ", a.seat(), " played action ", a.action(),
                                ", not in [0, ", n, ")"));
      }
      if (a.source() == v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE && n != 1) {
        return Err(absl::StrCat("referee move for seat ", a.seat(),
                                " who had ", n, " legal actions"));
      }
      const std::string label = state_->ActionLabel(a.seat(), a.action());
      if (label != a.label()) {
        return Err(absl::StrCat("seat ", a.seat(), " action ", a.action(),
                                " is '", label, "', the record says '",
                                a.label(), "'"));
      }
      actions.push_back(a.action());
    }
    if (v_.on_decision) v_.on_decision(d, *state_);
    state_->Apply(actions);
    return absl::OkStatus();
  }

  absl::Status CheckResult(const v1::MatchResult& r, bool forfeited,
                           const v1::Forfeit& f, const v1::RecordHeader& h) {
    v1::MatchResult expected;
    if (forfeited) {
      if (r.end_reason() != v1::END_REASON_FORFEIT) {
        return Err("a forfeit, but the result does not say so");
      }
      expected = ForfeitResult(*state_, f.seat(), r.detail());
    } else if (state_->IsTerminal()) {
      expected = state_->Result();
      expected.set_end_reason(v1::END_REASON_NORMAL);
      expected.set_forfeit_seat(-1);
    } else if (h.decision_cap() > 0 && state_->step() >= h.decision_cap()) {
      expected = state_->Result();
      expected.set_end_reason(v1::END_REASON_DECISION_CAP);
      expected.set_forfeit_seat(-1);
    } else {
      return Err("the result comes before the game ended");
    }
    expected.set_decisions(state_->step());
    expected.set_higher_score_wins(game_->info().higher_score_wins);
    expected.set_detail(r.detail());
    if (!MessageDifferencer::Equals(expected, r)) {
      return Err(absl::StrCat("result differs: recorded {", Short(r),
                              "}, re-simulated {", Short(expected), "}"));
    }
    return absl::OkStatus();
  }

  const std::vector<v1::RecordLine>& lines_;
  const std::string source_;
  const Visitor& v_;
  std::string id_;
  std::unique_ptr<Game> game_;
  std::unique_ptr<State> state_;
  size_t next_event_ = 0;
  size_t line_ = 1;
  bool result_seen_ = false;
};

}  // namespace

absl::Status VerifyRecord(const std::vector<v1::RecordLine>& lines,
                          const std::string& source) {
  Visitor none;
  return Resim(lines, source, none).Run();
}

VerifySummary VerifyPath(const std::string& path) {
  VerifySummary sum;
  std::vector<std::string> files;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    sum.failures.push_back(absl::StrCat(path, ": no such file or directory"));
    return sum;
  }
  if (S_ISDIR(st.st_mode)) {
    if (DIR* d = ::opendir(path.c_str())) {
      while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (absl::EndsWith(name, ".jsonl") || absl::EndsWith(name, ".jsonl.part")) {
          files.push_back(absl::StrCat(path, "/", name));
        }
      }
      ::closedir(d);
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  for (const auto& f : files) {
    ++sum.files;
    if (absl::EndsWith(f, ".part")) {
      sum.failures.push_back(absl::StrCat(f, ": unfinished record (the match "
                                          "never ended, or the referee stopped)"));
      continue;
    }
    auto lines = ReadRecordFile(f);
    absl::Status s = lines.ok() ? VerifyRecord(*lines, f) : lines.status();
    if (s.ok()) {
      ++sum.passed;
    } else {
      sum.failures.push_back(absl::StrCat(f, ": ", s.message()));
    }
  }
  return sum;
}

absl::Status Replay(const std::vector<v1::RecordLine>& lines,
                    const ReplayOptions& o, std::ostream& out) {
  std::vector<std::string> bots;
  int num_seats = 0;
  auto sees = [&](int seat) { return o.seat < 0 || o.seat == seat; };
  const State* live = nullptr;  // the re-simulated state, for descriptions
  Visitor v;
  v.on_start = [&](const v1::RecordHeader& h, const State& s) {
    bots.assign(h.seat_bots().begin(), h.seat_bots().end());
    num_seats = h.num_seats();
    out << "match " << h.match_id() << ": " << h.game() << ", " << h.num_seats()
        << " seats, seed " << h.seed() << "\n";
    for (const auto& [k, val] : h.options()) out << "  option " << k << "=" << val << "\n";
    for (int i = 0; i < h.num_seats(); ++i) {
      out << "  seat " << i << ": " << h.seat_bots(i) << "\n";
    }
    if (o.seat >= 0) out << "(showing only what seat " << o.seat << " saw)\n";
    live = &s;
  };
  v.on_event = [&](const LoggedEvent& e) {
    const v1::Event* ev = o.seat < 0 ? &e.event : EventForSeat(e, o.seat);
    if (ev == nullptr) return;
    std::string who = e.is_public ? "public"
                      : (e.seats_mask >> std::max(o.seat, 0)) & 1 ? "yours"
                                                                  : "public, redacted";
    if (o.seat < 0 && !e.is_public) {
      std::vector<int> seats;
      for (int s = 0; s < num_seats; ++s) {
        if ((e.seats_mask >> s) & 1) seats.push_back(s);
      }
      who = seats.empty() ? "record only" : absl::StrCat("seen by seat ", absl::StrJoin(seats, ","));
    }
    std::string text = live ? live->DescribeEvent(*ev) : "";
    out << "    event [" << who << "] " << (text.empty() ? Short(*ev) : text) << "\n";
  };
  v.on_decision = [&](const v1::DecisionStep& d, const State& s) {
    out << "step " << d.step() << ":\n";
    for (const auto& a : d.actions()) {
      if (!sees(a.seat())) continue;
      if (o.seat >= 0) {
        v1::View view;
        s.FillView(a.seat(), &view);
        out << "  view of seat " << a.seat() << ": " << Short(view) << "\n";
        out << "  legal:";
        for (int i = 0; i < s.NumLegalActions(a.seat()); ++i) {
          out << " [" << i << "] " << s.ActionLabel(a.seat(), i) << ";";
        }
        out << "\n";
      }
      const char* how = a.source() == v1::SeatAction::SOURCE_BOT ? "bot"
                        : a.source() == v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE
                            ? "referee: only legal move"
                            : "referee: random move after a fault";
      out << "  seat " << a.seat() << " (" << bots[a.seat()] << "): "
          << a.label() << "  [" << how;
      if (a.source() == v1::SeatAction::SOURCE_BOT) out << ", " << a.think_us() << " us";
      if (!a.fault_detail().empty()) out << ", " << a.fault_detail();
      out << "]\n";
    }
  };
  v.on_forfeit = [&](const v1::Forfeit& f) {
    out << "FORFEIT at step " << f.step() << ": seat " << f.seat() << " ("
        << bots[f.seat()] << "): " << f.detail() << "\n";
  };
  v.on_result = [&](const v1::MatchResult& r, const State&) {
    out << "result: " << r.detail() << "\n";
    for (int s = 0; s < r.scores_size(); ++s) {
      out << "  seat " << s << " (" << bots[s] << "): score " << r.scores(s)
          << ", placement " << r.placements(s) << "\n";
      for (const auto& line : r.score_lines()) {
        if (line.seat() == s) {
          out << "      " << line.points() << "  " << line.item() << "\n";
        }
      }
    }
  };
  Resim resim(lines, "record", v);
  absl::Status s = resim.Run(o.step);
  if (o.step >= 0 && s.ok()) {
    out << "(stopped after step " << o.step << ")\n";
  }
  return s;
}

}  // namespace arena
