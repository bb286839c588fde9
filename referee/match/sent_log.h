// What each seat of one match has been sent of the match's events, for a
// resync after a bot reconnects (referee/service/bot_hub.h): the bot is sent every
// event its seat has seen so far. So that a live match keeps nothing in
// memory per decision, the bytes go to a file beside the match's record
// (`<record>.part.sent` in the records' hidden in-progress folder, mode
// 0600), written a few KiB at a time, and are read back only on a resync.
// The file is created by its first write (when kFlushBytes are buffered,
// or on a Read): a short match keeps its few events in the buffer and
// makes no file. A file that cannot be created fails that Append or Read.
// Reading it back costs a read of the file, not a replay of the match.
//
// No descriptor is held between calls: each write opens the file
// (O_APPEND, O_NOFOLLOW), writes the buffer and closes it, and a Read opens
// it to read. So the number of live matches is not bounded by the process's
// open-file limit; the open and close cost a few microseconds a flush, that
// is per kFlushBytes of events.
//
// Each seat's bytes are serialized View.events entries (as the match queued
// them), so one seat's concatenation parses as a View holding its events.
// The file is a sequence of frames: varint seat, varint length, bytes.
//
// Thread safety: none; the owner serialises calls. The file is removed when
// the log is destroyed.
#ifndef ARENA_REFEREE_MATCH_SENT_LOG_H_
#define ARENA_REFEREE_MATCH_SENT_LOG_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace arena {

class SentLog {
 public:
  // An empty `path` keeps the bytes in memory (in-process matches, tests);
  // otherwise the file at `path` is created when first written.
  static absl::StatusOr<std::unique_ptr<SentLog>> Open(const std::string& path,
                                                       int seats);
  ~SentLog();
  SentLog(const SentLog&) = delete;
  SentLog& operator=(const SentLog&) = delete;

  // Adds `bytes` to what `seat` has been sent.
  absl::Status Append(int seat, absl::string_view bytes);
  // Everything appended for `seat`, in order.
  absl::StatusOr<std::string> Read(int seat);

  // Bytes held in memory now (the unwritten buffer, or everything when kept
  // in memory): bounded by kFlushBytes for a file.
  size_t buffered_bytes() const;
  static constexpr size_t kFlushBytes = 4096;

 private:
  SentLog() = default;
  absl::Status Flush();

  int seats_ = 0;
  bool created_ = false;  // the file exists (made by the first flush)
  size_t file_bytes_ = 0; // bytes written to the file so far
  std::string path_;      // empty: in memory
  std::string buffer_;              // frames not yet written to the file
  std::vector<std::string> memory_; // by seat, when there is no file
};

}  // namespace arena

#endif  // ARENA_REFEREE_MATCH_SENT_LOG_H_
