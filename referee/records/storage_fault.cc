#include "referee/records/storage_fault.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace arena {
namespace {

struct Latch {
  absl::Mutex mu;
  absl::Status first ABSL_GUARDED_BY(mu);
  int count ABSL_GUARDED_BY(mu) = 0;
};

Latch& TheLatch() {
  static Latch* const latch = new Latch;  // never destroyed: used until exit
  return *latch;
}

}  // namespace

bool IsStorageErrno(int err) {
  return err == ENOSPC || err == EDQUOT || err == EIO || err == EROFS || err == EFBIG;
}

absl::Status StorageFaultStatus(const std::string& what, int err) {
  const std::string text = absl::StrCat(what, ": ", std::strerror(err));
  if (!IsStorageErrno(err)) return absl::UnavailableError(text);
  absl::Status s = err == EIO || err == EROFS ? absl::DataLossError(text)
                                              : absl::ResourceExhaustedError(text);
  s.SetPayload(kStoragePayload, absl::Cord(std::strerror(err)));
  NoteStorageFault(s);
  return s;
}

bool IsStorageFault(const absl::Status& status) {
  return status.GetPayload(kStoragePayload).has_value();
}

void NoteStorageFault(const absl::Status& status) {
  if (!IsStorageFault(status)) return;
  Latch& l = TheLatch();
  absl::MutexLock lock(&l.mu);
  if (l.first.ok()) l.first = status;
  ++l.count;
}

absl::Status FirstStorageFault() {
  Latch& l = TheLatch();
  absl::MutexLock lock(&l.mu);
  return l.first;
}

int StorageFaultCount() {
  Latch& l = TheLatch();
  absl::MutexLock lock(&l.mu);
  return l.count;
}

void SyncParentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void ResetStorageFaults() {
  Latch& l = TheLatch();
  absl::MutexLock lock(&l.mu);
  l.first = absl::OkStatus();
  l.count = 0;
}

}  // namespace arena
