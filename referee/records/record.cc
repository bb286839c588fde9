#include "referee/records/record.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/base/thread_annotations.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "absl/strings/match.h"
#include "openssl/sha.h"
#include "referee/records/json_writer.h"
#include "zstd.h"

namespace arena {

namespace {

std::string ErrnoText() { return std::strerror(errno); }

constexpr size_t kMaxDecompressedBytes = size_t{1} << 30;

}  // namespace

// zstd compression contexts, shared: a finishing match takes one (or makes
// one) and gives it back, so there are at most as many as matches finishing
// at once (the threads that finish them), not one per live match.
class ZstdPool {
 public:
  struct Context {
    ZSTD_CCtx* cctx = nullptr;
    std::string in, out;  // read and write buffers
    ~Context() { ZSTD_freeCCtx(cctx); }
  };
  static ZstdPool& Get() {
    static ZstdPool* pool = new ZstdPool();  // never destroyed: no exit order issue
    return *pool;
  }
  std::unique_ptr<Context> Take() {
    {
      absl::MutexLock lock(&mu_);
      if (!free_.empty()) {
        std::unique_ptr<Context> c = std::move(free_.back());
        free_.pop_back();
        return c;
      }
    }
    auto c = std::make_unique<Context>();
    c->cctx = ZSTD_createCCtx();
    if (c->cctx == nullptr ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, 3)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_windowLog, 17))) {
      return nullptr;
    }
    c->in.resize(ZSTD_CStreamInSize());
    c->out.resize(ZSTD_CStreamOutSize());
    return c;
  }
  void Give(std::unique_ptr<Context> c) {
    // A context that failed midway is reset before it is used again.
    ZSTD_CCtx_reset(c->cctx, ZSTD_reset_session_only);
    absl::MutexLock lock(&mu_);
    if (free_.size() < kKeep) free_.push_back(std::move(c));
  }

 private:
  static constexpr size_t kKeep = 8;
  absl::Mutex mu_;
  std::vector<std::unique_ptr<Context>> free_ ABSL_GUARDED_BY(mu_);
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
  const char* suffix = compress ? kCompressedSuffix : ".jsonl";
  w->final_path_ = absl::StrCat(dir, "/", match_id, suffix);
  // Plain as the match runs, compressed or not (see the file comment).
  w->part_path_ = absl::StrCat(hidden, "/", match_id, ".jsonl.part");
  w->compress_ = compress;
  auto open_part = [&] {
    return ::open(w->part_path_.c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  };
  // The hidden folder is made by the first record of a folder (not tried
  // again for every match).
  int fd = open_part();
  if (fd < 0 && errno == ENOENT) {
    if (::mkdir(hidden.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::UnavailableError(
          absl::StrCat("cannot create ", hidden, ": ", ErrnoText()));
    }
    fd = open_part();
  }
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

absl::Status RecordWriter::Compress() {
  const std::string zst_part =
      absl::StrCat(final_path_.substr(0, final_path_.rfind('/')), "/", kInProgressDir,
                   final_path_.substr(final_path_.rfind('/')), ".part");
  FILE* in = std::fopen(part_path_.c_str(), "rb");
  if (in == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot read record ", part_path_, ": ", ErrnoText()));
  }
  const int fd = ::open(zst_part.c_str(),
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) ::fchmod(fd, 0600);
  FILE* out = fd >= 0 ? ::fdopen(fd, "w") : nullptr;
  if (out == nullptr) {
    const std::string why = ErrnoText();
    if (fd >= 0) ::close(fd);
    std::fclose(in);
    return absl::UnavailableError(absl::StrCat("cannot write record ", zst_part, ": ", why));
  }
  std::unique_ptr<ZstdPool::Context> z = ZstdPool::Get().Take();
  absl::Status status = z == nullptr ? absl::InternalError("cannot set up zstd compression")
                                     : absl::OkStatus();
  while (status.ok()) {
    const size_t got = std::fread(z->in.data(), 1, z->in.size(), in);
    if (got < z->in.size() && std::ferror(in)) {
      status = absl::UnavailableError(
          absl::StrCat("cannot read record ", part_path_, ": ", ErrnoText()));
      break;
    }
    const bool end = got < z->in.size();
    ZSTD_inBuffer ib{z->in.data(), got, 0};
    size_t left;
    do {
      ZSTD_outBuffer ob{z->out.data(), z->out.size(), 0};
      left = ZSTD_compressStream2(z->cctx, &ob, &ib, end ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(left)) {
        status = absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(left)));
        break;
      }
      if (ob.pos > 0 && std::fwrite(z->out.data(), 1, ob.pos, out) != ob.pos) {
        status = absl::UnavailableError(
            absl::StrCat("cannot write record ", zst_part, ": ", ErrnoText()));
        break;
      }
    } while (end ? left != 0 : ib.pos < ib.size);
    if (end) break;
  }
  if (z != nullptr) ZstdPool::Get().Give(std::move(z));
  std::fclose(in);
  const bool closed = std::fflush(out) == 0 && std::fclose(out) == 0;
  if (status.ok() && !closed) {
    status = absl::UnavailableError(
        absl::StrCat("cannot write record ", zst_part, ": ", ErrnoText()));
  }
  if (status.ok() && std::rename(zst_part.c_str(), final_path_.c_str()) != 0) {
    status = absl::UnavailableError(
        absl::StrCat("cannot finish record ", final_path_, ": ", ErrnoText()));
  }
  if (!status.ok()) {
    std::remove(zst_part.c_str());  // the plain part stays: the match is unfinished
    return status;
  }
  std::remove(part_path_.c_str());
  return absl::OkStatus();
}

absl::Status RecordWriter::Append(const v1::RecordLine& line) {
  std::string json = RecordLineToJson(line);
  if (file_ == nullptr) {
    if (final_path_.empty()) lines_.push_back(std::move(json));
    return absl::OkStatus();
  }
  json.push_back('\n');
  return WriteText(json);
}

absl::Status RecordWriter::AppendAll(const std::vector<v1::RecordLine>& lines) {
  if (file_ == nullptr) {
    for (const v1::RecordLine& l : lines) {
      absl::Status s = Append(l);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  std::string batch;  // not kept: a live match holds no more than FILE's buffer
  for (const v1::RecordLine& l : lines) {
    AppendJson(l, &batch);
    batch.push_back('\n');
  }
  return WriteText(batch);
}

absl::Status RecordWriter::WriteText(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
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
  if (ok && compress_) return Compress();
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
  // Non-blocking, so that a FIFO named like a record is refused (by the
  // fstat below) instead of waited on; the type is checked on the opened
  // file, so nothing can be swapped in between a check and the open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot open record ", path, ": ", ErrnoText()));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": not a regular file; not read"));
  }
  if (st.st_size > static_cast<off_t>(kMaxDecompressedBytes)) {
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": larger than 1 GiB; refused"));
  }
  std::string bytes;
  bytes.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = ErrnoText();
      ::close(fd);
      return absl::UnavailableError(absl::StrCat("cannot read record ", path, ": ", why));
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<size_t>(n));
    if (bytes.size() > kMaxDecompressedBytes) {
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrCat(path, ": larger than 1 GiB; refused"));
    }
  }
  ::close(fd);
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

std::string FileKind(const struct stat& st) {
  switch (st.st_mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symbolic link";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    default: return "not a file of a known kind";
  }
}

absl::Status CheckRegularFile(const std::string& path, bool follow_symlink) {
  struct stat st;
  if ((follow_symlink ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) {
    const int err = errno;
    const std::string what = absl::StrCat(path, ": ", std::strerror(err));
    return err == ENOENT ? absl::NotFoundError(what) : absl::FailedPreconditionError(what);
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": ", FileKind(st), ", not a regular file"));
  }
  return absl::OkStatus();
}

RecordListing ListRecordFiles(const std::string& dir, bool part_only) {
  RecordListing out;
  // The folder itself is followed if it is a link (it was named), but not
  // the .inprogress folder inside it (part_only).
  const int fd = ::open(dir.c_str(),
                        O_RDONLY | O_DIRECTORY | O_CLOEXEC | (part_only ? O_NOFOLLOW : 0));
  DIR* d = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (d == nullptr) {
    if (fd >= 0) ::close(fd);
    return out;
  }
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (!((!part_only && IsRecordFileName(name)) || absl::EndsWith(name, ".part"))) continue;
    const std::string path = absl::StrCat(dir, "/", name);
    // lstat, relative to the open folder: a link is a link, not its target.
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      out.skipped.push_back(absl::StrCat(path, ": cannot be looked at (", std::strerror(errno),
                                         "); skipped"));
    } else if (!S_ISREG(st.st_mode)) {
      out.skipped.push_back(absl::StrCat(path, ": ", FileKind(st), ", not a regular file",
                                         S_ISLNK(st.st_mode)
                                             ? " (links are not followed in a records folder)"
                                             : "",
                                         "; skipped"));
    } else {
      out.files.push_back(path);
    }
  }
  ::closedir(d);
  std::sort(out.files.begin(), out.files.end());
  std::sort(out.skipped.begin(), out.skipped.end());
  return out;
}

}  // namespace arena
