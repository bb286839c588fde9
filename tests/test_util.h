// Helpers shared by the tests: in-process matches, message inspection,
// folders of a test's own that go when the test is done, and reading a file.
#ifndef ARENA_TESTS_TEST_UTIL_H_
#define ARENA_TESTS_TEST_UTIL_H_

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "google/protobuf/message.h"
#include "referee/match/local_link.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"
#include "referee/games/registry.h"
#include "referee/game_api/rng.h"
#include "zlib.h"

namespace arena::testing {

// The file at `path` as it is, bytes and all; "" if it cannot be read (the
// test then fails on what it expected to find in it). The tests' one reader
// of a whole file.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A TCP connection to 127.0.0.1:`port` (close-on-exec); with `receive_buffer`
// > 0, a receive buffer that small (the kernel's least is about 2 KB), so
// that what its client has not read cannot all wait in the kernel. -1 if
// it cannot connect.
inline int ConnectLoopback(int port, int receive_buffer = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (receive_buffer > 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads what comes on `fd` within `timeout` (until the peer closes, or
// `until` appears).
inline std::string ReadFor(int fd, absl::Duration timeout, const std::string& until = "") {
  std::string out;
  const absl::Time end = absl::Now() + timeout;
  char buf[65536];
  while (absl::Now() < end) {
    pollfd p{fd, POLLIN, 0};
    const int ms = static_cast<int>(absl::ToInt64Milliseconds(end - absl::Now()));
    if (::poll(&p, 1, std::max(ms, 1)) <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, n);
    if (!until.empty() && out.find(until) != std::string::npos) break;
  }
  return out;
}

// One HTTP request to 127.0.0.1:`port` (the raw text after "GET "), and its
// whole answer, head and body ("no connection" if none).
inline std::string Get(int port, const std::string& target,
                       const std::string& extra_headers = "") {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "no connection";
  const std::string req = absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: x\r\n", extra_headers,
                                       "Connection: close\r\n\r\n");
  (void)!::write(fd, req.data(), req.size());
  std::string out = ReadFor(fd, absl::Seconds(20));
  ::close(fd);
  return out;
}

// The text behind a replay chunk's data: base64 of gzip (arena/views/html.h).
inline std::string GunzipBase64(const std::string& base64) {
  std::string gz, out;
  EXPECT_TRUE(absl::Base64Unescape(base64, &gz));
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(gz.data());
  z.avail_in = static_cast<uInt>(gz.size());
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  }
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END);
  return out;
}

// The step numbers of a replay chunk's columns (the JSON GunzipBase64
// gives): its "step" column, which comes first, holds the first number and
// then each the difference from the one before (arena/views/replay_json.h).
inline std::vector<int> ChunkStepNumbers(const std::string& json) {
  std::vector<int> out;
  const std::string key = "{\"step\":[";
  EXPECT_EQ(json.rfind(key, 0), 0u) << json.substr(0, 40);
  if (json.rfind(key, 0) != 0) return out;
  const std::string column = json.substr(key.size(), json.find(']') - key.size());
  std::stringstream in(column);
  std::string n;
  while (std::getline(in, n, ',')) {
    out.push_back((out.empty() ? 0 : out.back()) + std::atoi(n.c_str()));
  }
  return out;
}

// Removes a test's folder with everything in it, unless ARENA_KEEP_TEST_DIRS
// is set (to look at a failing test's files): then says so in one line.
inline void RemoveTestDir(const std::string& path) {
  if (path.empty()) return;
  const char* keep = std::getenv("ARENA_KEEP_TEST_DIRS");
  if (keep != nullptr && keep[0] != '\0') {
    std::fprintf(stderr, "ARENA_KEEP_TEST_DIRS is set: kept %s\n", path.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) std::fprintf(stderr, "cannot remove %s: %s\n", path.c_str(), ec.message().c_str());
}

// Removes `path` (as RemoveTestDir) when this test process exits: for a
// folder whose path is all its caller keeps. A forked child that exits
// removes nothing.
inline void RemoveAtExit(const std::string& path) {
  struct Registry {
    const pid_t owner = ::getpid();
    std::vector<std::string> paths;
    ~Registry() {
      if (::getpid() != owner) return;
      for (const auto& p : paths) RemoveTestDir(p);
    }
  };
  static Registry registry;
  registry.paths.push_back(path);
}

// A folder of a test's own, empty when made, removed with everything in it
// when the object goes (see RemoveTestDir: ARENA_KEEP_TEST_DIRS keeps it).
// Hold it for as long as the folder is used:
//   const testing::TestDir tmp = FreshTempDir("name");
//   const std::string& dir = tmp.path();
class TestDir {
 public:
  TestDir() = default;  // no folder
  explicit TestDir(std::string path) : path_(std::move(path)) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    std::filesystem::create_directories(path_, ec);
    EXPECT_FALSE(ec) << "cannot make " << path_ << ": " << ec.message();
  }
  TestDir(TestDir&& o) noexcept : owner_(o.owner_), path_(std::move(o.path_)) {
    o.path_.clear();
  }
  TestDir& operator=(TestDir&& o) noexcept {
    if (this != &o) {
      Release();
      owner_ = o.owner_;
      path_ = std::move(o.path_);
      o.path_.clear();
    }
    return *this;
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
  ~TestDir() { Release(); }

  const std::string& path() const { return path_; }

  // `const std::string dir = FreshTempDir(...)`, which keeps only the path:
  // the folder is then removed when the test process exits.
  operator std::string() && {
    RemoveAtExit(path_);
    return std::exchange(path_, std::string());
  }

 private:
  void Release() {
    if (::getpid() == owner_) RemoveTestDir(path_);
    path_.clear();
  }

  pid_t owner_ = ::getpid();
  std::string path_;
};

// An empty folder of the test's own in the system temp folder
// (::testing::TempDir(): $TEST_TMPDIR, $TMPDIR or /tmp), unique to this
// process, removed when the returned object goes.
inline TestDir FreshTempDir(const std::string& name) {
  std::string tmp = ::testing::TempDir();
  while (tmp.size() > 1 && tmp.back() == '/') tmp.pop_back();
  return TestDir(absl::StrCat(tmp, "/e2e-", name, "-", ::getpid()));
}

// A policy that picks uniformly at random, reproducibly.
inline LocalSeatLink::Policy RandomPolicy(uint64_t seed) {
  auto rng = std::make_shared<Rng>(seed);
  return [rng](int, const v1::MatchStart&, const v1::DecisionRequest& r) {
    return static_cast<int>(rng->Uniform(r.legal_actions_size()));
  };
}

struct LocalMatch {
  MatchOutcome outcome;
  std::vector<std::string> record_lines;
};

// Plays one match in process, keeping the record in memory; `noter` gives
// the bots' notes (LocalSeatLink::Noter).
//
// `tap` sees every message the seats were sent, in order, and `*writer_out`
// the record as it stood when that message was sent (valid only inside the
// taps: *writer_out is null once PlayLocal returns). A match writes a
// step's record lines just after it has sent the step's requests
// (referee/match/match_runner.cc), so the taps run once the match is over, each
// against a copy of the record cut where its message was sent: a MatchStart
// after the header; a DecisionRequest of step s before the first decision
// line of step s or later (or the forfeit or result line), which is what the
// record held when the match asked it, whenever the lines were written; a
// MatchEnd after the whole record.
inline LocalMatch PlayLocal(const Game& game, MatchSpec spec,
                            LocalSeatLink::Policy policy,
                            LocalSeatLink::Tap tap = nullptr,
                            RecordWriter** writer_out = nullptr,
                            LocalSeatLink::Noter noter = nullptr) {
  if (spec.seat_bots.empty()) {
    for (int s = 0; s < game.num_seats(); ++s) {
      spec.seat_bots.push_back("bot" + std::to_string(s));
    }
  }
  if (spec.match_id.empty()) spec.match_id = "local";
  auto writer = RecordWriter::Open("", spec.match_id);
  if (writer_out) *writer_out = writer->get();
  std::vector<std::pair<int, std::unique_ptr<google::protobuf::Message>>> sent;
  LocalSeatLink::Tap keep = nullptr;
  if (tap) {
    keep = [&sent](int seat, const google::protobuf::Message& m) {
      std::unique_ptr<google::protobuf::Message> copy(m.New());
      copy->CopyFrom(m);
      sent.emplace_back(seat, std::move(copy));
    };
  }
  LocalSeatLink link(std::move(policy), std::move(keep), std::move(noter));
  LocalMatch m;
  m.outcome = RunMatch(game, spec, link, **writer);
  m.record_lines = (*writer)->lines();
  if (!tap) {
    if (writer_out) *writer_out = nullptr;  // the writer ends with this call
    return m;
  }
  auto parsed = ParseRecordLines(m.record_lines, "record");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return m;
  auto shown_writer = RecordWriter::Open("", spec.match_id);
  EXPECT_TRUE(shown_writer.ok()) << shown_writer.status();
  if (!shown_writer.ok()) return m;
  RecordWriter* shown = shown_writer->get();
  if (writer_out) *writer_out = shown;
  size_t cut = 0;  // lines shown so far
  for (auto& [seat, message] : sent) {
    size_t end = parsed->size();
    if (dynamic_cast<const v1::MatchStart*>(message.get()) != nullptr) {
      end = 1;
    } else if (const auto* r = dynamic_cast<const v1::DecisionRequest*>(message.get())) {
      end = cut;
      while (end < parsed->size()) {
        const v1::RecordLine& l = (*parsed)[end];
        if ((l.has_decision() && l.decision().step() >= r->step()) || l.has_forfeit() ||
            l.has_result()) {
          break;
        }
        ++end;
      }
    }
    for (; cut < end; ++cut) EXPECT_TRUE(shown->Append((*parsed)[cut]).ok());
    tap(seat, *message);
  }
  if (writer_out) *writer_out = nullptr;  // both writers end with this call
  return m;
}

// Every int32 value of a field whose name is one of `names`, anywhere in `m`.
// Singular fields count even when they hold 0 (proto3 does not mark them
// set), so a card whose id is 0 is checked too; fields with explicit
// presence (`optional`) count only when set.
inline void CollectInts(const google::protobuf::Message& m,
                        const std::set<std::string>& names,
                        std::vector<int>* out) {
  using google::protobuf::FieldDescriptor;
  const auto* refl = m.GetReflection();
  const auto* desc = m.GetDescriptor();
  for (int i = 0; i < desc->field_count(); ++i) {
    const FieldDescriptor* f = desc->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int k = 0; k < refl->FieldSize(m, f); ++k) {
          CollectInts(refl->GetRepeatedMessage(m, f, k), names, out);
        }
      } else if (refl->HasField(m, f)) {
        CollectInts(refl->GetMessage(m, f), names, out);
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT32 &&
               names.count(f->name())) {
      if (f->is_repeated()) {
        for (int k = 0; k < refl->FieldSize(m, f); ++k) {
          out->push_back(refl->GetRepeatedInt32(m, f, k));
        }
      } else if (!f->has_presence() || refl->HasField(m, f)) {
        out->push_back(refl->GetInt32(m, f));
      }
    }
  }
}

// Parses record lines that must parse (a failure is reported to the test).
inline std::vector<v1::RecordLine> ParseOrFail(
    const std::vector<std::string>& lines) {
  auto parsed = ParseRecordLines(lines, "test");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : std::vector<v1::RecordLine>{};
}

// Two records of the same match (same spec and actions) are the same line for
// line, but for the wall clock: the header's started_at, and the result's
// header_digest, which covers it. Reports every other difference.
inline void ExpectSameRecordButWallClock(const std::vector<std::string>& a,
                                         const std::vector<std::string>& b) {
  ASSERT_EQ(a.size(), b.size());
  auto pa = ParseOrFail(a), pb = ParseOrFail(b);
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    for (auto* l : {&pa[i], &pb[i]}) {
      if (l->has_header()) l->mutable_header()->clear_started_at();
      if (l->has_result()) l->mutable_result()->clear_header_digest();
    }
    EXPECT_EQ(pa[i].SerializeAsString(), pb[i].SerializeAsString())
        << "line " << i + 1;
    if (i > 0 && i + 1 < a.size()) {
      EXPECT_EQ(a[i], b[i]) << "line " << i + 1;
    }
  }
}

// Follows a match's record while it is being written: each call hands the
// events recorded since the previous call to `learn` (the no-leak tests use
// it to know, at every message, what each seat may know by then).
class RecordFollower {
 public:
  void CatchUp(const std::vector<std::string>& lines,
               const std::function<void(const v1::RecordedEvent&)>& learn) {
    std::vector<std::string> fresh(lines.begin() + seen_, lines.end());
    seen_ = lines.size();
    auto parsed = ParseRecordLines(fresh, "record");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    for (const auto& l : *parsed) {
      if (l.has_event()) learn(l.event());
    }
  }

 private:
  size_t seen_ = 0;
};

}  // namespace arena::testing

#endif  // ARENA_TESTS_TEST_UTIL_H_
