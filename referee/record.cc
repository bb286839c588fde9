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
#include "absl/strings/match.h"
#include "openssl/sha.h"
#include "referee/json_writer.h"
#include "zstd.h"

namespace arena {

namespace {

std::string ErrnoText() { return std::strerror(errno); }

constexpr size_t kMaxDecompressedBytes = size_t{1} << 30;

}  // namespace

struct RecordWriter::ZstdContext {
  ZSTD_CCtx* cctx = nullptr;
  std::string out;
  ~ZstdContext() { ZSTD_freeCCtx(cctx); }
};

bool IsRecordFileName(const std::string& name) {
  return absl::EndsWith(name, ".jsonl") ||
         absl::EndsWith(name, kCompressedSuffix);
}

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Open(
    const std::string& dir, const std::string& match_id, bool compress) {
  std::unique_ptr<RecordWriter> w(new RecordWriter());
  if (dir.empty()) return w;
  const std::string hidden = absl::StrCat(dir, "/", kInProgressDir);
  if (::mkdir(hidden.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", hidden, ": ", ErrnoText()));
  }
  const char* suffix = compress ? kCompressedSuffix : ".jsonl";
  w->final_path_ = absl::StrCat(dir, "/", match_id, suffix);
  w->part_path_ = absl::StrCat(hidden, "/", match_id, suffix, ".part");
  if (compress) {
    w->zstd_ = std::make_unique<ZstdContext>();
    w->zstd_->cctx = ZSTD_createCCtx();
    if (w->zstd_->cctx == nullptr ||
        ZSTD_isError(ZSTD_CCtx_setParameter(w->zstd_->cctx,
                                            ZSTD_c_compressionLevel, 3)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(w->zstd_->cctx, ZSTD_c_windowLog,
                                            17))) {
      return absl::InternalError("cannot set up zstd compression");
    }
  }
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

absl::Status RecordWriter::WriteCompressed(const char* data, size_t size,
                                           bool end) {
  ZSTD_inBuffer in{data, size, 0};
  std::string& out = zstd_->out;
  out.resize(ZSTD_CStreamOutSize());
  for (;;) {
    ZSTD_outBuffer ob{out.data(), out.size(), 0};
    const size_t left = ZSTD_compressStream2(
        zstd_->cctx, &ob, &in, end ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(left)) {
      return absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(left)));
    }
    if (ob.pos > 0 && std::fwrite(out.data(), 1, ob.pos, file_) != ob.pos) {
      return absl::UnavailableError(
          absl::StrCat("cannot write record ", part_path_, ": ", ErrnoText()));
    }
    if (end ? left == 0 : in.pos == in.size) return absl::OkStatus();
  }
}

absl::Status RecordWriter::Append(const v1::RecordLine& line) {
  std::string json = RecordLineToJson(line);
  if (file_ == nullptr) {
    if (final_path_.empty()) lines_.push_back(std::move(json));
    return absl::OkStatus();
  }
  json.push_back('\n');
  if (zstd_ != nullptr) return WriteCompressed(json.data(), json.size(), false);
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
  if (zstd_ != nullptr) {
    if (absl::Status s = WriteCompressed(nullptr, 0, true); !s.ok()) return s;
  }
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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open record ", path, ": ", ErrnoText()));
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  std::string text;
  const bool compressed =
      bytes.size() >= 4 && static_cast<unsigned char>(bytes[0]) == 0x28 &&
      static_cast<unsigned char>(bytes[1]) == 0xb5 &&
      static_cast<unsigned char>(bytes[2]) == 0x2f &&
      static_cast<unsigned char>(bytes[3]) == 0xfd;
  if (compressed) {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    ZSTD_inBuffer ib{bytes.data(), bytes.size(), 0};
    std::string chunk(ZSTD_DStreamOutSize(), '\0');
    size_t last = 0;
    for (;;) {
      ZSTD_outBuffer ob{chunk.data(), chunk.size(), 0};
      last = ZSTD_decompressStream(dctx, &ob, &ib);
      if (ZSTD_isError(last)) {
        ZSTD_freeDCtx(dctx);
        return absl::InvalidArgumentError(absl::StrCat(
            path, ": not a valid zstd record: ", ZSTD_getErrorName(last)));
      }
      text.append(chunk.data(), ob.pos);
      if (text.size() > kMaxDecompressedBytes) {
        ZSTD_freeDCtx(dctx);
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": decompresses to more than 1 GiB; refused"));
      }
      // All input read and the output not full: nothing is left to flush.
      if (ib.pos == ib.size && ob.pos < ob.size) break;
    }
    ZSTD_freeDCtx(dctx);
    if (last != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": the zstd stream is truncated"));
    }
  } else {
    text = std::move(bytes);
  }
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.emplace_back(text, start, end - start);
    start = end + 1;
  }
  return ParseRecordLines(lines, path);
}

}  // namespace arena
