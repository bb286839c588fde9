#include "arena/common/json_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace arena {

absl::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const size_t slash = path.rfind('/');
  const std::string tmp =
      slash == std::string::npos
          ? absl::StrCat(".", path, ".tmp-", ::getpid())
          : absl::StrCat(path.substr(0, slash + 1), ".", path.substr(slash + 1),
                         ".tmp-", ::getpid());
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) {
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

absl::Status WriteJsonFile(const std::string& path,
                           const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  if (auto s = google::protobuf::util::MessageToJsonString(message, &json, o); !s.ok()) {
    return absl::InternalError(s.ToString());
  }
  return WriteFileAtomically(path, json);
}

absl::Status ReadJsonFile(const std::string& path, google::protobuf::Message* message) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  if (!fs::is_regular_file(st)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  std::ifstream in(path);
  if (!in) return absl::UnavailableError(absl::StrCat("cannot open ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  if (auto s = google::protobuf::util::JsonStringToMessage(ss.str(), message); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message().as_string()));
  }
  return absl::OkStatus();
}

}  // namespace arena
