#include "arena/tournament/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "referee/clock/mono_clock.h"

namespace arena {

void PrintProgress(const std::string& game, int64_t done, int64_t total,
                   absl::Duration elapsed, bool terminal, int64_t first) {
  const double secs = absl::ToDoubleSeconds(elapsed);
  const double rate = secs > 0 ? (done - first) / secs : 0.0;
  std::string eta = "?";
  if (rate > 0) {
    const int64_t left = static_cast<int64_t>((total - done) / rate + 0.5);
    eta = absl::StrFormat("%d:%02d:%02d", left / 3600, left / 60 % 60, left % 60);
  }
  const double share = total > 0 ? static_cast<double>(done) / total : 1.0;
  if (terminal) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(share * kWidth);
    std::fprintf(stderr, "\r[%s] [%s%s] %lld/%lld (%.0f%%) %.1f matches/s, %s left%s",
                 game.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(),
                 static_cast<long long>(done), static_cast<long long>(total),
                 100.0 * share, rate, eta.c_str(), done == total ? "\n" : "  ");
  } else {
    std::fprintf(stderr, "[%s] %lld/%lld matches (%.0f%%), %.1f matches/s, %s left\n",
                 game.c_str(), static_cast<long long>(done),
                 static_cast<long long>(total), 100.0 * share, rate, eta.c_str());
  }
  std::fflush(stderr);
}

ProgressLine::ProgressLine(std::string game, int64_t total, bool show)
    : game_(std::move(game)),
      total_(total),
      show_(show),
      terminal_(::isatty(STDERR_FILENO) == 1),
      every_(std::max<int64_t>(1, total / 10)),
      t0_(MonoNow()),
      last_(t0_) {}

void ProgressLine::Resumed(int64_t n) {
  if (n <= 0) return;
  done_ += n;
  first_ += n;
  if (show_) PrintProgress(game_, done_, total_, MonoNow() - t0_, terminal_, first_);
}

void ProgressLine::Booked() {
  ++done_;
  const bool due = done_ >= total_ || (terminal_ ? MonoNow() - last_ > absl::Milliseconds(250)
                                                 : done_ % every_ == 0);
  if (!show_ || !due) return;
  last_ = MonoNow();
  PrintProgress(game_, done_, total_, last_ - t0_, terminal_, first_);
}

}  // namespace arena
