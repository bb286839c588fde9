#include "referee/records/stdio_json.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace arena {
namespace {

// The message as one JSON line with "kind" first.
std::string ToLine(const std::string& kind, const google::protobuf::Message& m) {
  google::protobuf::util::JsonPrintOptions po;
  po.always_print_primitive_fields = true;
  po.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(m, &json, po);
  if (kind == "notice") {
    // The Notice's own "kind" would clash with ours.
    const std::string from = "\"kind\":";
    if (size_t at = json.find(from); at != std::string::npos) {
      json.replace(at, from.size(), "\"notice_kind\":");
    }
  }
  // json is "{...}"; an empty message is "{}".
  return absl::StrCat("{\"kind\":\"", kind, "\"", json.size() > 2 ? "," : "",
                      json.substr(1), "\n");
}

}  // namespace

std::string StdioJsonLine(const v1::RefereeMessage& message) {
  switch (message.kind_case()) {
    case v1::RefereeMessage::kMatchStart:
      return ToLine("match_start", message.match_start());
    case v1::RefereeMessage::kDecisionRequest:
      return ToLine("decision_request", message.decision_request());
    case v1::RefereeMessage::kMatchEnd:
      return ToLine("match_end", message.match_end());
    case v1::RefereeMessage::kNotice:
      return ToLine("notice", message.notice());
    default:
      return "";
  }
}

}  // namespace arena
