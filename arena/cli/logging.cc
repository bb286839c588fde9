#include "arena/cli/logging.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spdlog/sinks/base_sink.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// stderr, through TerminalLines.
class StderrSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  StderrSink() : lines_(::isatty(STDERR_FILENO) == 1) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    const std::string line = lines_.Next(std::string(formatted.data(), formatted.size()));
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  void flush_() override { std::fflush(stderr); }

 private:
  TerminalLines lines_;
};

}  // namespace

std::string TerminalLines::Next(std::string line) {
  constexpr char kMarker[] = "its last output: ";
  const size_t at = line.find(kMarker);
  if (at != std::string::npos) {
    const size_t from = at + sizeof(kMarker) - 1;
    size_t end = line.size();
    while (end > from && (line[end - 1] == '\n' || line[end - 1] == '\r')) --end;
    std::string output = line.substr(from, end - from);
    if (output == last_output_) {
      line.replace(from, end - from, "as above");
    } else {
      last_output_ = std::move(output);
    }
  }
  if (terminal_) line.insert(0, "\r\033[K");
  return line;
}

absl::Status SetUpLogging(const std::string& log_file) {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<StderrSink>());
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
