#include "arena/views/replay_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"

namespace arena {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// A page's chunk leaves out the events as messages: it shows their words.
constexpr absl::string_view kPageSkippedEvent = "event";

// The length of the UTF-8 sequence at in[i] if it is one of U+00A0 to
// U+05FF but U+00AD (accented Latin letters, Greek, Cyrillic: what card and
// bot names hold), which protobuf writes as they are; else 0 (protobuf
// escapes some Unicode format characters; invalid UTF-8).
size_t PlainUtf8(const std::string& in, size_t i) {
  if (i + 1 >= in.size()) return 0;
  const unsigned char a = in[i], b = in[i + 1];
  if (a < 0xc2 || a > 0xd7 || (b & 0xc0) != 0x80) return 0;
  const unsigned cp = ((a & 0x1fu) << 6) | (b & 0x3fu);
  return cp >= 0xa0 && cp != 0xad ? 2 : 0;
}

// False for a string protobuf might escape otherwise.
bool AppendString(const std::string& in, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned char c = in[i];
    if (c >= 0x80) {
      if (PlainUtf8(in, i) == 0) return false;
      out->append(in, i, 2);
      ++i;
      continue;
    }
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '<': out->append("\\u003c"); break;
      case '>': out->append("\\u003e"); break;
      default:
        if (c >= 0x7f) return false;
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
  return true;
}

// Shortest of %.15g / %.17g that reads back exactly, as protobuf does.
bool AppendDouble(double v, std::string* out) {
  if (!std::isfinite(v)) return false;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof(buf), "%.17g", v);
  out->append(buf);
  return true;
}

// `skip`: the name of a field left out (a page's chunk: what it need not
// carry).
bool AppendMessage(const Message& m, std::string* out, absl::string_view skip = {});

bool AppendValue(const Message& m, const Reflection* r, const FieldDescriptor* f, int index,
                 std::string* out) {
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      absl::StrAppend(out, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
      return true;
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(out, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
      return true;
    case FieldDescriptor::CPPTYPE_INT64:
      absl::StrAppend(out, "\"", rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f),
                      "\"");
      return true;
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(out, "\"",
                      rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f), "\"");
      return true;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->append((rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true"
                                                                             : "false");
      return true;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return AppendDouble(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f), out);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return false;  // protobuf prints floats its own way; no step has one
    case FieldDescriptor::CPPTYPE_STRING: {
      if (f->type() == FieldDescriptor::TYPE_BYTES) return false;
      std::string scratch;
      return AppendString(rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                              : r->GetStringReference(m, f, &scratch),
                          out);
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int v = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const auto* ev = f->enum_type()->FindValueByNumber(v);
      if (ev == nullptr) return false;
      absl::StrAppend(out, "\"", ev->name(), "\"");
      return true;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return AppendMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f), out);
  }
  return false;
}

bool AppendMessage(const Message& m, std::string* out, absl::string_view skip) {
  const Descriptor* d = m.GetDescriptor();
  if (d->file()->name().rfind("google/protobuf/", 0) == 0) return false;  // Any, wrappers
  const Reflection* r = m.GetReflection();
  out->push_back('{');
  bool first = true;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_map()) return false;
    if (!skip.empty() && f->name() == skip) continue;
    if (!f->is_repeated()) {
      const bool set = r->HasField(m, f);
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE || f->containing_oneof() != nullptr) {
        if (!set) continue;  // an unset message or oneof member is not printed
      } else if (f->has_presence() && !set) {
        return false;  // proto3 `optional`: left to protobuf
      }
    }
    if (!first) out->push_back(',');
    first = false;
    out->push_back('"');
    out->append(f->name());
    out->append("\":");
    if (f->is_repeated()) {
      out->push_back('[');
      const int n = r->FieldSize(m, f);
      for (int k = 0; k < n; ++k) {
        if (k > 0) out->push_back(',');
        if (!AppendValue(m, r, f, k, out)) return false;
      }
      out->push_back(']');
    } else if (!AppendValue(m, r, f, -1, out)) {
      return false;
    }
  }
  out->push_back('}');
  return true;
}

// Whether field `f` of `a` and `b` holds the same value (and presence).
bool SameField(const Message& a, const Message& b, const FieldDescriptor* f) {
  const Reflection* ra = a.GetReflection();
  const Reflection* rb = b.GetReflection();
  if (f->is_repeated()) {
    const int n = ra->FieldSize(a, f);
    if (n != rb->FieldSize(b, f)) return false;
    for (int i = 0; i < n; ++i) {
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32:
          if (ra->GetRepeatedInt32(a, f, i) != rb->GetRepeatedInt32(b, f, i)) return false;
          break;
        case FieldDescriptor::CPPTYPE_ENUM:
          if (ra->GetRepeatedEnumValue(a, f, i) != rb->GetRepeatedEnumValue(b, f, i)) {
            return false;
          }
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          if (ra->GetRepeatedInt64(a, f, i) != rb->GetRepeatedInt64(b, f, i)) return false;
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          if (ra->GetRepeatedBool(a, f, i) != rb->GetRepeatedBool(b, f, i)) return false;
          break;
        case FieldDescriptor::CPPTYPE_DOUBLE:
          if (ra->GetRepeatedDouble(a, f, i) != rb->GetRepeatedDouble(b, f, i)) return false;
          break;
        default:
          return false;  // said again: strings, messages and the rest
      }
    }
    return true;
  }
  const bool has_a = ra->HasField(a, f), has_b = rb->HasField(b, f);
  if (has_a != has_b) return false;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return ra->GetInt32(a, f) == rb->GetInt32(b, f);
    case FieldDescriptor::CPPTYPE_UINT32: return ra->GetUInt32(a, f) == rb->GetUInt32(b, f);
    case FieldDescriptor::CPPTYPE_INT64: return ra->GetInt64(a, f) == rb->GetInt64(b, f);
    case FieldDescriptor::CPPTYPE_UINT64: return ra->GetUInt64(a, f) == rb->GetUInt64(b, f);
    case FieldDescriptor::CPPTYPE_BOOL: return ra->GetBool(a, f) == rb->GetBool(b, f);
    case FieldDescriptor::CPPTYPE_ENUM: return ra->GetEnumValue(a, f) == rb->GetEnumValue(b, f);
    case FieldDescriptor::CPPTYPE_DOUBLE: return ra->GetDouble(a, f) == rb->GetDouble(b, f);
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string sa, sb;
      return ra->GetStringReference(a, f, &sa) == rb->GetStringReference(b, f, &sb);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return !has_a ||
             ra->GetMessage(a, f).SerializePartialAsString() ==
                 rb->GetMessage(b, f).SerializePartialAsString();
    default:
      return false;
  }
}

// What changed in a message since another of its type: its entries in
// field order, each a field's new value as AppendMessage prints it (whole,
// null for a field no longer set, or {"@s":[at,removed,inserted...]}: a
// list spliced), or, for a message set in both, its own Delta.
struct Delta {
  struct Entry {
    std::string name;
    std::string value;              // unless nested
    std::unique_ptr<Delta> nested;  // a message set in both
  };
  std::vector<Entry> entries;

  void Append(std::string* out) const {
    out->push_back('{');
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i > 0) out->push_back(',');
      absl::StrAppend(out, "\"", entries[i].name, "\":");
      if (entries[i].nested) {
        entries[i].nested->Append(out);
      } else {
        out->append(entries[i].value);
      }
    }
    out->push_back('}');
  }
};

// Repeated field `f` of `m` as what changed since `prev`'s: the whole list,
// or a splice of `prev`'s ({"@s":[at, how many removed, the inserted...]})
// when that is shorter: a card played or drawn is then a few characters,
// not the whole hand again.
bool AppendListDelta(const Message& m, const Message& prev, const FieldDescriptor* f,
                     std::string* out) {
  const Reflection* r = m.GetReflection();
  const Reflection* rp = prev.GetReflection();
  std::vector<std::string> now(r->FieldSize(m, f)), before(rp->FieldSize(prev, f));
  size_t whole = 2;
  for (size_t k = 0; k < now.size(); ++k) {
    if (!AppendValue(m, r, f, static_cast<int>(k), &now[k])) return false;
    whole += now[k].size() + 1;
  }
  for (size_t k = 0; k < before.size(); ++k) {
    if (!AppendValue(prev, rp, f, static_cast<int>(k), &before[k])) return false;
  }
  size_t at = 0;
  while (at < now.size() && at < before.size() && now[at] == before[at]) ++at;
  size_t tail = 0;
  while (tail < now.size() - at && tail < before.size() - at &&
         now[now.size() - 1 - tail] == before[before.size() - 1 - tail]) {
    ++tail;
  }
  std::string splice = absl::StrCat("{\"@s\":[", at, ",", before.size() - at - tail);
  for (size_t k = at; k + tail < now.size(); ++k) absl::StrAppend(&splice, ",", now[k]);
  splice.append("]}");
  if (splice.size() < whole) {
    out->append(splice);
    return true;
  }
  out->push_back('[');
  for (size_t k = 0; k < now.size(); ++k) {
    if (k > 0) out->push_back(',');
    out->append(now[k]);
  }
  out->push_back(']');
  return true;
}

// `m` as what changed since `prev` (same type): the fields whose value
// differs, whole (a list perhaps spliced), but a message set in both, as
// its own delta when `depth` is above 0; null for a field set in `prev` and
// no longer. Fields are "printed" as AppendMessage prints them.
bool MakeDelta(const Message& m, const Message& prev, int depth, Delta* out) {
  const Descriptor* d = m.GetDescriptor();
  if (d->file()->name().rfind("google/protobuf/", 0) == 0) return false;
  const Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_map()) return false;
    const bool optional = !f->is_repeated() && (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ||
                                                f->containing_oneof() != nullptr);
    if (!f->is_repeated() && !optional && f->has_presence()) return false;
    // A message set in both is said as its delta (perhaps {}), not compared.
    const bool nested = !f->is_repeated() && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
                        depth > 0 && r->HasField(m, f) && prev.GetReflection()->HasField(prev, f);
    if (!nested && SameField(m, prev, f)) continue;
    Delta::Entry& e = out->entries.emplace_back();
    e.name = f->name();
    if (nested) {
      e.nested = std::make_unique<Delta>();
      if (!MakeDelta(r->GetMessage(m, f), prev.GetReflection()->GetMessage(prev, f), depth - 1,
                     e.nested.get())) {
        return false;
      }
    } else if (!(f->is_repeated() || !optional || r->HasField(m, f))) {
      e.value = "null";
    } else if (f->is_repeated()) {
      if (!AppendListDelta(m, prev, f, &e.value)) return false;
    } else if (!AppendValue(m, r, f, -1, &e.value)) {
      return false;
    }
  }
  return true;
}

// Moves what every one of `deltas` (two or more) holds alike (the same
// field with the same value; in a message set in both, one level down the
// same) out of them into `common`: what every seat was told alike is said
// once.
void MoveCommon(const std::vector<Delta*>& deltas, Delta* common) {
  const Delta& first = *deltas[0];
  std::vector<Delta::Entry*> alike(deltas.size());
  for (const Delta::Entry& e : first.entries) {
    bool all = true;
    for (size_t s = 0; s < deltas.size() && all; ++s) {
      alike[s] = nullptr;
      for (Delta::Entry& o : deltas[s]->entries) {
        if (o.name == e.name) alike[s] = &o;
      }
      all = alike[s] != nullptr && (alike[s]->nested != nullptr) == (e.nested != nullptr) &&
            (e.nested != nullptr || alike[s]->value == e.value);
    }
    if (!all) continue;
    if (e.nested == nullptr) {
      common->entries.push_back({e.name, e.value, nullptr});
      for (Delta::Entry* o : alike) o->name.clear();  // moved
      continue;
    }
    std::vector<Delta*> inner;
    for (Delta::Entry* o : alike) inner.push_back(o->nested.get());
    auto c = std::make_unique<Delta>();
    MoveCommon(inner, c.get());
    if (c->entries.empty()) continue;
    common->entries.push_back({e.name, "", std::move(c)});
    for (Delta::Entry* o : alike) {
      if (o->nested->entries.empty()) o->name.clear();  // nothing left of its own
    }
  }
  for (Delta* d : deltas) {
    d->entries.erase(std::remove_if(d->entries.begin(), d->entries.end(),
                                    [](const Delta::Entry& e) { return e.name.empty(); }),
                     d->entries.end());
  }
}

// An event with its "seats" entries equal to the one before as 1, and
// without the event as a message (the page shows the words): false if this
// writer cannot write it.
bool AppendPageEvent(const Message& item, std::string* out) {
  const Descriptor* ed = item.GetDescriptor();
  const Reflection* er = item.GetReflection();
  out->push_back('{');
  bool first = true;
  for (int j = 0; j < ed->field_count(); ++j) {
    const FieldDescriptor* g = ed->field(j);
    if (g->is_map()) return false;
    if (g->name() == kPageSkippedEvent) continue;
    if (!g->is_repeated() && (g->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ||
                              g->containing_oneof() != nullptr) &&
        !er->HasField(item, g)) {
      continue;
    }
    if (!g->is_repeated() && g->has_presence() && !er->HasField(item, g)) return false;
    if (!first) out->push_back(',');
    first = false;
    absl::StrAppend(out, "\"", g->name(), "\":");
    if (!g->is_repeated()) {
      if (!AppendValue(item, er, g, -1, out)) return false;
      continue;
    }
    const bool seats = g->name() == "seats" && g->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    out->push_back('[');
    std::string last, cur;
    for (int s = 0; s < er->FieldSize(item, g); ++s) {
      if (s > 0) out->push_back(',');
      cur.clear();
      if (seats ? !AppendMessage(er->GetRepeatedMessage(item, g, s), &cur, kPageSkippedEvent)
                : !AppendValue(item, er, g, s, &cur)) {
        return false;
      }
      if (seats && s > 0 && cur == last) {
        out->push_back('1');
      } else {
        out->append(cur);
      }
      last.swap(cur);
    }
    out->push_back(']');
  }
  out->push_back('}');
  return true;
}

// An action with its "label" left out when it is its legal action's label
// ("legal"[action]), which the page reads instead, and its note left out
// when it has none (the page puts back an empty one).
void AppendPageAction(const Message& action, std::string* out) {
  const Descriptor* d = action.GetDescriptor();
  const Reflection* r = action.GetReflection();
  const FieldDescriptor* label = d->FindFieldByName("label");
  const FieldDescriptor* legal = d->FindFieldByName("legal");
  const FieldDescriptor* chosen = d->FindFieldByName("action");
  bool derived = false;
  if (label != nullptr && legal != nullptr && chosen != nullptr &&
      label->type() == FieldDescriptor::TYPE_STRING && legal->type() == FieldDescriptor::TYPE_STRING &&
      legal->is_repeated() && chosen->cpp_type() == FieldDescriptor::CPPTYPE_INT32) {
    const int a = r->GetInt32(action, chosen);
    std::string s1, s2;
    derived = a >= 0 && a < r->FieldSize(action, legal) &&
              r->GetStringReference(action, label, &s1) ==
                  r->GetRepeatedStringReference(action, legal, a, &s2);
  }
  const size_t size = out->size();
  if (!AppendMessage(action, out, derived ? "label" : "")) {
    out->resize(size);
    AppendReplayJson(action, out);
  }
  // The note's fields are the message's last (ReplayAction, replay.proto).
  constexpr absl::string_view kNoNote = ",\"note\":\"\",\"note_cut_bytes\":0}";
  if (absl::EndsWith(*out, kNoNote)) out->replace(out->size() - kNoNote.size(), kNoNote.size(), "}");
}

}  // namespace

namespace {

// Each seat's view (the repeated field `f` of `step`) as what changed since
// the same seat's in `prev`, what every seat's change holds alike said once:
// {"c":<alike>,"s":[<each seat's own>...]}, or [<each seat's>...] when
// nothing is alike; false if a view cannot be said so.
bool AppendViewDeltas(const Message& step, const Message& prev, const FieldDescriptor* f,
                      std::string* out) {
  const Reflection* r = step.GetReflection();
  const int n = r->FieldSize(step, f);
  std::vector<Delta> seats(n);
  std::vector<Delta*> all;
  for (int k = 0; k < n; ++k) {
    if (!MakeDelta(r->GetRepeatedMessage(step, f, k),
                   prev.GetReflection()->GetRepeatedMessage(prev, f, k), 1, &seats[k])) {
      return false;
    }
    all.push_back(&seats[k]);
  }
  Delta common;
  if (n > 1) MoveCommon(all, &common);
  if (!common.entries.empty()) {
    out->append("{\"c\":");
    common.Append(out);
    out->append(",\"s\":");
  }
  out->push_back('[');
  for (int k = 0; k < n; ++k) {
    if (k > 0) out->push_back(',');
    seats[k].Append(out);
  }
  out->push_back(']');
  if (!common.entries.empty()) out->push_back('}');
  return true;
}

}  // namespace

void PageStepColumns::Add(const Message& step, const Message* prev) {
  const Descriptor* d = step.GetDescriptor();
  const Reflection* r = step.GetReflection();
  if (columns_.empty()) {
    for (int i = 0; i < d->field_count(); ++i) columns_.emplace_back(d->field(i)->name(), "");
  }
  bool delta = false;
  std::string value;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    std::string& out = columns_[i].second;
    if (steps_ > 0) out.push_back(',');
    value.clear();
    if (f->name() == "step" && f->cpp_type() == FieldDescriptor::CPPTYPE_INT32 &&
        !f->is_repeated()) {
      // As the difference from the step before in the chunk (1 but after a
      // step that hid some).
      const int64_t v = r->GetInt32(step, f);
      absl::StrAppend(&out, steps_ > 0 ? v - last_step_ : v);
      last_step_ = v;
      continue;
    }
    if (!f->is_repeated()) {
      // (null: a type no step has today.)
      out.append(AppendValue(step, r, f, -1, &value) ? value : "null");
      continue;
    }
    const int n = r->FieldSize(step, f);
    const bool message = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (message && f->name() == "views" && prev != nullptr &&
        prev->GetReflection()->FieldSize(*prev, f) == n && AppendViewDeltas(step, *prev, f, &value)) {
      out.append(value);
      delta = true;
      continue;
    }
    value = "[";
    bool ok = true;
    for (int k = 0; k < n && ok; ++k) {
      if (k > 0) value.push_back(',');
      if (message && f->name() == "events") {
        const size_t size = value.size();
        if (!AppendPageEvent(r->GetRepeatedMessage(step, f, k), &value)) {
          value.resize(size);
          AppendReplayJson(r->GetRepeatedMessage(step, f, k), &value);
        }
      } else if (message && f->name() == "actions") {
        AppendPageAction(r->GetRepeatedMessage(step, f, k), &value);
      } else if (message) {
        AppendReplayJson(r->GetRepeatedMessage(step, f, k), &value);  // whole views too
      } else {
        ok = AppendValue(step, r, f, k, &value);
      }
    }
    value.push_back(']');
    out.append(ok ? value : "null");  // null: a type no step has today
  }
  if (steps_ > 0) delta_.push_back(',');
  delta_.push_back(delta ? '1' : '0');
  ++steps_;
}

std::string PageStepColumns::TakeJson() {
  std::string out = "{";
  for (auto& [name, values] : columns_) {
    absl::StrAppend(&out, out.size() > 1 ? "," : "", "\"", name, "\":[", values, "]");
    values.clear();
  }
  absl::StrAppend(&out, out.size() > 1 ? "," : "", "\"delta\":[", delta_, "]}");
  delta_.clear();
  steps_ = 0;
  last_step_ = 0;
  return out;
}

bool AppendReplayJsonFast(const Message& m, std::string* out) {
  const size_t size = out->size();
  if (AppendMessage(m, out)) return true;
  out->resize(size);
  return false;
}

void AppendReplayJson(const Message& m, std::string* out) {
  if (AppendReplayJsonFast(m, out)) return;
  google::protobuf::util::JsonPrintOptions po;
  po.always_print_primitive_fields = true;
  po.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(m, &json, po);
  out->append(json);
}

}  // namespace arena
