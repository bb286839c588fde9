// Logging for the arena and referee command lines: spdlog to stderr (stdout
// is for results only), each line with its date and time, and optionally a
// copy to a file.
//
// Thread safety: call once from main() before starting threads.
#ifndef ARENA_ARENA_CLI_LOGGING_H_
#define ARENA_ARENA_CLI_LOGGING_H_

#include <string>

#include "absl/status/status.h"

namespace arena {

// Sends every log line to stderr and, if `log_file` is not empty, appends
// it to that file too (created with mode 0600).
absl::Status SetUpLogging(const std::string& log_file);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_LOGGING_H_
