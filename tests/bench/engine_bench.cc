// Benchmarks of the Quäsenbö engine, of building the bots' views and of the
// in-process match runner. One iteration is one whole match (random
// playout); `items_per_second` is decisions per second of CPU time, and
// `cpu_per_decision` is CPU time per decision (seconds, printed with an SI
// prefix: 850n = 850 ns). A decision is one acting seat choosing one action.
//
//   build/bin/engine_bench                       # everything
//   build/bin/engine_bench --benchmark_filter=Views
//
// Arguments of every benchmark: seats, all_options (0: the default options;
// 1: excuse, pawns, courts and double_quasenbo all on). The runner
// benchmark has a third: auto_moves (0: AUTO_MOVES_NONE, every decision goes
// to the bot; 1: AUTO_MOVES_SINGLE, the referee takes forced moves).
//
// See docs/benchmarks.md for the figures and the targets.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "arena/v1/arena.pb.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/arena.h"
#include "referee/game_api/game.h"
#include "referee/match/match_runner.h"
#include "referee/match/out_message.h"
#include "referee/records/record.h"
#include "referee/games/registry.h"
#include "referee/game_api/rng.h"
#include "spdlog/spdlog.h"

namespace {

using arena::Options;

const Options& GameOptions(bool all_on) {
  static const Options* const kDefault = new Options();
  static const Options* const kAllOn = new Options{{"excuse", "true"},
                                                   {"pawns", "true"},
                                                   {"courts", "true"},
                                                   {"double_quasenbo", "true"}};
  return all_on ? *kAllOn : *kDefault;
}

std::unique_ptr<arena::Game> MakeGame(int seats, bool all_on) {
  auto game = arena::CreateGame("quasenbo", GameOptions(all_on), seats);
  if (!game.ok()) {
    std::fprintf(stderr, "cannot make quasenbo: %s\n",
                 game.status().ToString().c_str());
    std::abort();
  }
  return *std::move(game);
}

void SetCounters(benchmark::State& st, int64_t decisions, int64_t matches) {
  st.SetItemsProcessed(decisions);
  st.counters["cpu_per_decision"] = benchmark::Counter(
      static_cast<double>(decisions),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  st.counters["decisions_per_match"] =
      matches > 0 ? static_cast<double>(decisions) / matches : 0.0;
}

// (a) The engine alone: NumLegalActions + Apply with a random index.
void BM_PlayoutNoViews(benchmark::State& st) {
  const auto game = MakeGame(static_cast<int>(st.range(0)), st.range(1) != 0);
  const int64_t cap = game->info().default_decision_cap;
  arena::Rng rng(42);
  uint64_t seed = 1;
  int64_t decisions = 0, matches = 0;
  std::vector<int> actions;
  for (auto _ : st) {
    auto s = game->NewInitialState(seed++);
    while (!s->IsTerminal() && s->step() < cap) {
      const std::vector<int>& acting = s->ActingSeats();
      actions.resize(acting.size());
      for (size_t i = 0; i < acting.size(); ++i) {
        actions[i] = static_cast<int>(rng.Uniform(
            static_cast<uint32_t>(s->NumLegalActions(acting[i]))));
      }
      decisions += static_cast<int64_t>(acting.size());
      s->Apply(actions);
    }
    ++matches;
    benchmark::DoNotOptimize(s.get());
  }
  SetCounters(st, decisions, matches);
}

// The events `seat` may see since its previous decision, as the runner adds
// them (match_runner.cc, Runner::AddEvents).
void AddEvents(const arena::State& s, int seat, std::vector<size_t>& cursor,
               arena::v1::View* view) {
  const auto& events = s.events();
  for (size_t i = cursor[seat]; i < events.size(); ++i) {
    if (const arena::v1::Event* e = arena::EventForSeat(events[i], seat)) {
      *view->add_events() = *e;
    }
  }
  cursor[seat] = events.size();
}

// (b) The engine plus each deciding seat's DecisionRequest, built as the
// runner builds it: a fresh arena::OutMessage (a RefereeMessage on its own
// protobuf Arena) per decision, with the header fields, the events since the
// seat's previous decision, FillView and FillLegalActions, then freed.
//   kViews:          exactly that (the target's figure).
//   kViewsSerialize: also serialised into a reused string, as gRPC does on
//                    sending (not part of the target; shows what it adds).
//   kViewsHeap:      the request built on the heap into one reused message
//                    (Clear() then fill), as the runner first did: for
//                    comparison. Clear() deletes oneof submessages (the
//                    QuasenboView, every Event's and Action's payload), so
//                    the reuse saves little; the arena makes them free.
enum ViewMode { kViews, kViewsSerialize, kViewsHeap };

void FillRequest(const arena::State& s, int seat, bool simultaneous,
                 uint64_t decision_id, const std::string& match_id,
                 std::vector<size_t>& cursor, arena::v1::DecisionRequest* r) {
  r->set_match_id(match_id);
  r->set_seat(seat);
  r->set_decision_id(decision_id);
  r->set_step(static_cast<int32_t>(s.step()));
  r->set_deadline_ms(1000);
  r->set_simultaneous(simultaneous);
  AddEvents(s, seat, cursor, r->mutable_view());
  s.FillView(seat, r->mutable_view());
  s.FillLegalActions(seat, r->mutable_legal_actions());
}

template <ViewMode mode>
void BM_PlayoutViews(benchmark::State& st) {
  const auto game = MakeGame(static_cast<int>(st.range(0)), st.range(1) != 0);
  const int n = game->num_seats();
  const int64_t cap = game->info().default_decision_cap;
  arena::Rng rng(42);
  uint64_t seed = 1;
  uint64_t decision_id = 0;
  int64_t decisions = 0, matches = 0, bytes = 0;
  std::vector<int> actions;
  std::vector<size_t> cursor;
  arena::v1::DecisionRequest request;
  std::string wire;
  const std::string match_id = "quasenbo-s1-000001";
  for (auto _ : st) {
    auto s = game->NewInitialState(seed++);
    cursor.assign(n, 0);
    while (!s->IsTerminal() && s->step() < cap) {
      const std::vector<int>& acting = s->ActingSeats();
      actions.resize(acting.size());
      for (size_t i = 0; i < acting.size(); ++i) {
        const int seat = acting[i];
        const int num = s->NumLegalActions(seat);
        if (mode == kViewsHeap) {
          request.Clear();
          FillRequest(*s, seat, acting.size() > 1, ++decision_id, match_id,
                      cursor, &request);
          benchmark::DoNotOptimize(request);
        } else {
          arena::OutMessage m;
          FillRequest(*s, seat, acting.size() > 1, ++decision_id, match_id,
                      cursor, m->mutable_decision_request());
          if (mode == kViewsSerialize) {
            m->SerializeToString(&wire);
            bytes += static_cast<int64_t>(wire.size());
          }
          benchmark::DoNotOptimize(m);
        }
        actions[i] = static_cast<int>(rng.Uniform(static_cast<uint32_t>(num)));
      }
      decisions += static_cast<int64_t>(acting.size());
      s->Apply(actions);
    }
    ++matches;
  }
  SetCounters(st, decisions, matches);
  if (mode == kViewsSerialize && decisions > 0) {
    st.counters["request_bytes"] = static_cast<double>(bytes) / decisions;
  }
}

// A SeatLink whose bots answer at once with a random legal index.
class InstantLink : public arena::SeatLink {
 public:
  explicit InstantLink(int seats) : rng_(7) {}
  void Start(int, const arena::v1::MatchStart&) override {}
  void Send(int seat, arena::OutMessage message,
            int num_legal_actions) override {
    arena::SeatReply r;
    r.ok = true;
    r.action = static_cast<int>(
        rng_.Uniform(static_cast<uint32_t>(num_legal_actions)));
    ++sent_;
    Deliver(seat, message->decision_request().decision_id(), std::move(r));
  }
  void End(int, const arena::v1::MatchEnd&) override {}
  int64_t sent() const { return sent_; }

 private:
  arena::Rng rng_;
  int64_t sent_ = 0;
};

// (c) The whole in-process runner: RunMatch with an in-memory RecordWriter
// and bots that answer at once. Everything the referee does per decision
// except the network: engine, view, record line (JSON), clocks, the link.
void BM_RunMatchInProcess(benchmark::State& st) {
  const int seats = static_cast<int>(st.range(0));
  const auto game = MakeGame(seats, st.range(1) != 0);
  arena::MatchSpec spec;
  spec.game_name = "quasenbo";
  spec.options = GameOptions(st.range(1) != 0);
  for (int s = 0; s < seats; ++s) spec.seat_bots.push_back(absl::StrCat("bot", s));
  spec.time_control.set_decision_ms(60000);
  spec.fault_policy = arena::v1::FAULT_POLICY_FORFEIT;
  spec.auto_moves = st.range(2) != 0 ? arena::v1::AUTO_MOVES_SINGLE
                                     : arena::v1::AUTO_MOVES_NONE;
  InstantLink link(seats);
  int64_t decisions = 0, matches = 0, record_bytes = 0, record_lines = 0;
  for (auto _ : st) {
    ++matches;
    spec.match_id = absl::StrCat("quasenbo-s1-", matches);
    spec.seed = arena::DeriveSeed(1, static_cast<uint64_t>(matches));
    auto writer = arena::RecordWriter::Open("", spec.match_id);
    const arena::MatchOutcome out =
        arena::RunMatch(*game, spec, link, **writer);
    decisions += out.result.decisions();
    for (const auto& l : (*writer)->lines()) record_bytes += l.size() + 1;
    record_lines += static_cast<int64_t>((*writer)->lines().size());
  }
  SetCounters(st, decisions, matches);
  if (decisions > 0) {
    st.counters["bot_share"] = static_cast<double>(link.sent()) / decisions;
    st.counters["record_bytes_per_decision"] =
        static_cast<double>(record_bytes) / decisions;
    st.counters["record_lines_per_decision"] =
        static_cast<double>(record_lines) / decisions;
  }
}

// The record lines of a few matches (every kind the runner writes).
const std::vector<arena::v1::RecordLine>& SampleRecordLines() {
  static const auto* const lines = [] {
    auto* out = new std::vector<arena::v1::RecordLine>;
    const auto game = MakeGame(2, false);
    arena::MatchSpec spec;
    spec.game_name = "quasenbo";
    spec.seat_bots = {"bot0", "bot1"};
    spec.time_control.set_decision_ms(60000);
    spec.auto_moves = arena::v1::AUTO_MOVES_NONE;
    InstantLink link(2);
    for (int i = 0; i < 20; ++i) {
      spec.match_id = absl::StrCat("quasenbo-s1-", i);
      spec.seed = arena::DeriveSeed(1, static_cast<uint64_t>(i));
      auto writer = arena::RecordWriter::Open("", spec.match_id);
      arena::RunMatch(*game, spec, link, **writer);
      auto parsed = arena::ParseRecordLines((*writer)->lines(), "bench");
      if (!parsed.ok()) std::abort();
      for (auto& l : *parsed) out->push_back(std::move(l));
    }
    return out;
  }();
  return *lines;
}



// What one record line costs: the writer the referee uses
// (arena::RecordLineToJson, referee/records/json_writer.h), protobuf's own
// MessageToJsonString for the same line, and binary serialisation (a lower
// bound for any encoding). items = lines.
enum LineCodec { kArenaJson, kLibraryJson, kBinary };

template <LineCodec codec>
void BM_RecordLine(benchmark::State& st) {
  const auto& lines = SampleRecordLines();
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  std::string out;
  size_t i = 0;
  int64_t bytes = 0;
  for (auto _ : st) {
    const arena::v1::RecordLine& l = lines[i];
    if (++i == lines.size()) i = 0;
    if (codec == kArenaJson) {
      out = arena::RecordLineToJson(l);
    } else if (codec == kLibraryJson) {
      out.clear();
      (void)google::protobuf::util::MessageToJsonString(l, &out, opts);
    } else {
      out.clear();
      l.SerializeToString(&out);
    }
    bytes += static_cast<int64_t>(out.size());
    benchmark::DoNotOptimize(out);
  }
  st.SetItemsProcessed(st.iterations());
  st.counters["bytes_per_line"] =
      static_cast<double>(bytes) / std::max<int64_t>(1, st.iterations());
}
BENCHMARK_TEMPLATE(BM_RecordLine, kArenaJson)->Name("BM_RecordLine/arena_json_writer");
BENCHMARK_TEMPLATE(BM_RecordLine, kLibraryJson)->Name("BM_RecordLine/protobuf_MessageToJsonString");
BENCHMARK_TEMPLATE(BM_RecordLine, kBinary)->Name("BM_RecordLine/binary");

void GameArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"seats", "all_options"});
  b->Args({2, 0})->Args({4, 0})->Args({2, 1})->Args({4, 1});
}

void RunnerArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"seats", "all_options", "auto_single"});
  b->Args({2, 0, 0})->Args({4, 0, 0})->Args({4, 1, 0})->Args({2, 0, 1});
}

BENCHMARK(BM_PlayoutNoViews)->Apply(GameArgs);
BENCHMARK_TEMPLATE(BM_PlayoutViews, kViews)->Apply(GameArgs);
BENCHMARK_TEMPLATE(BM_PlayoutViews, kViewsSerialize)->Apply(GameArgs);
BENCHMARK_TEMPLATE(BM_PlayoutViews, kViewsHeap)->Apply(GameArgs);
BENCHMARK(BM_RunMatchInProcess)->Apply(RunnerArgs);

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
