// Writes that the disk cannot take (referee/records/storage_fault.h), made
// without root by the file size limit: past RLIMIT_FSIZE, with SIGXFSZ
// ignored, write(2) fails with EFBIG, a storage fault like ENOSPC. A full
// tmpfs under a running tournament is tests/full_disk_test.py.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "arena/cli/logging.h"
#include "arena/common/json_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/records/record.h"
#include "referee/records/storage_fault.h"
#include "spdlog/spdlog.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

// Files of this process may not grow past `bytes` while it lives.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    old_signal_ = ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit r = old_;
    r.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::signal(SIGXFSZ, old_signal_);
  }

 private:
  struct rlimit old_;
  sighandler_t old_signal_;
};

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

v1::RecordLine Header(const std::string& id) {
  v1::RecordLine l;
  l.mutable_header()->set_match_id(id);
  l.mutable_header()->set_game("quasenbo");
  return l;
}

v1::RecordLine Filler(int i) {
  v1::RecordLine l;
  v1::DecisionStep* d = l.mutable_decision();
  d->set_step(i);
  d->add_actions()->set_label(std::string(200, 'a' + i % 26));
  return l;
}

TEST(StorageFault, OnlyTheDevicesErrorsAreStorageFaultsAndTheFirstIsLatched) {
  ResetStorageFaults();
  for (int err : {ENOSPC, EDQUOT, EIO, EROFS, EFBIG}) EXPECT_TRUE(IsStorageErrno(err)) << err;
  for (int err : {EACCES, ENOENT, EEXIST, ELOOP}) EXPECT_FALSE(IsStorageErrno(err)) << err;
  const absl::Status denied = StorageFaultStatus("cannot write x", EACCES);
  EXPECT_FALSE(IsStorageFault(denied));
  EXPECT_TRUE(FirstStorageFault().ok());  // not latched
  const absl::Status full = StorageFaultStatus("cannot write record r.rec", ENOSPC);
  EXPECT_TRUE(IsStorageFault(full));
  EXPECT_EQ(full.message(), "cannot write record r.rec: No space left on device");
  EXPECT_TRUE(IsStorageFault(StorageFaultStatus("cannot write s.json", EIO)));
  EXPECT_EQ(FirstStorageFault().message(), full.message());  // the first one
  EXPECT_EQ(StorageFaultCount(), 2);
  ResetStorageFaults();
  EXPECT_TRUE(FirstStorageFault().ok());
}

// A record that cannot be written leaves nothing of itself: before, the
// writer's destructor created the unfinished .part and could not fill it,
// and a full disk left one empty .part per match played after it.
TEST(StorageFault, ARecordThatCannotBeWrittenLeavesNoEmptyPart) {
  ResetStorageFaults();
  const testing::TestDir tmp = testing::FreshTempDir("full-record");
  {
    auto w = RecordWriter::Open(tmp.path(), "m1");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append(Header("m1")).ok());
    ASSERT_TRUE((*w)->Append(Filler(1)).ok());
    FileSizeLimit limit(0);
    const absl::Status s = (*w)->Finish();
    EXPECT_TRUE(IsStorageFault(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("m1.rec.finishing.part: File too large"));
    w->reset();  // the destructor's .part cannot be written either
  }
  EXPECT_THAT(Files(tmp.path() + "/.inprogress"), ::testing::IsEmpty());
  EXPECT_THAT(Files(tmp.path()), ::testing::ElementsAre(".inprogress"));
  EXPECT_FALSE(FirstStorageFault().ok());
  ResetStorageFaults();
}

// A spilled record whose next slice cannot be appended is cut back to the
// lines it held: it still reads, whole line by whole line.
TEST(StorageFault, AnAppendThatFailsIsCutBackAndThePartStillReads) {
  ResetStorageFaults();
  const testing::TestDir tmp = testing::FreshTempDir("full-append");
  auto w = RecordWriter::Open(tmp.path(), "m2", RecordFormat::kJsonl);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(Header("m2")).ok());
  int i = 0;
  struct stat st;
  while (::stat((*w)->part_path().c_str(), &st) != 0) ASSERT_TRUE((*w)->Append(Filler(++i)).ok());
  const off_t spilled = st.st_size;
  auto before = ReadRecordFile((*w)->part_path());
  ASSERT_TRUE(before.ok()) << before.status();
  {
    // Room for part of the next slice only: a short write, then EFBIG.
    FileSizeLimit limit(static_cast<rlim_t>(spilled) + 100);
    absl::Status s;
    for (int n = 0; n < 200 && s.ok(); ++n) s = (*w)->Append(Filler(++i));
    EXPECT_TRUE(IsStorageFault(s)) << s;
  }
  ASSERT_EQ(::stat((*w)->part_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_size, spilled);
  auto after = ReadRecordFile((*w)->part_path());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->size(), before->size());
  ResetStorageFaults();
}

// The standings (and every summary) are replaced whole or not at all.
TEST(StorageFault, ASummaryThatCannotBeWrittenKeepsItsOldVersion) {
  ResetStorageFaults();
  const testing::TestDir tmp = testing::FreshTempDir("full-summary");
  const std::string path = tmp.path() + "/standings.json";
  ASSERT_TRUE(WriteFileDurably(path, "{\"old\": true}\n").ok());
  {
    FileSizeLimit limit(4);
    const absl::Status s = WriteFileDurably(path, "{\"new\": true, \"longer\": 1}\n");
    EXPECT_TRUE(IsStorageFault(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("cannot write " + path));
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "{\"old\": true}\n");
  EXPECT_THAT(Files(tmp.path()), ::testing::ElementsAre("standings.json"));  // no temp file
  EXPECT_FALSE(FirstStorageFault().ok());
  ResetStorageFaults();
}

// A log file that cannot take a line is a storage fault too (the tournament
// then stops), said once on stderr; the file keeps whole lines only.
TEST(StorageFault, ALogFileThatCannotBeWrittenIsLatched) {
  ResetStorageFaults();
  const testing::TestDir tmp = testing::FreshTempDir("full-log");
  const std::string log = tmp.path() + "/arena.log";
  ASSERT_TRUE(SetUpLogging(log).ok());
  spdlog::info("first line");
  struct stat st;
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  const off_t one_line = st.st_size;
  {
    // (stderr is not captured: gtest would capture it to a file, which
    // the limit would cut short too.)
    FileSizeLimit limit(static_cast<rlim_t>(one_line) + 10);
    spdlog::info("a second line, longer than the ten bytes left");
    spdlog::info("a third line");
  }
  EXPECT_TRUE(IsStorageFault(FirstStorageFault()));
  EXPECT_EQ(FirstStorageFault().message(),
            "cannot write the log file " + log + ": File too large");
  EXPECT_EQ(StorageFaultCount(), 1);  // said once, then the file gets no line
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, one_line);
  ASSERT_TRUE(SetUpLogging("").ok());
  ResetStorageFaults();
}

}  // namespace
}  // namespace arena
