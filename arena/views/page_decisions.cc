#include "arena/views/page_decisions.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "arena/v1/record.pb.h"
#include "arena/views/html.h"
#include "arena/views/replay_json.h"
#include "google/protobuf/descriptor.h"

namespace arena {
namespace {

// `s` as a JSON string, markup escaped as protobuf's JSON escapes it (a
// note may hold anything; the page shows it as text).
std::string TextJson(const std::string& s) {
  return absl::StrReplaceAll(JsonString(s), {{"<", "\\u003c"}, {">", "\\u003e"}, {"&", "\\u0026"}});
}

void AppendValue(int64_t v, std::string* column) {
  if (!column->empty()) column->push_back(',');
  absl::StrAppend(column, v);
}

}  // namespace

bool BrowserEngineGame(const std::string& game) { return game == "pesten"; }

std::string StepCheckText(const v1::ReplayStep& step) {
  std::string t = absl::StrCat(step.step(), "\n");
  for (const auto& v : step.views()) {
    AppendReplayJson(v, &t);
    t.push_back('\n');
  }
  for (const auto& e : step.events()) {
    absl::StrAppend(&t, e.visibility().is_public() ? 1 : 0, ":",
                    absl::StrJoin(e.visibility().seats(), ","), "\n", e.text(), "\n");
    for (const auto& se : e.seats()) {
      absl::StrAppend(&t, se.sees() ? 1 : 0, se.redacted() ? 1 : 0, se.text(), "\n");
    }
  }
  for (const auto& a : step.actions()) {
    for (const auto& l : a.legal()) absl::StrAppend(&t, l, "\n");
  }
  return t;
}

uint32_t Fnv1a(const std::string& text, uint32_t hash) {
  for (unsigned char c : text) hash = (hash ^ c) * 0x01000193u;
  return hash;
}

void PageDecisionColumns::Add(const v1::ReplayStep& step) {
  const int64_t k = positions_ / chunk_steps_;
  if (k == static_cast<int64_t>(checks_.size())) checks_.push_back(0x811c9dc5u);
  checks_.back() = Fnv1a(StepCheckText(step), checks_.back());
  ++positions_;
  if (step.actions_size() == 0) return;  // the end, or events after the last decision
  AppendValue(decisions_ == 0 ? step.step() : step.step() - last_step_, &step_);
  last_step_ = step.step();
  ++decisions_;
  AppendValue(step.actions_size(), &n_);
  for (const auto& a : step.actions()) {
    AppendValue(a.seat(), &seat_);
    AppendValue(a.action(), &action_);
    AppendValue(a.think_us(), &think_);
    AppendValue(a.source(), &src_);
    std::string x;
    auto field = [&x](const char* name) {
      absl::StrAppend(&x, x.empty() ? "" : ",", "\"", name, "\":");
    };
    const bool own_label = a.action() >= 0 && a.action() < a.legal_size() &&
                           a.legal(a.action()) == a.label();
    if (!own_label) {
      field("label");
      x += TextJson(a.label());
    }
    if (!a.fault_detail().empty()) {
      field("fault_detail");
      x += TextJson(a.fault_detail());
    }
    if (!a.note().empty()) {
      field("note");
      x += TextJson(a.note());
    }
    if (a.note_cut_bytes() != 0) {
      field("note_cut_bytes");
      absl::StrAppend(&x, a.note_cut_bytes());
    }
    if (!x.empty()) {
      absl::StrAppend(&x_, x_.empty() ? "" : ",", "[", actions_, ",{", x, "}]");
    }
    ++actions_;
  }
}

std::string PageDecisionColumns::Json(bool finished) const {
  std::string sources;
  const auto* e = v1::SeatAction::Source_descriptor();
  int top = 0;
  for (int i = 0; i < e->value_count(); ++i) top = std::max(top, e->value(i)->number());
  for (int v = 0; v <= top; ++v) {
    const auto* value = e->FindValueByNumber(v);
    absl::StrAppend(&sources, v > 0 ? "," : "", "\"", value != nullptr ? value->name() : "", "\"");
  }
  return absl::StrCat("{\"finished\":", finished ? "true" : "false", ",\"sources\":[", sources,
                      "],\"step\":[", step_, "],\"n\":[", n_, "],\"seat\":[", seat_,
                      "],\"action\":[", action_, "],\"think\":[", think_, "],\"src\":[", src_,
                      "],\"x\":[", x_, "],\"checks\":[", absl::StrJoin(checks_, ","), "]}");
}

}  // namespace arena
