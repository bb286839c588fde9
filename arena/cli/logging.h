// Logging for the arena and referee command lines: spdlog to stderr (stdout
// is for results only), each line with its date and time, and optionally a
// copy to a file.
//
// On stderr (TerminalLines): a line that quotes a bot's last output ("its
// last output: ...") the same as the line before it that quoted one says
// "its last output: as above" instead (a crash fails every decision its bot
// had open at once, in every match, each with a line of its own); and on a
// terminal each line first clears the line the cursor is on, so that a log
// line does not run on from the progress bar's (the bar is drawn again at
// its next update). The file copy keeps every line whole.
//
// Thread safety: call SetUpLogging once from main() before starting threads;
// the sinks it installs may be used from any thread. A TerminalLines is not
// thread-safe (its sink holds it under a lock).
#ifndef ARENA_ARENA_CLI_LOGGING_H_
#define ARENA_ARENA_CLI_LOGGING_H_

#include <string>

#include "absl/status/status.h"

namespace arena {

// Sends every log line to stderr and, if `log_file` is not empty, appends
// it to that file too (created with mode 0600). The level is info unless
// the environment's SPDLOG_LEVEL says otherwise (e.g. debug).
absl::Status SetUpLogging(const std::string& log_file);

// The text stderr gets for each formatted log line, in order (see above).
class TerminalLines {
 public:
  explicit TerminalLines(bool terminal) : terminal_(terminal) {}
  std::string Next(std::string line);

 private:
  const bool terminal_;
  std::string last_output_;  // the last output the previous such line quoted
};

}  // namespace arena

#endif  // ARENA_ARENA_CLI_LOGGING_H_
