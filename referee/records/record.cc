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
#include "google/protobuf/wire_format_lite.h"
#include "google/protobuf/util/json_util.h"
#include "absl/strings/match.h"
#include "absl/container/flat_hash_map.h"
#include "absl/base/call_once.h"
#include "openssl/sha.h"
#include "referee/records/json_writer.h"
#include "referee/records/record_dictionaries.h"
#include "referee/records/storage_fault.h"
#include "zstd.h"

namespace arena {

namespace {

std::string ErrnoText() { return std::strerror(errno); }

constexpr size_t kMaxDecompressedBytes = size_t{1} << 30;
// How far a compressed record may expand (see Decompress).
constexpr size_t kMaxExpansion = 1024;
constexpr size_t kAlwaysExpand = size_t{64} << 20;

// The first bytes of a compact record's content (uncompressed): not JSON,
// not a zstd frame.
constexpr char kCompactMagic[] = "\x89" "AREC1\r\n";
constexpr size_t kCompactMagicSize = sizeof(kCompactMagic) - 1;

bool IsZstdFrame(absl::string_view bytes) {
  return bytes.size() >= 4 && static_cast<unsigned char>(bytes[0]) == 0x28 &&
         static_cast<unsigned char>(bytes[1]) == 0xb5 &&
         static_cast<unsigned char>(bytes[2]) == 0x2f &&
         static_cast<unsigned char>(bytes[3]) == 0xfd;
}

// The compiled-in dictionaries, prepared once: for compression, each game's
// last one (a CDict at level 3); for decompression, every one by its id.
class Dictionaries {
 public:
  static const Dictionaries& Get() {
    static const Dictionaries* d = new Dictionaries();  // never destroyed
    return *d;
  }
  const ZSTD_CDict* ForGame(const std::string& game) const {
    auto it = by_game_.find(game);
    return it == by_game_.end() ? nullptr : it->second;
  }
  const ZSTD_DDict* ById(uint32_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : it->second;
  }

 private:
  Dictionaries() {
    for (const RecordDictionary& d : CompiledRecordDictionaries()) {
      const uint32_t id = ZSTD_getDictID_fromDict(d.bytes.data(), d.bytes.size());
      if (id == 0) continue;  // not a zstd dictionary: the test names it
      by_id_[id] = ZSTD_createDDict(d.bytes.data(), d.bytes.size());
      by_game_[d.game] = ZSTD_createCDict(d.bytes.data(), d.bytes.size(), 3);
    }
  }
  absl::flat_hash_map<std::string, ZSTD_CDict*> by_game_;
  absl::flat_hash_map<uint32_t, ZSTD_DDict*> by_id_;
};

// zstd compression contexts, shared: a finishing match takes one (or makes
// one) and gives it back, so there are at most as many as matches finishing
// at once (the threads that finish them), not one per live match.
class ZstdPool {
 public:
  static ZstdPool& Get() {
    static ZstdPool* pool = new ZstdPool();  // never destroyed: no exit order issue
    return *pool;
  }
  ZSTD_CCtx* Take() {
    {
      absl::MutexLock lock(&mu_);
      if (!free_.empty()) {
        ZSTD_CCtx* c = free_.back();
        free_.pop_back();
        return c;
      }
    }
    return ZSTD_createCCtx();
  }
  void Give(ZSTD_CCtx* c) {
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    absl::MutexLock lock(&mu_);
    if (free_.size() < kKeep) {
      free_.push_back(c);
    } else {
      ZSTD_freeCCtx(c);
    }
  }

 private:
  static constexpr size_t kKeep = 8;
  absl::Mutex mu_;
  std::vector<ZSTD_CCtx*> free_ ABSL_GUARDED_BY(mu_);
};

// `content` as one zstd frame with a checksum: with `dict` (level 3), or
// without one (level 3, a 128 KiB window, as --compress always wrote).
absl::StatusOr<std::string> Compress(absl::string_view content, const ZSTD_CDict* dict) {
  ZSTD_CCtx* c = ZstdPool::Get().Take();
  if (c == nullptr) return absl::InternalError("cannot set up zstd compression");
  size_t rc = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  if (!ZSTD_isError(rc)) {
    rc = dict != nullptr ? ZSTD_CCtx_refCDict(c, dict)
                         : ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
  }
  if (!ZSTD_isError(rc) && dict == nullptr) {
    rc = ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 17);
  }
  std::string out;
  if (!ZSTD_isError(rc)) {
    out.resize(ZSTD_compressBound(content.size()));
    rc = ZSTD_compress2(c, out.data(), out.size(), content.data(), content.size());
  }
  ZstdPool::Get().Give(c);
  if (ZSTD_isError(rc)) return absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(rc)));
  out.resize(rc);
  return out;
}

// The hidden folder of a records folder's unfinished records (0700).
absl::Status MakeInProgressDir(const std::string& dir) {
  const std::string hidden = absl::StrCat(dir, "/", kInProgressDir);
  if (::mkdir(hidden.c_str(), 0700) != 0 && errno != EEXIST) {
    return StorageFaultStatus(absl::StrCat("cannot create ", hidden), errno);
  }
  return absl::OkStatus();
}

// Writes `bytes` to a new file at `path` (mode 0600, no link followed), or
// appends them, flushed to the operating system on close. A write that
// fails leaves nothing of itself: a new file is removed (no empty .part
// stays behind on a full disk), an appended one is cut back to its length
// before, so that it still reads as the lines it held.
// `*open_errno`: the errno of a failed open, else 0.
absl::Status WriteNewFile(const std::string& path, absl::string_view bytes, bool append,
                          int* open_errno) {
  const int fd = ::open(path.c_str(),
                        O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC),
                        0600);
  *open_errno = fd < 0 ? errno : 0;
  if (fd < 0) return StorageFaultStatus(absl::StrCat("cannot write record ", path), errno);
  ::fchmod(fd, 0600);  // whatever the umask
  struct stat before;
  const off_t old_size = append && ::fstat(fd, &before) == 0 ? before.st_size : 0;
  auto undo = [&](int err) {
    if (append) {
      if (::ftruncate(fd, old_size) != 0) {}  // best effort: the .part is unfinished anyway
      ::close(fd);
    } else {
      ::close(fd);
      ::unlink(path.c_str());
    }
    return StorageFaultStatus(absl::StrCat("cannot write record ", path), err);
  };
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return undo(n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    if (!append) ::unlink(path.c_str());
    return StorageFaultStatus(absl::StrCat("cannot write record ", path), err);
  }
  return absl::OkStatus();
}

// Reads a regular file whole (a FIFO or device is refused, never waited on;
// over `limit` bytes is refused).
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, size_t limit,
                                            const char* what) {
  // Non-blocking, so that a FIFO named like a record is refused (by the
  // fstat below) instead of waited on; the type is checked on the opened
  // file, so nothing can be swapped in between a check and the open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot open ", what, " ", path, ": ", ErrnoText()));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file; not read"));
  }
  if (st.st_size > static_cast<off_t>(limit)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": larger than 1 GiB; refused"));
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  char more[4096];  // past the size fstat gave: the end, or what it grew by
  for (;;) {
    const bool past = got == bytes.size();
    const ssize_t n = past ? ::read(fd, more, sizeof more)
                           : ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = ErrnoText();
      ::close(fd);
      return absl::UnavailableError(absl::StrCat("cannot read ", what, " ", path, ": ", why));
    }
    if (n == 0) break;
    if (past) bytes.append(more, static_cast<size_t>(n));
    got += static_cast<size_t>(n);
    if (got > limit) {
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrCat(path, ": larger than 1 GiB; refused"));
    }
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

}  // namespace

RecordFormat RecordFormatOf(v1::RecordFormat format, bool compress_records) {
  switch (format) {
    case v1::RECORD_FORMAT_JSONL: return RecordFormat::kJsonl;
    case v1::RECORD_FORMAT_JSONL_ZSTD: return RecordFormat::kJsonlZstd;
    case v1::RECORD_FORMAT_COMPACT: return RecordFormat::kCompact;
    default: return compress_records ? RecordFormat::kJsonlZstd : RecordFormat::kCompact;
  }
}

const char* RecordSuffix(RecordFormat format) {
  switch (format) {
    case RecordFormat::kJsonl: return ".jsonl";
    case RecordFormat::kJsonlZstd: return kCompressedSuffix;
    case RecordFormat::kCompact: break;
  }
  return kCompactSuffix;
}

bool IsRecordFileName(const std::string& name) {
  for (const char* suffix : kRecordSuffixes) {
    if (absl::EndsWith(name, suffix)) return true;
  }
  return false;
}

std::string FindRecordFile(const std::string& dir, const std::string& match_id) {
  for (const char* suffix : kRecordSuffixes) {
    std::string path = absl::StrCat(dir, "/", match_id, suffix);
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0) return path;
  }
  return "";
}

void AppendDeterministic(const google::protobuf::Message& m, std::string* out,
                         bool length_prefixed) {
  google::protobuf::io::StringOutputStream stream(out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  const size_t size = m.ByteSizeLong();  // cached for the write below
  if (length_prefixed) coded.WriteVarint32(static_cast<uint32_t>(size));
  m.SerializeWithCachedSizes(&coded);
}

std::string EncodeCompactLines(const std::vector<v1::RecordLine>& lines) {
  std::string out(kCompactMagic, kCompactMagicSize);
  for (const v1::RecordLine& l : lines) AppendDeterministic(l, &out, /*length_prefixed=*/true);
  return out;
}

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Open(
    const std::string& dir, const std::string& match_id, RecordFormat format) {
  std::unique_ptr<RecordWriter> w(new RecordWriter());
  w->format_ = format;
  if (dir.empty()) return w;
  if (match_id.empty() || match_id.find('/') != std::string::npos || match_id[0] == '.') {
    return absl::InvalidArgumentError(
        absl::StrCat("match id '", match_id, "' cannot name a record file"));
  }
  const char* suffix = RecordSuffix(format);
  w->dir_ = dir;
  w->final_path_ = absl::StrCat(dir, "/", match_id, suffix);
  // The uncompressed lines while the match runs (see the file comment).
  w->part_path_ = absl::StrCat(dir, "/", kInProgressDir, "/", match_id,
                               format == RecordFormat::kJsonlZstd ? ".jsonl" : suffix, ".part");
  if (format == RecordFormat::kCompact) w->buffer_.assign(kCompactMagic, kCompactMagicSize);
  // The hidden folder, for the record's .part and the match's sent log
  // (referee/match/sent_log.h) beside it, whether or not they are needed.
  if (absl::Status s = MakeInProgressDir(dir); !s.ok()) return s;
  return w;
}

RecordWriter::~RecordWriter() {
  if (!finished_ && !final_path_.empty() && (spilled_ || !buffer_.empty())) {
    Spill().IgnoreError();  // the unfinished record stays readable as a .part
  }
}

absl::Status RecordWriter::Spill() {
  if (buffer_.empty()) return absl::OkStatus();
  int open_errno = 0;
  absl::Status s = WriteNewFile(part_path_, buffer_, /*append=*/spilled_, &open_errno);
  if (!spilled_ && open_errno == ENOENT) {
    // The hidden folder went away after Open (made again, once).
    if (absl::Status m = MakeInProgressDir(dir_); !m.ok()) return m;
    s = WriteNewFile(part_path_, buffer_, /*append=*/false, &open_errno);
  }
  if (!s.ok()) return s;
  spilled_ = true;
  buffer_.clear();
  return absl::OkStatus();
}

absl::Status RecordWriter::Encode(const v1::RecordLine& line) {
  if (line.has_header()) game_ = line.header().game();
  if (format_ == RecordFormat::kCompact) {
    AppendDeterministic(line, &buffer_, /*length_prefixed=*/true);
  } else {
    AppendJson(line, &buffer_);
    buffer_.push_back('\n');
  }
  return spill_every_line_ || buffer_.size() >= kSpillBytes ? Spill() : absl::OkStatus();
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
  AppendDeterministic(header, &bytes);
  return Sha256Hex(bytes);
}

std::string RecordLineToJson(const v1::RecordLine& line) {
  std::string out;
  AppendJson(line, &out);  // the JSON mapping, as MessageToJsonString writes it
  return out;
}

absl::Status RecordWriter::Append(const v1::RecordLine& line) {
  if (final_path_.empty()) {
    lines_.push_back(RecordLineToJson(line));
    return absl::OkStatus();
  }
  if (finished_) return absl::FailedPreconditionError("record already finished");
  if (on_finished_) {
    if (line.has_header() || line.has_forfeit() || line.has_result()) {
      summary_lines_.push_back(line);
    } else if (line.has_decision()) {
      v1::RecordLine* faults = nullptr;
      for (const v1::SeatAction& a : line.decision().actions()) {
        if (a.source() != v1::SeatAction::SOURCE_REFEREE_FAULT) continue;
        if (faults == nullptr) {
          faults = &summary_lines_.emplace_back();
          faults->mutable_decision()->set_step(line.decision().step());
        }
        *faults->mutable_decision()->add_actions() = a;
      }
    }
  }
  return Encode(line);
}

absl::Status RecordWriter::AppendAll(const std::vector<v1::RecordLine>& lines) {
  for (const v1::RecordLine& l : lines) {
    if (absl::Status s = Append(l); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status RecordWriter::Finish() {
  if (final_path_.empty() || finished_) return absl::OkStatus();
  // The whole record: in memory, or its .part and what is buffered. (On a
  // failure the buffer stays, for the destructor's .part.)
  std::string read_back;
  absl::string_view content = buffer_;
  if (spilled_) {
    if (absl::Status s = Spill(); !s.ok()) return s;
    if (format_ != RecordFormat::kJsonl) {
      auto read = ReadRegularFile(part_path_, kMaxDecompressedBytes, "record");
      if (!read.ok()) return read.status();
      read_back = std::move(*read);
      content = read_back;
    }
  }
  std::string done_part = part_path_;  // what is renamed to final_path_
  if (format_ != RecordFormat::kJsonl || !spilled_) {
    absl::StatusOr<std::string> compressed;
    if (format_ != RecordFormat::kJsonl) {
      compressed = Compress(content, format_ == RecordFormat::kCompact
                                         ? Dictionaries::Get().ForGame(game_)
                                         : nullptr);
      if (!compressed.ok()) return compressed.status();
      content = *compressed;
    }
    // Written whole beside the spilled .part, if any (which stays if this
    // fails: the match is unfinished).
    done_part = absl::StrCat(dir_, "/", kInProgressDir,
                             final_path_.substr(final_path_.rfind('/')), ".finishing.part");
    int open_errno = 0;
    if (absl::Status s = WriteNewFile(done_part, content, /*append=*/false, &open_errno);
        !s.ok()) {
      std::remove(done_part.c_str());
      return s;
    }
  }
  // Flushed to the operating system (closed), then renamed: a crash of the
  // referee cannot leave a half-written record under its final name. (No
  // fsync: it costs about 8 ms a match here and only guards against the
  // machine itself going down.)
  if (std::rename(done_part.c_str(), final_path_.c_str()) != 0) {
    const int err = errno;
    if (done_part != part_path_) std::remove(done_part.c_str());
    return StorageFaultStatus(absl::StrCat("cannot finish record ", final_path_), err);
  }
  if (spilled_ && done_part != part_path_) std::remove(part_path_.c_str());
  finished_ = true;
  buffer_.clear();
  buffer_.shrink_to_fit();
  if (on_finished_) on_finished_(final_path_, std::move(summary_lines_));
  summary_lines_.clear();
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

namespace {

// A zstd frame's content, with the dictionary its header names.
absl::StatusOr<std::string> Decompress(absl::string_view bytes, const std::string& path) {
  const uint32_t dict_id = ZSTD_getDictID_fromFrame(bytes.data(), bytes.size());
  const ZSTD_DDict* dict = nullptr;
  if (dict_id != 0) {
    dict = Dictionaries::Get().ById(dict_id);
    if (dict == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, ": compressed with record dictionary ", dict_id,
          ", which this build does not have (a record of a game it does not know?)"));
    }
  }
  // One context a thread, kept: verify reads thousands of records.
  struct Ctx {
    ZSTD_DCtx* d = ZSTD_createDCtx();
    ~Ctx() { ZSTD_freeDCtx(d); }
  };
  thread_local Ctx ctx;
  if (ctx.d == nullptr) return absl::InternalError("cannot set up zstd decompression");
  ZSTD_DCtx_reset(ctx.d, ZSTD_reset_session_and_parameters);
  ZSTD_DCtx_refDDict(ctx.d, dict);
  // A record expands at most kMaxExpansion times (its own records: 10 to
  // 15 times), and at least 64 MiB may always be had: a small hostile file
  // cannot make a reader allocate up to the 1 GiB cap.
  const size_t limit = std::min(
      kMaxDecompressedBytes, std::max(kAlwaysExpand, bytes.size() * kMaxExpansion));
  auto too_big = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": decompresses to more than ", limit, " bytes (", kMaxExpansion,
        " times its size, or 64 MiB); refused"));
  };
  std::string text;
  const unsigned long long size = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
  if (size != ZSTD_CONTENTSIZE_UNKNOWN && size != ZSTD_CONTENTSIZE_ERROR) {
    // The size is in the frame (every record arena writes now): one call.
    if (size > limit) return too_big();
    text.resize(static_cast<size_t>(size));
    const size_t n = ZSTD_decompressDCtx(ctx.d, text.data(), text.size(), bytes.data(), bytes.size());
    if (ZSTD_isError(n)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": not a valid zstd record: ", ZSTD_getErrorName(n)));
    }
    if (n != text.size()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": the zstd stream is truncated"));
    }
    return text;
  }
  ZSTD_inBuffer ib{bytes.data(), bytes.size(), 0};
  size_t last = 0;
  size_t chunk = ZSTD_DStreamOutSize();
  for (;;) {
    const size_t at = text.size();
    text.resize(at + chunk);
    ZSTD_outBuffer ob{text.data() + at, chunk, 0};
    last = ZSTD_decompressStream(ctx.d, &ob, &ib);
    text.resize(at + ob.pos);
    if (ZSTD_isError(last)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": not a valid zstd record: ", ZSTD_getErrorName(last)));
    }
    if (text.size() > limit) return too_big();
    if (last == 0) break;  // the frame is whole, its checksum checked
    // All input read and nothing more to give: the frame is cut short.
    if (ib.pos == ib.size && ob.pos == 0) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": the zstd stream is truncated"));
    }
    chunk = ZSTD_DStreamOutSize();
  }
  if (ib.pos != ib.size) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": bytes after the end of its zstd frame"));
  }
  return text;
}

absl::StatusOr<std::vector<v1::RecordLine>> ParseCompact(absl::string_view text,
                                                         const std::string& path,
                                                         bool skip_events) {
  std::vector<v1::RecordLine> out;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(text.data()) + kCompactMagicSize,
      static_cast<int>(text.size() - kCompactMagicSize));
  in.SetTotalBytesLimit(static_cast<int>(kMaxDecompressedBytes));
  for (size_t n = 1; in.CurrentPosition() < static_cast<int>(text.size() - kCompactMagicSize);
       ++n) {
    uint32_t size = 0;
    if (!in.ReadVarint32(&size) ||
        size > text.size() - kCompactMagicSize - static_cast<size_t>(in.CurrentPosition())) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": line ", n, ": cut short (the record is truncated)"));
    }
    if (skip_events && size > 0) {
      // The line's first tag says its kind (a line is one field of the
      // oneof): an event line is stepped over unparsed.
      const void* data = nullptr;
      int avail = 0;
      if (in.GetDirectBufferPointer(&data, &avail) && avail > 0) {
        google::protobuf::io::CodedInputStream peek(static_cast<const uint8_t*>(data),
                                                    std::min(avail, static_cast<int>(size)));
        if (google::protobuf::internal::WireFormatLite::GetTagFieldNumber(peek.ReadTag()) ==
            v1::RecordLine::kEventFieldNumber) {
          in.Skip(static_cast<int>(size));
          continue;
        }
      }
    }
    const google::protobuf::io::CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(size));
    v1::RecordLine& line = out.emplace_back();
    if (!line.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": line ", n, ": not a record line"));
    }
    in.PopLimit(limit);
    if (line.kind_case() == v1::RecordLine::KIND_NOT_SET) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": line ", n, ": record line with no content"));
    }
  }
  return out;
}

}  // namespace

namespace {

// ParseRecordBytes, with `skip_events`: without the record's event lines.
absl::StatusOr<std::vector<v1::RecordLine>> ParseAnyFormat(std::string bytes,
                                                           const std::string& path,
                                                           bool skip_events) {
  if (IsZstdFrame(bytes)) {
    absl::StatusOr<std::string> text = Decompress(bytes, path);
    if (!text.ok()) return text.status();
    bytes = std::move(*text);
  }
  if (absl::StartsWith(bytes, absl::string_view(kCompactMagic, kCompactMagicSize))) {
    return ParseCompact(bytes, path, skip_events);
  }
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    lines.emplace_back(bytes, start, end - start);
    start = end + 1;
  }
  auto parsed = ParseRecordLines(lines, path);
  if (parsed.ok() && skip_events) {
    parsed->erase(std::remove_if(parsed->begin(), parsed->end(),
                                 [](const v1::RecordLine& l) { return l.has_event(); }),
                  parsed->end());
  }
  return parsed;
}

}  // namespace

absl::StatusOr<std::vector<v1::RecordLine>> ParseRecordBytes(std::string bytes,
                                                             const std::string& path) {
  return ParseAnyFormat(std::move(bytes), path, /*skip_events=*/false);
}

absl::StatusOr<std::vector<v1::RecordLine>> ReadRecordFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadRegularFile(path, kMaxDecompressedBytes, "record");
  if (!bytes.ok()) return bytes.status();
  return ParseAnyFormat(std::move(*bytes), path, /*skip_events=*/false);
}

absl::StatusOr<std::vector<v1::RecordLine>> ReadRecordFileWithoutEvents(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadRegularFile(path, kMaxDecompressedBytes, "record");
  if (!bytes.ok()) return bytes.status();
  return ParseAnyFormat(std::move(*bytes), path, /*skip_events=*/true);
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
