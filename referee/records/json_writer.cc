#include "referee/records/json_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"

namespace arena {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

void AppendString(const std::string& in, std::string* out) {
  out->push_back('"');
  for (const unsigned char c : in) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '<': out->append("\\u003c"); break;  // as protobuf escapes them
      case '>': out->append("\\u003e"); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

// Shortest of %.15g / %.17g that reads back exactly, as protobuf does.
void AppendDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  if (std::strtod(buf, nullptr) != v) {
    std::snprintf(buf, sizeof(buf), "%.17g", v);
  }
  out->append(buf);
}

void AppendValue(const Message& m, const Reflection* r, const FieldDescriptor* f,
                 int index, std::string* out) {
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      absl::StrAppend(out, rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(out, rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      absl::StrAppend(out, "\"",
                      rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f), "\"");
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(out, "\"",
                      rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f), "\"");
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->append((rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true"
                                                                             : "false");
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      AppendDouble(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f), out);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      AppendDouble(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f), out);
      break;
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      AppendString(rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                       : r->GetStringReference(m, f, &scratch),
                   out);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int v = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const auto* ev = f->enum_type()->FindValueByNumber(v);
      if (ev != nullptr) {
        absl::StrAppend(out, "\"", ev->name(), "\"");
      } else {
        absl::StrAppend(out, v);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      AppendJson(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f), out);
      break;
  }
}

void AppendMap(const Message& m, const Reflection* r, const FieldDescriptor* f,
               std::string* out) {
  const FieldDescriptor* kf = f->message_type()->map_key();
  const FieldDescriptor* vf = f->message_type()->map_value();
  out->push_back('{');
  const int n = r->FieldSize(m, f);
  // Entries sorted by key (string keys), so that equal maps print the same
  // bytes whatever their hash order: records stay byte-for-byte reproducible.
  std::vector<std::pair<std::string, int>> order;
  order.reserve(n);
  for (int i = 0; i < n; ++i) {
    const Message& e = r->GetRepeatedMessage(m, f, i);
    order.emplace_back(kf->cpp_type() == FieldDescriptor::CPPTYPE_STRING
                           ? e.GetReflection()->GetString(e, kf)
                           : std::string(),
                       i);
  }
  std::stable_sort(order.begin(), order.end());
  for (int k = 0; k < n; ++k) {
    const Message& e = r->GetRepeatedMessage(m, f, order[k].second);
    const Reflection* er = e.GetReflection();
    if (k > 0) out->push_back(',');
    if (kf->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      AppendString(er->GetString(e, kf), out);
    } else {
      std::string key;
      AppendValue(e, er, kf, -1, &key);
      if (key.empty() || key.front() != '"') key = absl::StrCat("\"", key, "\"");
      out->append(key);
    }
    out->push_back(':');
    AppendValue(e, er, vf, -1, out);
  }
  out->push_back('}');
}

// google.protobuf.Any (the `other` slots of a game outside the bundled
// ones), in its canonical JSON form: {"@type":"<type URL>", then the packed
// message's own fields}. The packed type is looked up in the pool of the
// Any's own descriptor (the compiled-in types: the game that packed it is
// linked into this program).
void AppendAny(const Message& m, std::string* out) {
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  const std::string url = r->GetString(m, d->FindFieldByNumber(1));
  const std::string value = r->GetString(m, d->FindFieldByNumber(2));
  if (url.empty() && value.empty()) {
    out->append("{}");
    return;
  }
  const google::protobuf::Descriptor* inner =
      d->file()->pool()->FindMessageTypeByName(url.substr(url.rfind('/') + 1));
  const Message* prototype =
      inner == nullptr ? nullptr
                       : google::protobuf::MessageFactory::generated_factory()->GetPrototype(inner);
  std::unique_ptr<Message> packed(prototype == nullptr ? nullptr : prototype->New());
  // A well-known type inside (its JSON is not an object of its fields), or
  // a type this program does not know: protobuf's own writer, which writes
  // the one and fails on the other (then only the type is written; reading
  // such a record back needs the type as well).
  if (packed == nullptr || !packed->ParseFromString(value) ||
      inner->file()->name().rfind("google/protobuf/", 0) == 0) {
    google::protobuf::util::JsonPrintOptions o;
    o.preserve_proto_field_names = true;
    std::string json;
    if (google::protobuf::util::MessageToJsonString(m, &json, o).ok()) {
      out->append(json);
    } else {
      out->append("{\"@type\":");
      AppendString(url, out);
      out->push_back('}');
    }
    return;
  }
  std::string fields;
  AppendJson(*packed, &fields);  // "{...}"
  out->append("{\"@type\":");
  AppendString(url, out);
  if (fields.size() > 2) {
    out->push_back(',');
    out->append(fields, 1, std::string::npos);
  } else {
    out->push_back('}');
  }
}

}  // namespace

void AppendJson(const Message& m, std::string* out) {
  if (m.GetDescriptor() == google::protobuf::Any::descriptor()) {
    AppendAny(m, out);
    return;
  }
  const Reflection* r = m.GetReflection();
  thread_local std::vector<const FieldDescriptor*> fields_buffer;
  std::vector<const FieldDescriptor*> fields;
  fields.swap(fields_buffer);  // reuse capacity; nested calls get their own
  fields.clear();
  r->ListFields(m, &fields);  // set fields, in field-number order
  out->push_back('{');
  bool first = true;
  for (const FieldDescriptor* f : fields) {
    if (!first) out->push_back(',');
    first = false;
    out->push_back('"');
    out->append(f->name());
    out->append("\":");
    if (f->is_map()) {
      AppendMap(m, r, f, out);
    } else if (f->is_repeated()) {
      out->push_back('[');
      const int n = r->FieldSize(m, f);
      for (int i = 0; i < n; ++i) {
        if (i > 0) out->push_back(',');
        AppendValue(m, r, f, i, out);
      }
      out->push_back(']');
    } else {
      AppendValue(m, r, f, -1, out);
    }
  }
  out->push_back('}');
  fields.swap(fields_buffer);
}

}  // namespace arena
