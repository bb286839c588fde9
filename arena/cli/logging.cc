#include "arena/cli/logging.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace arena {

absl::Status SetUpLogging(const std::string& log_file) {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (!log_file.empty()) {
    try {
      sinks.push_back(
          std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file, false));
    } catch (const spdlog::spdlog_ex& e) {
      return absl::UnavailableError(
          absl::StrCat("cannot open the log file ", log_file, ": ", e.what()));
    }
  }
  auto logger = std::make_shared<spdlog::logger>("arena", sinks.begin(), sinks.end());
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  return absl::OkStatus();
}

}  // namespace arena
