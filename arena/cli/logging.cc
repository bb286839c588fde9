#include "arena/cli/logging.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/records/storage_fault.h"
#include "spdlog/cfg/env.h"
#include "spdlog/sinks/base_sink.h"
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

// The log file: each line appended with one write(2), so that a line that
// cannot be written (a full disk) is seen at once, not when a buffer is
// flushed. A storage fault is latched (referee/records/storage_fault.h: the
// tournament then stops starting matches) and said once on stderr; the
// file gets no further line (stderr still does), so that it never holds
// half a line after the one it could not take.
class LogFileSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  LogFileSink(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LogFileSink() override { ::close(fd_); }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (failed_) return;
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    struct stat st;
    const off_t before = ::fstat(fd_, &st) == 0 ? st.st_size : -1;
    size_t done = 0;
    while (done < formatted.size()) {
      const ssize_t n = ::write(fd_, formatted.data() + done, formatted.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        if (before >= 0 && ::ftruncate(fd_, before) != 0) {}  // best effort
        const absl::Status s = StorageFaultStatus(
            absl::StrCat("cannot write the log file ", path_), n < 0 ? errno : ENOSPC);
        const std::string line = absl::StrCat(s.message(),
                                              "; the log goes on on stderr only\n");
        std::fwrite(line.data(), 1, line.size(), stderr);
        return;
      }
      done += static_cast<size_t>(n);
    }
  }
  void flush_() override {}

 private:
  const std::string path_;
  const int fd_;
  bool failed_ = false;
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
    const int fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot open the log file ", log_file, ": ", std::strerror(errno)));
    }
    sinks.push_back(std::make_shared<LogFileSink>(log_file, fd));
  }
  auto logger = std::make_shared<spdlog::logger>("arena", sinks.begin(), sinks.end());
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  // SPDLOG_LEVEL=debug (spdlog's own variable) shows the lines arena keeps
  // at debug: each process start and stop, handovers, resyncs.
  spdlog::cfg::load_env_levels();
  return absl::OkStatus();
}

}  // namespace arena
