#include "arena/tournament/secret.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "openssl/crypto.h"
#include "openssl/evp.h"
#include "openssl/hmac.h"
#include "openssl/rand.h"
#include "openssl/sha.h"
#include "referee/records/storage_fault.h"

namespace arena {
namespace {

std::string Hex(const unsigned char* data, size_t n) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(data), n));
}

bool IsHex(absl::string_view s) {
  for (char c : s) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> RandomHex(size_t n) {
  std::vector<unsigned char> bytes(n);
  if (RAND_bytes(bytes.data(), static_cast<int>(n)) != 1) {
    return absl::UnavailableError(
        "the operating system's random number generator failed");
  }
  std::string out = Hex(bytes.data(), n);
  OPENSSL_cleanse(bytes.data(), n);
  return out;
}

absl::StatusOr<TournamentSecret> TournamentSecret::Generate() {
  TournamentSecret s;
  if (RAND_bytes(s.key_.data(), static_cast<int>(kBytes)) != 1) {
    return absl::UnavailableError(
        "cannot draw a tournament secret: the operating system's random "
        "number generator failed");
  }
  return s;
}

TournamentSecret TournamentSecret::FromPublicSeed(uint64_t seed) {
  TournamentSecret s;
  const std::string text = absl::StrCat("arena-public-seed-v1:", seed);
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(),
         s.key_.data());
  s.predictable_ = true;
  return s;
}

absl::StatusOr<TournamentSecret> TournamentSecret::ReadFile(
    const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot open secret file ", path,
                                            ": ", std::strerror(errno)));
  }
  char buf[2 * kBytes + 3];
  ssize_t n = 0, r;
  while (n < static_cast<ssize_t>(sizeof buf) &&
         (r = ::read(fd, buf + n, sizeof buf - n)) > 0) {
    n += r;
  }
  ::close(fd);
  absl::string_view text(buf, n > 0 ? n : 0);
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (text.size() != 2 * kBytes || !IsHex(text)) {
    OPENSSL_cleanse(buf, sizeof buf);
    return absl::InvalidArgumentError(absl::StrCat(
        "secret file ", path, " must hold exactly ", 2 * kBytes,
        " hex digits (256 bits) and an optional newline; it does not"));
  }
  TournamentSecret s;
  const std::string raw = absl::HexStringToBytes(text);
  std::memcpy(s.key_.data(), raw.data(), kBytes);
  OPENSSL_cleanse(buf, sizeof buf);
  return s;
}

absl::Status TournamentSecret::WriteFile(const std::string& path) const {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot create secret file ", path, ": ", std::strerror(errno)));
  }
  const std::string text = Hex(key_.data(), kBytes) + "\n";
  const ssize_t n = ::write(fd, text.data(), text.size());
  int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : ENOSPC);
  // On the disk before a match is played: without it no match can be
  // resumed or reproduced, so a crash of the machine must not lose it.
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());  // no empty secret file stays (a full disk)
    return StorageFaultStatus(absl::StrCat("cannot write secret file ", path), err);
  }
  SyncParentDir(path);
  return absl::OkStatus();
}

std::string TournamentSecret::Hmac(const std::string& message) const {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(kBytes),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
       out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string TournamentSecret::TournamentId() const {
  const std::string mac = Hmac("arena-tournament-id-v1");
  return absl::BytesToHexString(mac).substr(0, 12);
}

uint64_t TournamentSecret::ScheduleSeed() const {
  const std::string mac = Hmac("arena-schedule-seed-v1");
  uint64_t seed = 0;
  for (int i = 0; i < 8; ++i) seed = (seed << 8) | static_cast<unsigned char>(mac[i]);
  return seed;
}

MatchSecrets TournamentSecret::ForMatch(uint64_t index,
                                        const std::string& match_id) const {
  MatchSecrets m;
  const std::string mac = Hmac(absl::StrCat("arena-match-seed-v1:", index));
  for (int i = 0; i < 8; ++i) {
    m.seed = (m.seed << 8) | static_cast<unsigned char>(mac[i]);
  }
  m.salt = absl::BytesToHexString(Hmac(absl::StrCat("arena-match-salt-v1:", index)));
  m.commitment = SeedCommitment(match_id, m.seed, m.salt);
  return m;
}


}  // namespace arena
