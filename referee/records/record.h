// Match records: one file per match, a sequence of arena.v1.RecordLine, in
// one of three formats (docs/records.md), told apart by their first bytes
// whatever the file's name, so every reader takes every format:
//
//   compact (<id>.rec, the default): a magic, then each line as a varint
//     length and the line's deterministic binary protobuf; the whole file
//     one zstd frame (level 3, a checksum) with the game's dictionary
//     (referee/records/record_dictionaries.h; none for a game without one).
//   JSON Lines (<id>.jsonl): protobuf's JSON mapping, one line each.
//   compressed JSON Lines (<id>.jsonl.zst): the same as one zstd frame.
//
// RecordWriter keeps a live match's record in memory (a few KiB: no file,
// no descriptor) and spills it to "<dir>/.inprogress/<id><suffix>.part"
// (open, append, close) each time kSpillBytes have gathered, so that a long
// match holds no more than that. When the match finishes, the record is
// written whole (compressed from memory, or from the .part when it spilled)
// to a .part file in the hidden folder, flushed to the operating system and
// renamed to "<dir>/<id><suffix>": a crash of the referee leaves every
// finished match's record whole, and a renamed record is complete. A writer
// destroyed before Finish (an aborted match) writes what it holds to the
// uncompressed .part (the compact one holds the magic and binary lines
// uncompressed), which every reader takes too. A crash of the referee itself
// loses the unspilled lines of the matches it was playing: those matches
// are unfinished and are played again on resume. Record files are created with
// mode 0600 and the hidden folder with 0700, so that nobody but the
// organiser reads a match while it runs (docs/security.md).
//
// Thread safety: a RecordWriter belongs to one match; calls must not
// overlap. The free functions are safe from any thread.
#ifndef ARENA_REFEREE_RECORDS_RECORD_H_
#define ARENA_REFEREE_RECORDS_RECORD_H_

#include <sys/stat.h>

#include <cstdio>
#include <functional>
#include <memory>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arena/v1/config.pb.h"
#include "arena/v1/record.pb.h"
#include "google/protobuf/message.h"

namespace arena {

// The hidden folder of in-progress records, inside a records folder.
inline constexpr char kInProgressDir[] = ".inprogress";

// How a record is written (arena.v1.RecordFormat, less the unset value).
enum class RecordFormat { kCompact, kJsonl, kJsonlZstd };
// The format a config asks for: record_format, else compress_records.
RecordFormat RecordFormatOf(v1::RecordFormat format, bool compress_records);
// The finished record's suffix of each format: ".rec", ".jsonl", ".jsonl.zst".
const char* RecordSuffix(RecordFormat format);

// Compressed JSON records end in this (`--record_format jsonl.zst`).
inline constexpr char kCompressedSuffix[] = ".jsonl.zst";
// Compact records end in this (the default).
inline constexpr char kCompactSuffix[] = ".rec";
// The suffixes of every format, the default first.
inline constexpr const char* kRecordSuffixes[] = {kCompactSuffix, ".jsonl",
                                                  kCompressedSuffix};
// A record file of any format.
bool IsRecordFileName(const std::string& name);
// The finished record of `match_id` in `dir`, of whichever format is there
// (by lstat: whatever kind of file it is), or "" if there is none.
std::string FindRecordFile(const std::string& dir, const std::string& match_id);

class RecordWriter {
 public:
  // An empty `dir` makes a writer that keeps the lines in memory only, as
  // JSON (lines()). Otherwise nothing is created until the record spills
  // or finishes. Fails only for a match id that cannot name a file.
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Open(
      const std::string& dir, const std::string& match_id,
      RecordFormat format = RecordFormat::kCompact);
  // An unfinished record's lines go to its .part file (see the file comment).
  ~RecordWriter();

  absl::Status Append(const v1::RecordLine& line);
  // Appends every line, in order.
  absl::Status AppendAll(const std::vector<v1::RecordLine>& lines);
  // Writes (compresses) the whole record and renames it to its final name.
  absl::Status Finish();

  // Every line written so far, when kept in memory (no dir).
  const std::vector<std::string>& lines() const { return lines_; }
  const std::string& final_path() const { return final_path_; }
  // The file the record spills to while the match runs (in the hidden
  // in-progress folder), which may not exist yet; empty when the lines are
  // kept in memory.
  const std::string& part_path() const { return part_path_; }
  // Bytes held in memory, not yet in a file.
  size_t buffered_bytes() const { return buffer_.size(); }
  // A live record spills to its .part file each time this much is buffered.
  static constexpr size_t kSpillBytes = 8192;
  // Spills every line as it comes instead (before Append is called), so
  // that a live site (arena/live/live_site.h) can show a match in progress:
  // an open, a write and a close per line.
  void set_spill_every_line(bool on) { spill_every_line_ = on; }
  // Called by Finish() once the record is whole under its final name, with
  // what a match list and standings read of a record: its header, forfeit
  // and result lines, and of its decisions only the referee's faults
  // (SeatActions of SOURCE_REFEREE_FAULT; SummarizeRecord of these lines is
  // that of the whole record). Kept as lines are appended only when set:
  // `arena tournament --serve` hands them to its live site, which then
  // need not read the record back (LiveSite::Offer).
  using FinishedHook =
      std::function<void(const std::string& path, std::vector<v1::RecordLine> lines)>;
  void set_on_finished(FinishedHook hook) { on_finished_ = std::move(hook); }

 private:
  RecordWriter() = default;
  absl::Status Spill();   // buffer_ appended to part_path_
  absl::Status Encode(const v1::RecordLine& line);  // into buffer_
  RecordFormat format_ = RecordFormat::kCompact;
  bool finished_ = false;
  bool spilled_ = false;  // part_path_ holds the record's first bytes
  bool spill_every_line_ = false;
  std::string game_;      // from the header line: the dictionary to use
  std::string dir_;
  std::string part_path_;
  std::string final_path_;
  std::string buffer_;    // encoded lines not yet in part_path_
  std::vector<std::string> lines_;
  FinishedHook on_finished_;
  std::vector<v1::RecordLine> summary_lines_;  // for on_finished_
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

// Parses a whole record file of any format (told by its first bytes,
// whatever its name), finished or an in-progress .part. Errors name the file
// and the line. Only a regular file is read (a FIFO or device is refused,
// never waited on); a record over 1 GiB is refused, and so is a compressed
// one that would expand past 1,024 times its size (but 64 MiB may always be
// had) or 1 GiB: a small hostile file cannot make a reader allocate much;
// so is a compact record compressed with a dictionary this build does not
// have (the error names its id).
absl::StatusOr<std::vector<v1::RecordLine>> ReadRecordFile(
    const std::string& path);

// The same without the record's events (RecordLine::event): its header,
// decision steps, any forfeit and its result, for a reader that summarises
// records (a match list, standings) and never replays them. A compact
// record's event lines are stepped over unparsed, so a damaged event is not
// noticed here (`arena verify` and a replay notice it); other errors as
// ReadRecordFile.
absl::StatusOr<std::vector<v1::RecordLine>> ReadRecordFileWithoutEvents(
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

// Parses a record's bytes, of any format, as read from a file.
absl::StatusOr<std::vector<v1::RecordLine>> ParseRecordBytes(
    std::string bytes, const std::string& source_name);

// Appends `m`'s deterministic binary encoding (maps in key order) to `out`;
// with `length_prefixed`, after its size as a varint: a compact record's line.
void AppendDeterministic(const google::protobuf::Message& m, std::string* out,
                         bool length_prefixed = false);

// The compact encoding of `lines`, uncompressed (the magic and the
// length-prefixed lines): what a compact record compresses, and what its
// dictionary is trained on.
std::string EncodeCompactLines(const std::vector<v1::RecordLine>& lines);

}  // namespace arena

#endif  // ARENA_REFEREE_RECORDS_RECORD_H_
