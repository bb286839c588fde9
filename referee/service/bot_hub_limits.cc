// BotHub's budgets (referee/service/bot_hub.h): the log lines a client may
// cause, the invalid messages a bot may send before it is cut off, and the
// counts of cut-offs, unauthenticated and evicted streams.
#include "referee/clock/mono_clock.h"
#include "referee/service/bot_hub.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/service/bot_connection.h"
#include "spdlog/spdlog.h"

namespace arena {

void BotHub::Warn(const std::string& who, const std::string& text) {
  Log(who, spdlog::level::warn, text);
}

void BotHub::Log(const std::string& who, spdlog::level::level_enum level,
                 const std::string& text) {
  // A line that would not be written counts against no budget.
  if (!spdlog::default_logger_raw()->should_log(level)) return;
  int suppressed = 0;
  bool log = false;
  {
    absl::MutexLock lock(&mu_);
    LogBudget& b = budgets_[who];
    const absl::Time now = MonoNow();
    if (now - b.window >= absl::Seconds(10)) {
      suppressed = b.suppressed;
      b.window = now;
      b.lines = 0;
      b.suppressed = 0;
    }
    if (b.lines < options_.log_lines_per_10s) {
      ++b.lines;
      log = true;
    } else {
      ++b.suppressed;
    }
  }
  if (suppressed > 0) {
    spdlog::warn("{}: {} more log lines suppressed", who, suppressed);
  }
  if (log) spdlog::log(level, "{}", text);
}

bool BotHub::NoteInvalid(const std::string& bot) {
  absl::MutexLock lock(&mu_);
  LogBudget& b = budgets_[absl::StrCat("bot ", bot)];
  const absl::Time now = MonoNow();
  if (now - b.invalid_window >= absl::Seconds(1)) {
    b.invalid_window = now;
    b.invalid = 0;
  }
  return ++b.invalid <= options_.invalid_per_second;
}

void BotHub::MarkCutOff(BotConnection* conn, const std::string& reason) {
  {
    absl::MutexLock lock(&mu_);
    if (!conn->hub_record().cut_reason.empty()) return;  // once (a flood may overflow too)
    conn->hub_record().cut_reason = reason;
    ++cut_offs_[conn->bot_name()];
    last_cut_reason_[conn->bot_name()] = reason;
    // Not through Log: the bot's own warnings may have used that budget, and
    // this is the line that says why it lost its matches.
    LogBudget& lb = budgets_[conn->who()];
    const absl::Time now = MonoNow();
    if (now - lb.cut_window >= absl::Seconds(10)) {
      lb.cut_window = now;
      lb.cut_lines = 0;
    }
    if (lb.cut_lines >= kCutOffLinesPer10s) {
      ++lb.cut_unlogged;  // logged with the reason by the reaper
      lb.cut_reason = reason;
      return;
    }
    ++lb.cut_lines;
  }
  spdlog::error("{} ({}) cut off: {}; disconnected, its open decisions fail",
                conn->who(), conn->peer(), reason);
}

int BotHub::CutOffs(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  auto it = cut_offs_.find(bot);
  return it == cut_offs_.end() ? 0 : it->second;
}

std::string BotHub::LastCutOffReason(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  auto it = last_cut_reason_.find(bot);
  return it == last_cut_reason_.end() ? "" : it->second;
}

int BotHub::Unauthenticated() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(unauthenticated_.size());
}

int BotHub::Evicted() const {
  absl::MutexLock lock(&mu_);
  return evicted_;
}

}  // namespace arena
