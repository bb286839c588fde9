#include "arena/records/record_tools.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "google/protobuf/util/message_differencer.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arena/records/folder.h"
#include "arena/stats/standings.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "referee/match/match_runner.h"
#include "referee/records/bot_note.h"
#include "referee/records/record.h"
#include "referee/games/registry.h"
#include "referee/game_api/rng.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// Whether two messages hold the same fields. Equal deterministic encodings
// say so at once (an order of magnitude cheaper than MessageDifferencer's
// reflection, which was a third of `arena verify`'s time); otherwise
// MessageDifferencer decides, which also sees two encodings of one value as
// equal (an Any read from JSON is packed anew, not as the game packed it).
bool SameMessage(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  thread_local std::string x, y;
  x.clear();
  y.clear();
  AppendDeterministic(a, &x);
  AppendDeterministic(b, &y);
  return x == y || google::protobuf::util::MessageDifferencer::Equals(a, b);
}

std::string Short(const google::protobuf::Message& m) {
  std::string s;
  google::protobuf::TextFormat::Printer p;
  p.SetSingleLineMode(true);
  p.PrintToString(m, &s);
  if (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

using Visitor = ResimVisitor;

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
    if (h.format_version() != kRecordFormatVersion) {
      return Err(absl::StrCat("record format ", h.format_version(),
                              " is not supported (", kRecordFormatVersion,
                              " is)"));
    }
    if (h.seed_commitment().size() != 64) {
      return Err("the header has no seed commitment");
    }
    header_ = &h;
    fault_rng_ = Rng(DeriveSeed(h.seed(), 1));
    bank_left_us_.assign(std::max(0, h.num_seats()),
                         std::max<int64_t>(0, h.time_control().time_bank_ms()) * 1000);
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
          if (!SameMessage(expected, l.event())) {
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
          if (forfeited) return Err("a second forfeit");
          forfeited = true;
          forfeit = l.forfeit();
          // A withdrawn bot forfeits whatever the policy (NO_SHOW).
          if (h.fault_policy() == v1::FAULT_POLICY_RANDOM_MOVE &&
              forfeit.fault() != v1::FAULT_KIND_NO_SHOW) {
            return Err("a forfeit, but the header's fault policy replaces "
                       "faults by random moves");
          }
          if (absl::Status s = CheckFault(forfeit.fault(), forfeit.detail(),
                                          -1, "the forfeit");
              !s.ok()) {
            return s;
          }
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
          if (absl::Status s = CheckReveal(l.result(), h); !s.ok()) return s;
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

  // The commitment of the header opens with the revealed seed and salt, and
  // the header is the one the result's digest was taken of.
  absl::Status CheckReveal(const v1::MatchResult& r, const v1::RecordHeader& h) {
    if (!r.has_reveal()) return Err("the result reveals no seed");
    if (r.reveal().seed() != h.seed()) {
      return Err(absl::StrCat("the revealed seed ", r.reveal().seed(),
                              " is not the header's seed ", h.seed()));
    }
    if (SeedCommitment(h.match_id(), r.reveal().seed(), r.reveal().salt()) !=
        h.seed_commitment()) {
      return Err("the seed commitment does not open with the revealed seed "
                 "and salt (header line 1 or this line was changed)");
    }
    if (r.header_digest() != HeaderDigest(h)) {
      return Err("the header (line 1) was changed: its digest differs from "
                 "the one this result line holds");
    }
    return absl::OkStatus();
  }

  // A fault's kind and detail agree (the detail starts with the kind's
  // words), and the time it took fits the header's time control.
  absl::Status CheckFault(v1::FaultKind kind, const std::string& detail,
                          int64_t think_us, const std::string& what,
                          int64_t bank_spent_us = 0) {
    if (kind == v1::FAULT_KIND_UNSPECIFIED || !v1::FaultKind_IsValid(kind)) {
      return Err(absl::StrCat(what, " names no fault kind"));
    }
    if (!absl::StartsWith(detail, FaultName(kind))) {
      return Err(absl::StrCat(what, " is a ", v1::FaultKind_Name(kind),
                              " fault but its detail reads '", detail, "'"));
    }
    const int64_t limit_us = header_->time_control().decision_ms() * 1000 + bank_spent_us;
    if (kind == v1::FAULT_KIND_TIMEOUT && think_us >= 0 &&
        (limit_us <= 0 || think_us + kTimeSlackUs < limit_us)) {
      return Err(absl::StrCat(what, " is a timeout after ", think_us,
                              " us, but the time control allows ", limit_us,
                              " us"));
    }
    return absl::OkStatus();
  }

  // How each action was taken agrees with the header and with the rest of
  // the record: decision ids count up from 1 over the requests sent; only
  // moves have one legal action and no request; random moves after faults
  // are the ones the match's fault generator draws.
  absl::Status CheckSource(const v1::SeatAction& a, int num_legal) {
    const std::string who = absl::StrCat("seat ", a.seat(), "'s action");
    const int64_t limit_us = header_->time_control().decision_ms() * 1000;
    // A note is the bot's (docs/records.md), as the referee keeps one.
    if (a.source() != v1::SeatAction::SOURCE_BOT &&
        (!a.note().empty() || a.note_cut_bytes() != 0)) {
      return Err(absl::StrCat(who, " carries a note, but is not the bot's own decision"));
    }
    if (absl::Status s = CheckRecordedNote(a.note(), a.note_cut_bytes()); !s.ok()) {
      return Err(absl::StrCat(who, ": ", s.message()));
    }
    if (absl::Status s = CheckBank(a, who); !s.ok()) return s;
    switch (a.source()) {
      case v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE:
        if (header_->auto_moves() == v1::AUTO_MOVES_NONE) {
          return Err(absl::StrCat(who, " is a referee move, but the header "
                                       "sends every decision to the bots"));
        }
        if (a.decision_id() != 0 || a.fault() != v1::FAULT_KIND_UNSPECIFIED ||
            !a.fault_detail().empty() || a.think_us() != 0) {
          return Err(absl::StrCat(who, " is a referee move with a request, "
                                       "a fault or a time"));
        }
        return absl::OkStatus();
      case v1::SeatAction::SOURCE_BOT:
        if (a.fault() != v1::FAULT_KIND_UNSPECIFIED || !a.fault_detail().empty()) {
          return Err(absl::StrCat(who, " is the bot's but carries a fault"));
        }
        if (limit_us > 0 && a.think_us() > limit_us + a.bank_spent_us() + kTimeSlackUs) {
          return Err(absl::StrCat(who, " took ", a.think_us(),
                                  " us, over the time control's ", limit_us, " us",
                                  a.bank_spent_us() > 0
                                      ? absl::StrCat(" and the ", a.bank_spent_us(),
                                                     " us it spent of its time bank")
                                      : ""));
        }
        break;
      case v1::SeatAction::SOURCE_REFEREE_FAULT: {
        if (header_->fault_policy() != v1::FAULT_POLICY_RANDOM_MOVE) {
          return Err(absl::StrCat(who, " is a random move after a fault, but "
                                       "the header's fault policy forfeits"));
        }
        if (absl::Status s = CheckFault(a.fault(), a.fault_detail(),
                                        a.think_us(), who, a.bank_spent_us());
            !s.ok()) {
          return s;
        }
        const int drawn = static_cast<int>(fault_rng_.Uniform(num_legal));
        if (a.action() != drawn) {
          return Err(absl::StrCat(who, " is a random move after a fault, but "
                                       "the match's generator draws ",
                                  drawn, ", not ", a.action()));
        }
        break;
      }
      default:
        return Err(absl::StrCat(who, " has no source"));
    }
    if (a.decision_id() != next_decision_id_ + 1) {
      return Err(absl::StrCat(who, " answers decision ", a.decision_id(),
                              ", but the next request was ",
                              next_decision_id_ + 1));
    }
    ++next_decision_id_;
    return absl::OkStatus();
  }

  // The time bank's accounting (docs/records.md): what a decision spent is
  // at least 0, none without a bank or a request, at most what its seat had
  // left and at most how far it ran past the decision time, and all that
  // was left for a timeout. Counts the spending.
  absl::Status CheckBank(const v1::SeatAction& a, const std::string& who) {
    const int64_t spent = a.bank_spent_us();
    if (spent == 0 && a.fault() != v1::FAULT_KIND_TIMEOUT) return absl::OkStatus();
    if (a.seat() < 0 || a.seat() >= static_cast<int>(bank_left_us_.size())) {
      return Err(absl::StrCat(who, ": no such seat"));
    }
    int64_t& left = bank_left_us_[a.seat()];
    if (spent < 0) return Err(absl::StrCat(who, " spends ", spent, " us of its time bank"));
    if (spent > 0 && (header_->time_control().time_bank_ms() <= 0 || a.decision_id() == 0)) {
      return Err(absl::StrCat(who, " spends ", spent, " us of a time bank, but ",
                              a.decision_id() == 0 ? "it answers no request"
                                                   : "the header's time control has none"));
    }
    if (spent > left) {
      return Err(absl::StrCat(who, " spends ", spent, " us of its time bank, but only ",
                              left, " us were left"));
    }
    const int64_t over_us = a.think_us() - header_->time_control().decision_ms() * 1000;
    if (a.fault() != v1::FAULT_KIND_TIMEOUT && spent > 0 && spent > over_us) {
      return Err(absl::StrCat(who, " spends ", spent, " us of its time bank, but it ran only ",
                              std::max<int64_t>(0, over_us), " us past the decision time"));
    }
    if (a.fault() == v1::FAULT_KIND_TIMEOUT && spent != left) {
      return Err(absl::StrCat(who, " is a timeout that spent ", spent,
                              " us of its time bank, but a timeout spends all that was "
                              "left: ", left, " us"));
    }
    left -= spent;
    return absl::OkStatus();
  }

  absl::Status ApplyDecision(const v1::DecisionStep& d) {
    if (state_->IsTerminal()) return Err("a decision after the game ended");
    if (header_->decision_cap() > 0 &&
        state_->step() >= header_->decision_cap()) {
      return Err(absl::StrCat("a decision after the header's decision cap of ",
                              header_->decision_cap()));
    }
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
      if (absl::Status s = CheckSource(a, n); !s.ok()) return s;
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
    if (forfeited) {
      const std::string detail = absl::StrCat(
          "seat ", f.seat(), " (", h.seat_bots(f.seat()), ") forfeited at step ",
          f.step(), ": ", f.detail());
      if (r.detail() != detail) {
        return Err(absl::StrCat("the result says '", r.detail(),
                                "', the forfeit line '", detail, "'"));
      }
    }
    expected.set_detail(r.detail());
    *expected.mutable_reveal() = r.reveal();        // checked by CheckReveal
    expected.set_header_digest(r.header_digest());  // likewise
    if (!SameMessage(expected, r)) {
      return Err(absl::StrCat("result differs: recorded {", Short(r),
                              "}, re-simulated {", Short(expected), "}"));
    }
    return absl::OkStatus();
  }

  // Slack for times measured by a loaded referee around a deadline.
  static constexpr int64_t kTimeSlackUs = 1000000;

  const std::vector<v1::RecordLine>& lines_;
  const v1::RecordHeader* header_ = nullptr;
  Rng fault_rng_{0};
  std::vector<int64_t> bank_left_us_;  // per seat, in us (CheckBank)
  uint64_t next_decision_id_ = 0;
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

namespace {

// The records of `dir` into `files`, what was skipped into `skipped` (and
// the log).
void ListRecords(const std::string& dir, bool part_only, std::vector<std::string>* files,
                 std::vector<std::string>* skipped) {
  RecordListing l = ListRecordFiles(dir, part_only);
  files->insert(files->end(), l.files.begin(), l.files.end());
  for (const auto& s : l.skipped) {
    spdlog::warn("{}", s);
    skipped->push_back(s);
  }
}

// The standings a records folder's standings.json claims, against the
// standings its verified records give (built as `arena standings` builds
// them): matches, and each bot's seats, wins, forfeits, mean score and mean
// placement.
//
// The verified records were added to `matches` as they were read; `folder`
// saw them (its Init status is `init`), and `added` is the first error of
// adding one, if any.
void CheckStandingsFile(const std::string& dir, const absl::Status& init,
                        const FolderContext& folder, const absl::Status& added,
                        StandingsAccumulator& matches, VerifySummary* sum) {
  const std::string path = absl::StrCat(dir, "/standings.json");
  if (absl::Status s = CheckRegularFile(path, false); !s.ok()) {
    if (!absl::IsNotFound(s)) sum->failures.push_back(std::string(s.message()));
    return;
  }
  std::ifstream in(path);
  if (!in) return;
  std::stringstream ss;
  ss << in.rdbuf();
  ++sum->standings_checked;
  v1::Standings st;
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  if (!google::protobuf::util::JsonStringToMessage(ss.str(), &st, opts).ok()) {
    sum->failures.push_back(absl::StrCat(path, ": not a standings file"));
    return;
  }
  absl::StatusOr<StandingsContext> context =
      init.ok() ? folder.Get() : absl::StatusOr<StandingsContext>(init);
  absl::StatusOr<v1::Standings> rebuilt = absl::UnknownError("not built");
  if (!context.ok()) {
    rebuilt = context.status();
  } else if (!added.ok()) {
    rebuilt = added;
  } else {
    matches.SetContext(*context);
    rebuilt = matches.Build();
  }
  if (!rebuilt.ok()) {
    sum->failures.push_back(absl::StrCat(path, ": cannot rebuild the standings "
                                         "from the records: ",
                                         rebuilt.status().message()));
    return;
  }
  std::map<std::string, const v1::StandingRow*> truth;
  for (const auto& row : rebuilt->rows()) truth[row.bot()] = &row;
  std::vector<std::string> wrong;
  if (st.matches_played() != matches.matches()) {
    wrong.push_back(absl::StrCat("it counts ", st.matches_played(),
                                 " matches played, the folder holds ",
                                 matches.matches(), " verified records"));
  }
  auto close = [](double a, double b) { return std::abs(a - b) <= 1e-6 * (1 + std::abs(b)); };
  const v1::StandingRow none;
  for (const auto& row : st.rows()) {
    auto it = truth.find(row.bot());
    const v1::StandingRow& t = it == truth.end() ? none : *it->second;
    if (row.seats_played() != t.seats_played() || row.wins() != t.wins() ||
        row.forfeits() != t.forfeits() || !close(row.mean_score(), t.mean_score()) ||
        !close(row.mean_placement(), t.mean_placement())) {
      wrong.push_back(absl::StrCat(
          "bot ", row.bot(), ": it says ", row.seats_played(), " seats, ",
          row.wins(), " wins, ", row.forfeits(), " forfeits, mean score ",
          row.mean_score(), ", mean placement ", row.mean_placement(),
          "; the records say ", t.seats_played(), ", ", t.wins(), ", ",
          t.forfeits(), ", ", t.mean_score(), ", ", t.mean_placement()));
    }
    if (it != truth.end()) truth.erase(it);
  }
  for (const auto& [bot, t] : truth) {
    if (t->seats_played() == 0) continue;  // in the config, never seated
    wrong.push_back(absl::StrCat("bot ", bot, " plays in the records but has "
                                 "no row"));
  }
  if (wrong.empty()) {
    ++sum->standings_passed;
  } else {
    sum->failures.push_back(
        absl::StrCat(path, ": does not match the records: ",
                     absl::StrJoin(wrong, "; ")));
  }
}

}  // namespace

VerifySummary VerifyPath(const std::string& path, int threads_wanted) {
  VerifySummary sum;
  std::vector<std::string> files;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    sum.failures.push_back(absl::StrCat(path, ": ", std::strerror(errno)));
    return sum;
  }
  const bool is_dir = S_ISDIR(st.st_mode);
  if (is_dir) {
    ListRecords(path, false, &files, &sum.skipped);
    ListRecords(absl::StrCat(path, "/", kInProgressDir), true, &files, &sum.skipped);
    std::sort(files.begin(), files.end());
  } else if (!S_ISREG(st.st_mode)) {
    // Named on its own: a failure, and never opened.
    sum.failures.push_back(absl::StrCat(path, ": ", FileKind(st), ", not a regular file"));
    return sum;
  } else {
    files.push_back(path);
  }
  // The verified records' standings, built as they are read (no match is
  // kept), and the folder's context for them (from manifest.json, if it is
  // a regular file: anything else there is refused unopened).
  FolderContext folder(path);
  absl::Status init = absl::OkStatus();
  if (is_dir) {
    const std::string manifest = absl::StrCat(path, "/manifest.json");
    struct stat ms;
    if (::lstat(manifest.c_str(), &ms) == 0 && !S_ISREG(ms.st_mode)) {
      init = CheckRegularFile(manifest, false);
      sum.failures.push_back(std::string(init.message()));
    } else {
      init = folder.Init();
    }
  }
  StandingsAccumulator matches(init.ok() && folder.from_manifest() ? *folder.Get()
                                                                  : StandingsContext{});
  absl::Status added;
  // Records are checked in parallel, a window at a time (memory stays flat:
  // a window keeps only summaries), and taken in name order, so that the
  // failures, the folder's context and the standings come out as from one
  // thread.
  struct Checked {
    std::string failure;  // empty: verified
    std::optional<MatchSummary> summary;
    std::vector<v1::RecordLine> ends;  // the header and the last line
  };
  auto check = [&](const std::string& f) {
    Checked c;
    if (absl::EndsWith(f, ".part")) {
      c.failure = absl::StrCat(f, ": unfinished record (the match never ended, or the "
                               "referee stopped)");
      return c;
    }
    // Looked at again just before it is opened: still a regular file (a
    // file named on its own may be a link to one).
    if (absl::Status s = CheckRegularFile(f, !is_dir); !s.ok()) {
      c.failure = std::string(s.message());
      return c;
    }
    auto lines = ReadRecordFile(f);
    absl::Status s = lines.ok() ? VerifyRecord(*lines, f) : lines.status();
    if (!s.ok()) {
      // Named once: a reader's error may start with the file already.
      c.failure = absl::StartsWith(s.message(), f) ? std::string(s.message())
                                                   : absl::StrCat(f, ": ", s.message());
      if (c.failure.empty()) c.failure = absl::StrCat(f, ": failed");  // never empty
      return c;
    }
    if (auto m = SummarizeRecord(*lines, f); m.ok()) {
      c.summary = *std::move(m);
      c.ends.push_back(std::move(lines->front()));
      c.ends.push_back(std::move(lines->back()));
    }
    return c;
  };
  const size_t threads =
      threads_wanted > 0 ? static_cast<size_t>(threads_wanted)
                         : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 32);
  constexpr size_t kWindow = 256;
  for (size_t begin = 0; begin < files.size(); begin += kWindow) {
    const size_t end = std::min(files.size(), begin + kWindow);
    std::vector<Checked> out(end - begin);
    std::atomic<size_t> next{begin};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < end;) out[i - begin] = check(files[i]);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < std::min(threads, end - begin); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (Checked& c : out) {
      ++sum.files;
      if (!c.failure.empty()) {
        sum.failures.push_back(std::move(c.failure));
        continue;
      }
      ++sum.passed;
      if (c.summary.has_value() && is_dir) {
        folder.See(*c.summary, c.ends);
        if (added.ok()) added = matches.Add(*c.summary);
      }
    }
  }
  if (is_dir) CheckStandingsFile(path, init, folder, added, matches, &sum);
  return sum;
}

absl::Status Resimulate(const std::vector<v1::RecordLine>& lines,
                        const std::string& source, const ResimVisitor& visitor,
                        int64_t stop_after_step) {
  return Resim(lines, source, visitor).Run(stop_after_step);
}

}  // namespace arena
