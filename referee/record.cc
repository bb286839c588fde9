#include "referee/record.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "openssl/sha.h"
#include "referee/json_writer.h"

namespace arena {

namespace {

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Open(
    const std::string& dir, const std::string& match_id) {
  std::unique_ptr<RecordWriter> w(new RecordWriter());
  if (dir.empty()) return w;
  const std::string hidden = absl::StrCat(dir, "/", kInProgressDir);
  if (::mkdir(hidden.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", hidden, ": ", ErrnoText()));
  }
  w->final_path_ = absl::StrCat(dir, "/", match_id, ".jsonl");
  w->part_path_ = absl::StrCat(hidden, "/", match_id, ".jsonl.part");
  const int fd = ::open(w->part_path_.c_str(),
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                        0600);
  if (fd >= 0) ::fchmod(fd, 0600);  // whatever the umask
  w->file_ = fd >= 0 ? ::fdopen(fd, "w") : nullptr;
  if (w->file_ == nullptr) {
    const std::string why = ErrnoText();
    if (fd >= 0) ::close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot write record ", w->part_path_, ": ", why));
  }
  return w;
}

RecordWriter::~RecordWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

namespace {

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         digest);
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest), sizeof digest));
}

}  // namespace

std::string SeedCommitment(const std::string& match_id, uint64_t seed,
                           const std::string& salt) {
  return Sha256Hex(absl::StrCat("arena-seed-commitment-v1\n", match_id, "\n",
                                seed, "\n", salt));
}

std::string HeaderDigest(const v1::RecordHeader& header) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    header.SerializeToCodedStream(&coded);
  }
  return Sha256Hex(bytes);
}

std::string RecordLineToJson(const v1::RecordLine& line) {
  std::string out;
  AppendJson(line, &out);  // the JSON mapping, as MessageToJsonString writes it
  return out;
}

absl::Status RecordWriter::Append(const v1::RecordLine& line) {
  std::string json = RecordLineToJson(line);
  if (file_ == nullptr) {
    if (final_path_.empty()) lines_.push_back(std::move(json));
    return absl::OkStatus();
  }
  json.push_back('\n');
  if (std::fwrite(json.data(), 1, json.size(), file_) != json.size()) {
    return absl::UnavailableError(
        absl::StrCat("cannot write record ", part_path_, ": ", ErrnoText()));
  }
  return absl::OkStatus();
}

absl::Status RecordWriter::Finish() {
  if (file_ == nullptr) return absl::OkStatus();
  // Flushed to the operating system, then renamed: a crash of the referee
  // cannot leave a half-written <id>.jsonl. (No fsync: it costs about 8 ms a
  // match here and only guards against the machine itself going down.)
  bool ok = std::fflush(file_) == 0;
  ok = (std::fclose(file_) == 0) && ok;
  file_ = nullptr;
  if (!ok || std::rename(part_path_.c_str(), final_path_.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot finish record ", final_path_, ": ", ErrnoText()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::RecordLine>> ParseRecordLines(
    const std::vector<std::string>& lines, const std::string& source_name) {
  std::vector<v1::RecordLine> out;
  out.reserve(lines.size());
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    v1::RecordLine line;
    auto status =
        google::protobuf::util::JsonStringToMessage(lines[i], &line, opts);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": line ", i + 1,
                       ": not a record line: ", status.ToString()));
    }
    if (line.kind_case() == v1::RecordLine::KIND_NOT_SET) {
      return absl::InvalidArgumentError(absl::StrCat(
          source_name, ": line ", i + 1, ": record line with no content"));
    }
    out.push_back(std::move(line));
  }
  return out;
}

absl::StatusOr<std::vector<v1::RecordLine>> ReadRecordFile(
    const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open record ", path, ": ", ErrnoText()));
  }
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return ParseRecordLines(lines, path);
}

}  // namespace arena
