#include "arena/views/replay_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"

namespace arena {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

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

bool AppendMessage(const Message& m, std::string* out);

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

bool AppendMessage(const Message& m, std::string* out) {
  const Descriptor* d = m.GetDescriptor();
  if (d->file()->name().rfind("google/protobuf/", 0) == 0) return false;  // Any, wrappers
  const Reflection* r = m.GetReflection();
  out->push_back('{');
  bool first = true;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_map()) return false;
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

}  // namespace

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
