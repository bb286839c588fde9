#include "arena/cli/check_bot_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/cli/check_bot_failure.h"
#include "arena/cli/command.h"
#include "arena/tournament/config.h"
#include "arena/tournament/plan.h"
#include "referee/clock/mono_clock.h"
#include "referee/games/registry.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

enum class Probe { kNone, kDrop, kNotice };

// The checked bot's request of a match before which a probe fires: its
// second, so that it has a match's state to keep by then.
constexpr int kProbeAt = 2;
// A match that ends before the probe's moment through no fault of the bot
// (a short deal, the opponent's fault) checks nothing: up to this many are
// played for each probe.
constexpr int kProbeMatches = 3;

// The link of one match to its bots over the hub (HubMatchLink, through
// the LinkHandle it is given), which drops the checked bot's stream, or
// sends it a Notice, right before the bot's kProbeAt-th request. The match
// calls Send for one seat at a time.
class ProbeLink : public SeatLink {
 public:
  ProbeLink(std::unique_ptr<SeatLink> inner, BotHub* hub, std::string bot,
            int seat, Probe probe, std::string match_id)
      : inner_(std::move(inner)),
        hub_(hub),
        bot_(std::move(bot)),
        seat_(seat),
        probe_(probe),
        match_id_(std::move(match_id)) {}

  void set_listener(std::weak_ptr<Listener> listener) override {
    inner_->set_listener(std::move(listener));
  }
  void Start(int seat, const v1::MatchStart& start) override {
    inner_->Start(seat, start);
  }
  void Send(int seat, OutMessage msg, int num_legal) override {
    if (seat == seat_) {
      absl::MutexLock lock(&mu_);
      last_sent_ = MonoNow();
    }
    if (seat == seat_ && probe_ != Probe::kNone) {
      const uint64_t id = msg->decision_request().decision_id();
      if (++asked_ == kProbeAt) Fire(id);
      previous_ = id;
    }
    inner_->Send(seat, std::move(msg), num_legal);
  }
  void Withdraw(int seat, uint64_t decision_id) override {
    inner_->Withdraw(seat, decision_id);
  }
  void End(int seat, const v1::MatchEnd& end) override { inner_->End(seat, end); }

  // The decision before which the probe fired, or 0 if it did not.
  uint64_t probed() const {
    absl::MutexLock lock(&mu_);
    return probed_;
  }
  // When the bot's seat was sent its latest request.
  absl::Time last_sent() const {
    absl::MutexLock lock(&mu_);
    return last_sent_;
  }

 private:
  void Fire(uint64_t decision_id) {
    bool fired = false;
    if (probe_ == Probe::kDrop) {
      // Before the request: it is kept for the bot's return and comes back
      // as an open decision in the Resync (docs/protocol.md, Reconnecting).
      fired = hub_->DropStream(bot_);
    } else {
      v1::Notice n;
      n.set_kind(v1::NOTICE_KIND_STALE);
      n.set_match_id(match_id_);
      n.set_decision_id(previous_);
      n.set_message(absl::StrCat("match ", match_id_, ": decision ", previous_,
                                 " is not an open decision of this bot (arena "
                                 "check-bot: a test notice; play on)"));
      fired = hub_->SendNotice(bot_, n);
    }
    absl::MutexLock lock(&mu_);
    if (fired) probed_ = decision_id;
  }

  const std::unique_ptr<SeatLink> inner_;
  BotHub* const hub_;
  const std::string bot_;
  const int seat_;
  const Probe probe_;
  const std::string match_id_;
  int asked_ = 0;          // the seat's requests so far (Send's caller only)
  uint64_t previous_ = 0;  // likewise: the id of its latest one
  mutable absl::Mutex mu_;
  uint64_t probed_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_sent_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

struct Plan {
  std::string game;
  int seats = 2;
  int bot_seat = 0;
  Probe probe = Probe::kNone;
};

// A fault of the checked bot, from a record.
struct BotFault {
  v1::FaultKind kind = v1::FAULT_KIND_UNSPECIFIED;
  int64_t step = 0;
  std::string detail;
};

// One match played, as its record tells it.
struct Played {
  Plan plan;
  int batch = 0;                // the matches played at once share it
  absl::Time last_sent;         // when the bot's seat got its latest request
  std::string record;
  absl::Status record_status;
  std::vector<BotFault> faults;
  int answers = 0;              // the bot's own answers, legal or not
  int64_t slowest_us = 0;
  uint64_t probed = 0;          // the decision the probe fired before (0: none)
  int64_t probed_think_us = -1; // how long that answer took
};

// One line of the checklist.
struct CheckLine {
  std::string name;
  bool pass = true;
  std::string reason;
  const Played* where = nullptr;  // for a failure: the match that shows it
  int64_t step = -1;
  BotFault fault{};               // and the bot's fault there, if any
  bool not_run = false;           // it failed for want of anything to judge
};

// Faults that the end of the bot's process or stream brings to every
// request it had open at once, in every match.
bool EndsEveryOpenRequest(v1::FaultKind k) {
  return k == v1::FAULT_KIND_CRASHED || k == v1::FAULT_KIND_DISCONNECTED;
}

std::string Where(const Plan& p) {
  return absl::StrCat(p.game, ", ", p.seats, " seats, the bot at seat ", p.bot_seat);
}

std::string FaultText(const BotFault& f) {
  return absl::StrCat("step ", f.step, ": ", f.detail.empty() ? FaultName(f.kind) : f.detail);
}

// Why a probe did not fire: the match ended first, at a fault of the bot
// (`judged` says which) or of itself.
std::string NotProbed(const Played& p, const CheckLine& judged, int at) {
  if (!judged.pass && !judged.not_run) {
    return absl::StrCat("the match ended before the bot's request ", at,
                        ", the probe's moment, at its fault: ", judged.reason);
  }
  return absl::StrCat(Where(p.plan), ": the match ended before the bot's request ", at,
                      " in each of ", kProbeMatches,
                      " matches; nothing was checked (give another game first in --game)");
}

std::string Ms(int64_t us) { return absl::StrCat((us + 500) / 1000, " ms"); }

// A check over matches in which the bot answered nothing saw nothing to
// judge: not a pass. Why it could not run ("" if the bot answered a request
// in `played`), and in `*line` the match that shows it (the bot's first
// fault, if it had one).
std::string NothingSeen(const std::vector<Played>& played, CheckLine* line) {
  int answers = 0;
  const Played* at = nullptr;
  for (const Played& p : played) {
    answers += p.answers;
    if (at == nullptr && !p.faults.empty()) at = &p;
  }
  if (answers > 0) return "";
  const std::string matches =
      absl::StrCat(played.size(), played.size() == 1 ? " match" : " matches");
  if (at == nullptr) {
    return absl::StrCat("could not run: the bot was asked nothing in its ", matches,
                        " (each ended before it had a decision to make)");
  }
  line->where = at;
  line->step = at->faults.front().step;
  line->fault = at->faults.front();
  return absl::StrCat("could not run: the bot answered none of its requests in its ", matches,
                      "; the first, ", Where(at->plan), ": ", FaultText(at->faults.front()));
}

// A line's reason, with where the docs tell the cause when the bot's output
// shows a known one: a Python bot that cannot import the stubs the build
// generates (the sandbox passes no PYTHONPATH).
std::string WithCause(std::string reason) {
  constexpr absl::string_view kNoStubs = "No module named 'arena'";
  if (absl::StrContains(reason, kNoStubs)) {
    absl::StrAppend(&reason, " (", kNoStubs, ": see docs/bots.md#python)");
  }
  return reason;
}

// The run inside the referee that arena/tournament/launch.h sets up.
class Checker {
 public:
  Checker(const CheckBotOptions& options, std::vector<std::string> games,
          Options game_options, std::string bot, std::string opponent,
          absl::Duration grace)
      : o_(options),
        grace_(grace),
        games_(std::move(games)),
        game_options_(std::move(game_options)),
        bot_(std::move(bot)),
        opponent_(std::move(opponent)) {}

  absl::StatusOr<v1::Standings> Run(const v1::TournamentConfig& config,
                                    const TournamentSecret& secret, BotHub& hub,
                                    const TournamentHooks& hooks);

  std::vector<CheckLine>& lines() { return lines_; }
  absl::Time connected_at() const { return connected_at_; }

 private:
  // The bot's connections so far, once it is connected (a process that
  // ended is restarted here, as a tournament restarts it before a match).
  int Connected() {
    hooks_->ensure_bot(bot_);
    return hub_->Connections(bot_);
  }
  // Plays `plans` all at once, to their ends.
  absl::StatusOr<std::vector<Played>> Play(const std::vector<Plan>& plans);
  void Read(Played* p) const;
  // A check over `played`: fails at the first match with a fault (of the
  // kinds `counts` takes), a record not whole, or (unless `reconnects`) a
  // bot that connected again meanwhile (connections_before).
  CheckLine Judge(const std::string& name, const std::vector<Played>& played,
                  int connections_before, const std::string& pass_reason,
                  bool (*counts)(v1::FaultKind));

  const CheckBotOptions& o_;
  const absl::Duration grace_;  // the hub's reconnect grace
  const std::vector<std::string> games_;
  const Options game_options_;
  const std::string bot_, opponent_;
  absl::Time connected_at_;
  // Per run: set by Run.
  const v1::TournamentConfig* config_ = nullptr;
  const TournamentSecret* secret_ = nullptr;
  BotHub* hub_ = nullptr;
  const TournamentHooks* hooks_ = nullptr;
  int64_t next_index_ = 0;
  int batches_ = 0;
  std::vector<std::unique_ptr<std::vector<Played>>> kept_;  // what lines point into
  std::vector<CheckLine> lines_;
};

bool AnyFault(v1::FaultKind) { return true; }
bool NotTimingOrLegality(v1::FaultKind k) {
  return k != v1::FAULT_KIND_TIMEOUT && k != v1::FAULT_KIND_ILLEGAL;
}
bool Timeout(v1::FaultKind k) { return k == v1::FAULT_KIND_TIMEOUT; }
bool Illegal(v1::FaultKind k) { return k == v1::FAULT_KIND_ILLEGAL; }

absl::StatusOr<std::vector<Played>> Checker::Play(const std::vector<Plan>& plans) {
  struct Slot {
    std::unique_ptr<Game> game;
    std::shared_ptr<ProbeLink> link;
    std::shared_ptr<Match> match;
    MatchOutcome outcome;
  };
  std::vector<Slot> slots(plans.size());
  absl::Mutex mu;
  size_t left = plans.size();
  for (size_t i = 0; i < plans.size(); ++i) {
    const Plan& plan = plans[i];
    auto game = CreateGame(plan.game, game_options_, plan.seats);
    if (!game.ok()) return game.status();
    slots[i].game = *std::move(game);
    MatchSpec spec;
    const int64_t index = next_index_++;
    spec.match_id = MatchId(plan.game, secret_->TournamentId(), index);
    spec.deal_group = spec.match_id;
    spec.game_name = plan.game;
    spec.options = game_options_;
    for (int s = 0; s < plan.seats; ++s) {
      spec.seat_bots.push_back(s == plan.bot_seat ? bot_ : opponent_);
    }
    FillMatchSpec(*config_, *secret_, static_cast<uint64_t>(index), &spec);
    for (const std::string& b : {bot_, opponent_}) hooks_->ensure_bot(b);
    auto writer = RecordWriter::Open(config_->records_dir(), spec.match_id);
    if (!writer.ok()) return writer.status();
    slots[i].link = std::make_shared<ProbeLink>(
        hub_->NewMatchLink(spec.match_id, spec.seat_bots), hub_, bot_, plan.bot_seat,
        plan.probe, spec.match_id);
    slots[i].match = Match::Create(
        *slots[i].game, spec, slots[i].link,
        std::shared_ptr<RecordWriter>(*std::move(writer)),
        [&mu, &left, &slots, i](MatchOutcome outcome) {
          absl::MutexLock lock(&mu);
          slots[i].outcome = std::move(outcome);
          --left;
        });
  }
  for (Slot& s : slots) s.match->Start();
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(+[](size_t* n) { return *n == 0; }, &left));
  }
  std::vector<Played> played(plans.size());
  const int batch = ++batches_;
  for (size_t i = 0; i < plans.size(); ++i) {
    Played& p = played[i];
    p.plan = plans[i];
    p.batch = batch;
    p.record = slots[i].outcome.record_path;
    p.record_status = slots[i].outcome.record_status;
    p.probed = slots[i].link->probed();
    p.last_sent = slots[i].link->last_sent();
    Read(&p);
  }
  return played;
}

void Checker::Read(Played* p) const {
  if (!p->record_status.ok()) return;
  auto lines = ReadRecordFile(p->record);
  if (!lines.ok()) {
    p->record_status = lines.status();
    return;
  }
  for (const v1::RecordLine& line : *lines) {
    if (line.has_decision()) {
      for (const v1::SeatAction& a : line.decision().actions()) {
        if (a.seat() != p->plan.bot_seat) continue;
        if (a.source() == v1::SeatAction::SOURCE_BOT) {
          ++p->answers;
          p->slowest_us = std::max<int64_t>(p->slowest_us, a.think_us());
          if (p->probed != 0 && a.decision_id() == p->probed) p->probed_think_us = a.think_us();
        }
        if (a.fault() != v1::FAULT_KIND_UNSPECIFIED) {
          p->faults.push_back({a.fault(), line.decision().step(), a.fault_detail()});
          if (a.fault() == v1::FAULT_KIND_ILLEGAL) ++p->answers;  // an answer all the same
        }
      }
    } else if (line.has_forfeit() && line.forfeit().seat() == p->plan.bot_seat) {
      p->faults.push_back(
          {line.forfeit().fault(), line.forfeit().step(), line.forfeit().detail()});
      if (line.forfeit().fault() == v1::FAULT_KIND_ILLEGAL) ++p->answers;
    }
  }
}

CheckLine Checker::Judge(const std::string& name, const std::vector<Played>& played,
                         int connections_before, const std::string& pass_reason,
                         bool (*counts)(v1::FaultKind)) {
  CheckLine line;
  line.name = name;
  line.reason = pass_reason;
  int failed = 0;
  // The bot's first counted fault in each match (nullptr: none, or no whole
  // record).
  std::vector<const BotFault*> first(played.size(), nullptr);
  for (size_t i = 0; i < played.size(); ++i) {
    const Played& p = played[i];
    std::string why;
    if (!p.record_status.ok()) {
      why = absl::StrCat("no whole record: ", p.record_status.message());
    } else {
      for (const BotFault& f : p.faults) {
        if (!counts(f.kind)) continue;
        why = FaultText(f);
        first[i] = &f;
        break;
      }
    }
    if (why.empty()) continue;
    if (failed++ == 0) {
      line.pass = false;
      line.reason = absl::StrCat(Where(p.plan), ": ", why);
      line.where = &p;
      if (first[i] != nullptr) {
        line.step = first[i]->step;
        line.fault = *first[i];
      }
    }
  }
  // A crash or a closed stream fails every request the bot had open, in
  // every match played at once: the one that brought it about is the oldest
  // of them (a bot reads its stream in order, and had answered every request
  // before it), the one sent first. That match is the failure shown.
  if (line.where != nullptr && EndsEveryOpenRequest(line.fault.kind)) {
    for (size_t i = 0; i < played.size(); ++i) {
      const BotFault* f = first[i];
      if (f == nullptr || played[i].batch != line.where->batch || f->kind != line.fault.kind ||
          played[i].last_sent >= line.where->last_sent) {
        continue;
      }
      line.reason = absl::StrCat(Where(played[i].plan), ": ", FaultText(*f));
      line.where = &played[i];
      line.step = f->step;
      line.fault = *f;
    }
  }
  if (failed > 1) absl::StrAppend(&line.reason, " (", failed, " of ", played.size(), " matches)");
  if (line.pass) {
    std::string none = NothingSeen(played, &line);
    if (!none.empty()) {
      line.pass = false;
      line.not_run = true;
      line.reason = std::move(none);
    }
  }
  const int again = hub_->Connections(bot_) - connections_before;
  if (line.pass && again > 0) {
    line.pass = false;
    line.reason = absl::StrCat(
        "it connected again ", again,
        " time(s) meanwhile: its process ended or it closed its stream (see its log)");
  }
  return line;
}

absl::StatusOr<v1::Standings> Checker::Run(const v1::TournamentConfig& config,
                                           const TournamentSecret& secret, BotHub& hub,
                                           const TournamentHooks& hooks) {
  connected_at_ = MonoNow();
  config_ = &config;
  secret_ = &secret;
  hub_ = &hub;
  hooks_ = &hooks;
  auto keep = [&](std::vector<Played> p) -> const std::vector<Played>& {
    kept_.push_back(std::make_unique<std::vector<Played>>(std::move(p)));
    return *kept_.back();
  };
  std::vector<const std::vector<Played>*> seat_matches;

  // Every game, every seat count, every seat.
  for (const std::string& g : games_) {
    const GameInfo* info = FindGameInfo(g);
    const int before = Connected();
    std::vector<Played> all;
    for (int n = info->min_seats; n <= info->max_seats; ++n) {
      std::vector<Plan> plans;
      for (int s = 0; s < n; ++s) plans.push_back({g, n, s, Probe::kNone});
      auto played = Play(plans);
      if (!played.ok()) return played.status();
      for (Played& p : *played) all.push_back(std::move(p));
    }
    const std::vector<Played>& kept = keep(std::move(all));
    seat_matches.push_back(&kept);
    lines_.push_back(Judge(
        absl::StrCat("seats ", g), kept, before,
        absl::StrCat(info->min_seats == info->max_seats
                         ? absl::StrCat(info->min_seats)
                         : absl::StrCat(info->min_seats, "-", info->max_seats),
                     " seats, every seat (", kept.size(), " matches)"),
        NotTimingOrLegality));
  }
  // Deadline and legality over the seats matches.
  {
    int answers = 0;
    int64_t slowest = 0;
    for (const auto* v : seat_matches) {
      for (const Played& p : *v) {
        answers += p.answers;
        slowest = std::max(slowest, p.slowest_us);
      }
    }
    auto judge_all = [&](const std::string& name, const std::string& pass,
                         bool (*counts)(v1::FaultKind)) {
      CheckLine worst{name, true, pass};
      int failed = 0;
      for (const auto* v : seat_matches) {
        CheckLine l = Judge(name, *v, hub.Connections(bot_), pass, counts);
        if (!l.pass && failed++ == 0) worst = l;
      }
      if (failed > 1) absl::StrAppend(&worst.reason, "; and in ", failed - 1, " more game(s)");
      return worst;
    };
    lines_.push_back(judge_all(
        "deadline",
        absl::StrCat(answers, " answers, the slowest in ", Ms(slowest), " (deadline ",
                     config.time_control().decision_ms(), " ms)"),
        Timeout));
    lines_.push_back(judge_all("legal", absl::StrCat(answers, " answers, all legal"), Illegal));
  }
  const std::string& first = games_.front();
  const int min_seats = FindGameInfo(first)->min_seats;
  // The next match after a MatchEnd, on the same stream.
  {
    const int before = Connected();
    std::vector<Played> all;
    for (int i = 0; i < 2; ++i) {
      auto played = Play({{first, min_seats, i % min_seats, Probe::kNone}});
      if (!played.ok()) return played.status();
      all.push_back(std::move(played->front()));
    }
    lines_.push_back(Judge("match_end", keep(std::move(all)), before,
                           "played a match, then the next one after its MatchEnd",
                           AnyFault));
  }
  // Many matches at once, over every game.
  {
    const int before = Connected();
    std::vector<Plan> plans;
    for (int i = 0; i < o_.concurrent; ++i) {
      const std::string& g = games_[i % games_.size()];
      const int n = FindGameInfo(g)->min_seats;
      plans.push_back({g, n, (i / static_cast<int>(games_.size())) % n, Probe::kNone});
    }
    auto played = Play(plans);
    if (!played.ok()) return played.status();
    lines_.push_back(Judge("concurrent", keep(*std::move(played)), before,
                           absl::StrCat(o_.concurrent, " matches at once, each to its end"),
                           AnyFault));
  }
  // A match with a probe, played again while it ends before the probe's
  // moment without a fault of the bot (kProbeMatches in all).
  auto play_probed = [&](const Plan& plan, int* before) -> absl::StatusOr<std::vector<Played>> {
    absl::StatusOr<std::vector<Played>> played;
    for (int m = 0; m < kProbeMatches; ++m) {
      *before = Connected();
      played = Play({plan});
      if (!played.ok() || played->front().probed != 0) break;
      const Played& p = played->front();
      bool fault = !p.record_status.ok();
      for (const BotFault& f : p.faults) fault = fault || AnyFault(f.kind);
      if (fault) break;
    }
    return played;
  };
  // A dropped stream, a reconnect and a Resync.
  {
    int before = 0;
    auto played = play_probed({first, min_seats, 0, Probe::kDrop}, &before);
    if (!played.ok()) return played.status();
    const std::vector<Played>& kept = keep(*std::move(played));
    const Played& p = kept.front();
    const int again = hub.Connections(bot_) - before;
    CheckLine line = Judge("reconnect", kept, hub.Connections(bot_), "", AnyFault);
    const std::string grace = absl::FormatDuration(grace_);
    if (p.probed == 0) {
      line.reason = NotProbed(p, line, kProbeAt);  // before `pass` is set: it tells why
      line.pass = false;
    } else if (again == 0) {
      line.pass = false;
      line.reason = absl::StrCat(
          "its stream was dropped before decision ", p.probed,
          " and it did not connect again (reconnect within the grace, ", grace, ")",
          line.reason.empty() ? "" : "; ", line.reason);
    } else if (line.pass) {
      line.reason = absl::StrCat("its stream was dropped before decision ", p.probed,
                                 "; it reconnected and answered it from the Resync in ",
                                 Ms(p.probed_think_us));
    } else {
      line.reason = absl::StrCat("it reconnected after the drop before decision ", p.probed,
                                 ", but ", line.reason);
    }
    lines_.push_back(std::move(line));
  }
  // A notice mid-match.
  {
    int before = 0;
    auto played = play_probed({first, min_seats, min_seats - 1, Probe::kNotice}, &before);
    if (!played.ok()) return played.status();
    const std::vector<Played>& kept = keep(*std::move(played));
    const Played& p = kept.front();
    CheckLine line = Judge("notice", kept, before, "", AnyFault);
    if (p.probed == 0) {
      line.reason = NotProbed(p, line, kProbeAt);  // before `pass` is set: it tells why
      line.pass = false;
    } else if (line.pass) {
      line.reason = absl::StrCat("a STALE notice before decision ", p.probed,
                                 "; it played on to the match's end");
    } else {
      line.reason = absl::StrCat("after a STALE notice before decision ", p.probed, ": ",
                                 line.reason);
    }
    lines_.push_back(std::move(line));
  }
  return v1::Standings();
}

// random_bot beside this program (build/bin/), or an error.
absl::StatusOr<std::string> BundledRandomBot() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string path = (self.parent_path() / "random_bot").string();
  if (ec || ::access(path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the bundled random bot is not at ", path,
        " (build it: cmake --build build --target random_bot)"));
  }
  return path;
}

absl::Status CheckRange(const char* flag, int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", value, ": must be in [", min, ", ", max, "]"));
}

}  // namespace

int RunCheckBot(const CheckBotOptions& o, LaunchOptions launch) {
  // The checklist is on stdout; stderr keeps the warnings (faults as they
  // happen, restarts), not the referee's every connect.
  spdlog::set_level(spdlog::level::warn);
  // Usage: the bot, the games and their options, the numbers.
  if (o.bots.size() != 1) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "check-bot checks one bot: give one --bot NAME=COMMAND (", o.bots.size(), " given)")));
  }
  auto bot = SplitFlagPair("bot", o.bots[0], "NAME=COMMAND", /*need_right=*/true);
  if (!bot.ok()) return Fail(bot.status());
  const std::string name = bot->first, command = bot->second;
  if (!IsValidBotName(name)) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "--bot: the name '", name, "' is not valid: use 1 to 64 of A-Z a-z 0-9 _ . -")));
  }
  Options game_options;
  for (const auto& text : o.options) {
    auto kv = SplitFlagPair("option", text, "KEY=VALUE", /*need_right=*/false);
    if (!kv.ok()) return Fail(kv.status());
    game_options[kv->first] = kv->second;
  }
  std::vector<std::string> games;
  for (absl::string_view g : absl::StrSplit(o.games, ',', absl::SkipWhitespace())) {
    const std::string game(absl::StripAsciiWhitespace(g));
    if (std::find(games.begin(), games.end(), game) != games.end()) continue;
    const GameInfo* info = FindGameInfo(game);
    auto made = CreateGame(game, game_options, info == nullptr ? 0 : info->min_seats);
    if (!made.ok()) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          info == nullptr ? "--game: " : "--option: ", made.status().message())));
    }
    games.push_back(game);
  }
  if (games.empty()) return Fail(absl::InvalidArgumentError("--game: no game given"));
  for (absl::Status s :
       {CheckRange("decision_ms", o.decision_ms, 1, 3'600'000),
        CheckRange("connect_timeout_ms", o.connect_timeout_ms, 1, 3'600'000),
        CheckRange("decision_cap", o.decision_cap, 0, 1'000'000'000),
        CheckRange("concurrent", o.concurrent, 1, 256)}) {
    if (!s.ok()) return Fail(s);
  }
  std::string opponent_command = o.opponent;
  if (opponent_command.empty()) {
    auto found = BundledRandomBot();
    if (!found.ok()) return Fail(found.status());
    opponent_command = *found;
  }
  const std::string opponent = name == "random" ? "random-opponent" : "random";

  // The folder of records and logs: kept if a check fails.
  std::string dir = o.records;
  const bool temporary = dir.empty();
  if (temporary) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "arena-check-bot-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return Fail(absl::UnavailableError(absl::StrCat("cannot create ", tmpl)));
    }
    dir = tmpl;
  }
  v1::TournamentConfig c;
  c.set_game(games.front());
  for (const auto& [k, v] : game_options) (*c.mutable_options())[k] = v;
  for (const auto& [n, cmd] : {std::pair{name, command}, std::pair{opponent, opponent_command}}) {
    v1::BotConfig* bc = c.add_bots();
    bc->set_name(n);
    bc->set_command(cmd);
    auto token = NewToken();
    if (!token.ok()) return Fail(token.status());
    bc->set_token(*token);
  }
  c.set_matches(1);
  c.set_records_dir(dir);
  c.set_seed(o.seed);
  c.mutable_time_control()->set_decision_ms(o.decision_ms);
  c.set_fault_policy(v1::FAULT_POLICY_FORFEIT);
  c.set_decision_cap(o.decision_cap > 0 ? o.decision_cap : kCheckDecisionCap);
  c.set_on_bot_failure(v1::BOT_FAILURE_POLICY_ABORT);  // the connect check
  c.set_connect_timeout_ms(o.connect_timeout_ms);

  Checker checker(o, games, game_options, name, opponent, launch.hub.reconnect_grace);
  launch.connect_timeout = absl::Milliseconds(o.connect_timeout_ms);
  launch.show_progress = false;
  launch.fresh_bots_per_rotation = false;
  launch.run_instead = [&checker](const v1::TournamentConfig& config,
                                  const TournamentSecret& secret, BotHub& hub,
                                  const TournamentHooks& hooks) {
    return checker.Run(config, secret, hub, hooks);
  };
  std::cout << "arena check-bot: " << name << " (" << command << ") against "
            << opponent << ", " << absl::StrJoin(games, ", ") << "; sandbox "
            << (launch.sandbox.enabled ? "bwrap" : "none") << ", " << o.decision_ms
            << " ms per decision\n"
            << std::flush;
  const absl::Time t0 = MonoNow();
  auto run = RunConfiguredTournament(c, launch);
  const absl::Duration took = MonoNow() - t0;
  std::vector<CheckLine>& lines = checker.lines();
  if (!run.ok()) {
    const std::string prefix = absl::StrCat("bot ", name, ": ");
    if (!StartupFailed(run.status()) ||
        run.status().message().substr(0, prefix.size()) != prefix) {
      if (temporary) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
      return Fail(run.status());
    }
    lines.insert(lines.begin(),
                 CheckLine{"connect", false,
                           std::string(run.status().message().substr(prefix.size()))});
  } else {
    lines.insert(lines.begin(),
                 CheckLine{"connect", true,
                           absl::StrCat("said Hello within ",
                                        Ms(absl::ToInt64Microseconds(checker.connected_at() - t0)),
                                        " of its start")});
  }
  int failed = 0;
  const CheckLine* first = nullptr;
  for (const CheckLine& l : lines) {
    std::cout << (l.pass ? "PASS  " : "FAIL  ") << l.name << ": " << WithCause(l.reason)
              << "\n";
    if (!l.pass && failed++ == 0) first = &l;
  }
  std::cout << "summary: " << lines.size() - failed << " of " << lines.size()
            << " checks passed, " << failed << " failed, in "
            << absl::StrFormat("%.1f", absl::ToDoubleSeconds(took)) << " s\n";
  if (first != nullptr && first->where != nullptr) {
    CheckFailure f;
    f.check = first->name;
    f.where = Where(first->where->plan);
    f.record = first->where->record;
    f.seat = first->where->plan.bot_seat;
    f.fault = first->fault.kind;
    f.fault_step = first->fault.step;
    PrintCheckFailure(f, {dir, name, command, launch.sandbox.enabled}, std::cout);
  }
  if (failed == 0 && temporary) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  } else {
    std::cout << "records and the bots' logs (logs/" << name << ".log): " << dir << "\n";
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace arena
