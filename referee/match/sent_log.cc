#include "referee/match/sent_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "referee/records/storage_fault.h"

namespace arena {

absl::StatusOr<std::unique_ptr<SentLog>> SentLog::Open(const std::string& path,
                                                       int seats) {
  std::unique_ptr<SentLog> log(new SentLog());
  log->seats_ = seats;
  if (path.empty()) {
    log->memory_.resize(seats);
    return log;
  }
  // The file is created by the first flush: most matches never send a seat
  // kFlushBytes of events, and then no file is made at all.
  log->path_ = path;
  return log;
}

SentLog::~SentLog() {
  if (created_) ::unlink(path_.c_str());
}

size_t SentLog::buffered_bytes() const {
  if (!path_.empty()) return buffer_.capacity();
  size_t n = 0;
  for (const auto& m : memory_) n += m.capacity();
  return n;
}

absl::Status SentLog::Append(int seat, absl::string_view bytes) {
  if (seat < 0 || seat >= seats_) {
    return absl::InvalidArgumentError(absl::StrCat("no seat ", seat));
  }
  if (bytes.empty()) return absl::OkStatus();
  if (path_.empty()) {
    memory_[seat].append(bytes.data(), bytes.size());
    return absl::OkStatus();
  }
  {
    google::protobuf::io::StringOutputStream raw(&buffer_);
    google::protobuf::io::CodedOutputStream out(&raw);
    out.WriteVarint32(static_cast<uint32_t>(seat));
    out.WriteVarint32(static_cast<uint32_t>(bytes.size()));
    out.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
  }
  if (buffer_.size() >= kFlushBytes) return Flush();
  return absl::OkStatus();
}

namespace {

// Closes a descriptor when it goes out of scope.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

absl::Status SentLog::Flush() {
  if (created_ && buffer_.empty()) return absl::OkStatus();
  // The first flush creates the file (truncating a stale one a crashed run
  // left); later ones append to it. The descriptor lives for this call only.
  const int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
                    (created_ ? 0 : O_CREAT | O_TRUNC);
  ScopedFd fd(::open(path_.c_str(), flags, 0600));
  if (fd.get() < 0) {
    return StorageFaultStatus(absl::StrCat(created_ ? "cannot open " : "cannot create ", path_),
                              errno);
  }
  if (!created_) {
    ::fchmod(fd.get(), 0600);  // whatever the umask
    created_ = true;
  }
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd.get(), buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return StorageFaultStatus(absl::StrCat("cannot write ", path_), n < 0 ? errno : ENOSPC);
    }
    done += static_cast<size_t>(n);
  }
  file_bytes_ += buffer_.size();
  buffer_.clear();
  if (buffer_.capacity() > 2 * kFlushBytes) std::string().swap(buffer_);
  return absl::OkStatus();
}

absl::StatusOr<std::string> SentLog::Read(int seat) {
  if (seat < 0 || seat >= seats_) {
    return absl::InvalidArgumentError(absl::StrCat("no seat ", seat));
  }
  if (path_.empty()) return memory_[seat];
  if (absl::Status s = Flush(); !s.ok()) return s;
  ScopedFd fd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st;
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot read ", path_, ": ", std::strerror(errno)));
  }
  if (st.st_size > (int64_t{1} << 30)) {
    return absl::ResourceExhaustedError(absl::StrCat(path_, " is over 1 GiB"));
  }
  std::string file(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < file.size()) {
    const ssize_t n = ::pread(fd.get(), file.data() + got, file.size() - got,
                              static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot read ", path_, ": ", std::strerror(errno)));
    }
    got += static_cast<size_t>(n);
  }
  if (file.size() != file_bytes_) {
    return absl::DataLossError(absl::StrCat(path_, " holds ", file.size(),
                                            " bytes, ", file_bytes_, " were written"));
  }
  std::string out;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(file.data()), static_cast<int>(file.size()));
  while (in.CurrentPosition() < static_cast<int>(file.size())) {
    uint32_t s = 0, len = 0;
    if (!in.ReadVarint32(&s) || !in.ReadVarint32(&len) ||
        len > file.size() - static_cast<size_t>(in.CurrentPosition())) {
      return absl::DataLossError(absl::StrCat(path_, ": a frame is cut short at byte ",
                                              in.CurrentPosition()));
    }
    if (static_cast<int>(s) == seat) {
      const size_t at = out.size();
      out.resize(at + len);
      in.ReadRaw(out.data() + at, static_cast<int>(len));
    } else {
      in.Skip(static_cast<int>(len));
    }
  }
  return out;
}

}  // namespace arena
