#include "arena/common/json_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "referee/records/storage_fault.h"

namespace arena {

namespace {

// Read when the program is loaded, before main() narrows the umask (a
// static initializer: single-threaded, so umask's read-by-writing is safe).
const mode_t kStartingUmask = [] {
  const mode_t m = ::umask(077);
  ::umask(m);
  return m;
}();

std::atomic<unsigned> temp_counter{0};

absl::Status WriteFile(const std::string& path, const std::string& text, mode_t mode,
                       bool sync);

}  // namespace

mode_t StartingUmask() { return kStartingUmask; }
mode_t PublicFileMode() { return 0666 & ~kStartingUmask; }
mode_t PublicDirMode() { return 0777 & ~kStartingUmask; }

absl::Status MakePublicDirs(const std::string& dir) {
  if (dir.empty()) return absl::InvalidArgumentError("no folder name");
  std::string partial;
  size_t from = 0;
  while (from <= dir.size()) {
    size_t slash = dir.find('/', from);
    if (slash == std::string::npos) slash = dir.size();
    partial = dir.substr(0, slash);
    from = slash + 1;
    if (partial.empty() || partial.back() == '/' || partial == "." || partial == "..") continue;
    if (::mkdir(partial.c_str(), 0700) == 0) {
      if (::chmod(partial.c_str(), PublicDirMode()) != 0) {
        return absl::UnavailableError(
            absl::StrCat("cannot set the mode of ", partial, ": ", std::strerror(errno)));
      }
    } else if (errno != EEXIST) {
      return StorageFaultStatus(absl::StrCat("cannot create ", partial), errno);
    }
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, " exists and is not a folder"));
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  // Published: the mode the starting umask allows, not the process's 077.
  return WriteFileAtomically(path, text, PublicFileMode());
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& text,
                                 mode_t mode) {
  return WriteFile(path, text, mode, /*sync=*/false);
}

absl::Status WriteFileDurably(const std::string& path, const std::string& text) {
  return WriteFile(path, text, PublicFileMode(), /*sync=*/true);
}

namespace {

absl::Status WriteFile(const std::string& path, const std::string& text, mode_t mode,
                       bool sync) {
  const size_t slash = path.rfind('/');
  const std::string suffix = absl::StrCat(".tmp-", ::getpid(), "-", temp_counter++);
  const std::string tmp =
      slash == std::string::npos
          ? absl::StrCat(".", path, suffix)
          : absl::StrCat(path.substr(0, slash + 1), ".", path.substr(slash + 1), suffix);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return StorageFaultStatus(absl::StrCat("cannot write ", tmp), errno);
  int err = ::fchmod(fd, mode) == 0 ? 0 : errno;
  for (size_t done = 0; err == 0 && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : ENOSPC;
    } else {
      done += static_cast<size_t>(n);
    }
  }
  // On the disk before the rename, so that after a crash of the machine the
  // file is the old version or the new one, never an empty one.
  if (err == 0 && sync && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    std::remove(tmp.c_str());  // the old version stays as it was
    return StorageFaultStatus(absl::StrCat("cannot write ", path), err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    std::remove(tmp.c_str());
    return StorageFaultStatus(absl::StrCat("cannot rename ", tmp, " to ", path), err);
  }
  if (sync) SyncParentDir(path);  // the new name, too
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteJsonFile(const std::string& path,
                           const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  if (auto s = google::protobuf::util::MessageToJsonString(message, &json, o); !s.ok()) {
    return absl::InternalError(s.ToString());
  }
  return WriteFileDurably(path, json);
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
