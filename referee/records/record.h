// Match records: JSON Lines files, one arena.v1.RecordLine per line, written
// with protobuf's JSON mapping and read back with its parser.
//
// RecordWriter writes to "<dir>/.inprogress/<match_id>.jsonl.part" as the
// match runs and renames it to "<dir>/<match_id>.jsonl" only when the match
// has finished, after flushing it to the operating system. A crash of the
// referee therefore leaves every finished match's record whole; an unfinished
// one stays as a .part file in the hidden folder. A compressed record
// (`--compress`) is written plain as the match runs, like any other, and
// compressed in one pass when the match finishes (into
// "<match_id>.jsonl.zst.part", then renamed to "<dir>/<match_id>.jsonl.zst"),
// with a zstd context from a small shared pool: a live match holds no
// compressor, so its memory does not depend on --compress (a zstd context
// at level 3 with a 128 KiB window takes 0.8 to 1.7 MiB). Record files are created
// with mode 0600 and the hidden folder with 0700, so that nobody but the
// organiser reads a match while it runs (docs/security.md).
//
// Thread safety: a RecordWriter belongs to one match; calls must not overlap.
#ifndef ARENA_REFEREE_RECORDS_RECORD_H_
#define ARENA_REFEREE_RECORDS_RECORD_H_

#include <sys/stat.h>

#include <cstdio>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arena/v1/record.pb.h"

namespace arena {

// The hidden folder of in-progress records, inside a records folder.
inline constexpr char kInProgressDir[] = ".inprogress";

// Compressed records end in this (zstd frames; `--compress`).
inline constexpr char kCompressedSuffix[] = ".jsonl.zst";
// A record file of either kind.
bool IsRecordFileName(const std::string& name);

class RecordWriter {
 public:
  // An empty `dir` makes a writer that keeps lines in memory only. With
  // `compress`, the finished record is a zstd frame (level 3, a 128 KiB
  // window) named <match_id>.jsonl.zst.
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Open(
      const std::string& dir, const std::string& match_id,
      bool compress = false);
  ~RecordWriter();

  absl::Status Append(const v1::RecordLine& line);
  // Appends every line, in order, with one write to the file's buffer.
  absl::Status AppendAll(const std::vector<v1::RecordLine>& lines);
  // Flushes (compresses) and renames the file to its final name.
  absl::Status Finish();

  // Every line written so far, when kept in memory (no dir).
  const std::vector<std::string>& lines() const { return lines_; }
  const std::string& final_path() const { return final_path_; }
  // The file being written (in the hidden in-progress folder); empty when
  // the lines are kept in memory.
  const std::string& part_path() const { return part_path_; }

 private:
  RecordWriter() = default;
  absl::Status Compress();  // part_path_ into final_path_, via a .zst.part
  absl::Status WriteText(const std::string& text);  // to file_, whole lines
  FILE* file_ = nullptr;
  bool compress_ = false;
  std::string part_path_;
  std::string final_path_;
  std::vector<std::string> lines_;
};

// The commitment to a match's seed sent in MatchStart (docs/security.md):
//   hex(SHA-256("arena-seed-commitment-v1\n" match_id "\n" seed "\n" salt))
// with the seed in decimal and the salt as given (64 hex digits).
std::string SeedCommitment(const std::string& match_id, uint64_t seed,
                           const std::string& salt);

// Lowercase hex SHA-256 of the header's deterministic binary serialization
// (MatchResult.header_digest).
std::string HeaderDigest(const v1::RecordHeader& header);

// Serialises one line (no trailing newline).
std::string RecordLineToJson(const v1::RecordLine& line);

// Parses a whole record file, plain or zstd-compressed (told by its first
// bytes, whatever its name). Errors name the file and the line. Only a
// regular file is read (a FIFO or device is refused, never waited on); a
// record over 1 GiB, or a compressed one that would expand past it, is
// refused.
absl::StatusOr<std::vector<v1::RecordLine>> ReadRecordFile(
    const std::string& path);

// What kind of file `st` describes, for messages: "a regular file", "a FIFO",
// "a symbolic link", "a directory", "a socket", "a character device", ...
std::string FileKind(const struct stat& st);

// Whether `path` is a regular file, looked at before it is opened (lstat:
// a symbolic link is refused unless `follow_symlink`): OK, or an error that
// says what it is instead ("x.jsonl: a FIFO, not a regular file").
absl::Status CheckRegularFile(const std::string& path, bool follow_symlink);

// The record files of a records folder: the regular files only (by lstat:
// symbolic links are not followed, not even to a regular file, so that
// nothing outside the folder is read and a link loop costs nothing), sorted.
// Anything else named like a record (a FIFO, socket, device, directory,
// symbolic link, or an entry that cannot be looked at) is listed in
// `skipped` with why: "DIR/x.jsonl: a FIFO, not a regular file; skipped".
// `part_only`: the unfinished records (*.part) of a .inprogress folder;
// else the finished ones (IsRecordFileName) and any *.part. A folder that
// does not exist or cannot be read (with part_only: or is a link) gives
// nothing.
struct RecordListing {
  std::vector<std::string> files;
  std::vector<std::string> skipped;
};
RecordListing ListRecordFiles(const std::string& dir, bool part_only = false);

// Parses record lines held in memory.
absl::StatusOr<std::vector<v1::RecordLine>> ParseRecordLines(
    const std::vector<std::string>& lines, const std::string& source_name);

}  // namespace arena

#endif  // ARENA_REFEREE_RECORDS_RECORD_H_
