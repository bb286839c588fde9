// The sent log (sent_log.h): what each seat was sent, read back byte for
// byte, its file made lazily, no descriptor held, a cut file refused.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/game_api/rng.h"
#include "referee/match/sent_log.h"

namespace arena {
namespace {

// The sent log: each seat reads back exactly its own bytes, in order, from
// the file (past several flushes) or from memory; the file goes with the log.
TEST(SentLog, EachSeatReadsBackItsOwnBytesInOrder) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/sent-log-test-", ::getpid());
  for (const std::string& where : {path, std::string()}) {
    auto log = SentLog::Open(where, 3);
    ASSERT_TRUE(log.ok()) << log.status();
    std::vector<std::string> want(3);
    Rng rng(11);
    for (int i = 0; i < 2000; ++i) {
      const int seat = static_cast<int>(rng.Uniform(3));
      std::string bytes(1 + rng.Uniform(40), static_cast<char>('a' + i % 26));
      bytes[0] = static_cast<char>(i & 0xff);  // any byte, not only text
      ASSERT_TRUE((*log)->Append(seat, bytes).ok());
      want[seat] += bytes;
      if (!where.empty()) {
        EXPECT_LE((*log)->buffered_bytes(), 2 * SentLog::kFlushBytes + 64);
      }
      if (i % 500 == 499) {
        for (int s = 0; s < 3; ++s) {
          auto got = (*log)->Read(s);
          ASSERT_TRUE(got.ok()) << got.status();
          EXPECT_EQ(*got, want[s]) << "seat " << s << " after " << i;
        }
      }
    }
    EXPECT_FALSE((*log)->Read(3).ok());
    EXPECT_FALSE((*log)->Append(-1, "x").ok());
    if (!where.empty()) {
      EXPECT_TRUE(std::filesystem::exists(where));
    }
    log->reset();
    EXPECT_FALSE(std::filesystem::exists(path));
  }
}

// A short match makes no file: the log's file is created by its first
// write. A path where no file can be made fails that write, naming it.
TEST(SentLog, MakesItsFileOnlyWhenItFirstWrites) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/sent-log-lazy-", ::getpid());
  auto log = SentLog::Open(path, 2);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_TRUE((*log)->Append(1, "abc").ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  std::string big(SentLog::kFlushBytes, 'z');
  ASSERT_TRUE((*log)->Append(0, big).ok());  // the buffer is full: written
  EXPECT_TRUE(std::filesystem::exists(path));
  auto got = (*log)->Read(1);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "abc");
  log->reset();
  EXPECT_FALSE(std::filesystem::exists(path));

  const std::string nowhere = absl::StrCat(path, "-missing-folder/log");
  auto bad = SentLog::Open(nowhere, 1);
  ASSERT_TRUE(bad.ok()) << bad.status();
  ASSERT_TRUE((*bad)->Append(0, "x").ok());  // buffered
  absl::Status s = (*bad)->Append(0, big);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(nowhere));
  EXPECT_FALSE((*bad)->Read(0).ok());
}

// Live logs hold no descriptor: with many logs each past several flushes
// (their files made) and read back, the process has as many descriptors
// open as before them, so live matches are not bounded by the open-file limit.
TEST(SentLog, HoldsNoDescriptorBetweenCalls) {
  auto open_fds = [] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
      (void)e;
      ++n;
    }
    return n;
  };
  const std::string dir =
      absl::StrCat(::testing::TempDir(), "/sent-log-fds-", ::getpid());
  std::filesystem::create_directories(dir);
  const size_t before = open_fds();
  constexpr int kLogs = 256;
  std::vector<std::unique_ptr<SentLog>> logs;
  const std::string chunk(SentLog::kFlushBytes / 3, 'q');
  for (int i = 0; i < kLogs; ++i) {
    auto log = SentLog::Open(absl::StrCat(dir, "/", i, ".sent"), 2);
    ASSERT_TRUE(log.ok()) << log.status();
    logs.push_back(*std::move(log));
  }
  for (int round = 0; round < 10; ++round) {  // about 3 flushes a log
    for (int i = 0; i < kLogs; ++i) {
      ASSERT_TRUE(logs[i]->Append(round % 2, chunk).ok());
    }
  }
  for (int i = 0; i < kLogs; ++i) {
    EXPECT_TRUE(std::filesystem::exists(absl::StrCat(dir, "/", i, ".sent"))) << i;
  }
  EXPECT_EQ(open_fds(), before);
  auto got = logs[7]->Read(1);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 5 * chunk.size());
  EXPECT_EQ(open_fds(), before);
  logs.clear();
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// A log file cut short (a frame's length beyond the end) is an error, not
// a short read passed on to a bot.
TEST(SentLog, AFrameCutShortIsDataLoss) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/sent-log-cut-", ::getpid());
  auto log = SentLog::Open(path, 1);
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(0, std::string(100, 'x')).ok());
  ASSERT_TRUE((*log)->Read(0).ok());  // flushed to the file
  std::filesystem::resize_file(path, 50);
  auto got = (*log)->Read(0);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace arena
