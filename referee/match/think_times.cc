#include "referee/match/think_times.h"

#include <algorithm>
#include <cmath>

namespace arena {
namespace {

const double kLogWidth = std::log(1.01);

int32_t BucketOf(int64_t us) {
  if (us < 1) return 0;
  return 1 + static_cast<int32_t>(std::floor(std::log(static_cast<double>(us)) / kLogWidth));
}

// The geometric middle of bucket b: within 0.5 % of any time in it.
double MiddleOf(int32_t b) {
  if (b == 0) return 0;
  return std::exp((b - 1 + 0.5) * kLogWidth);
}

}  // namespace

void ThinkTimes::Add(int64_t think_us) {
  if (think_us < 0) think_us = 0;
  ++buckets_[BucketOf(think_us)];
  ++count_;
  max_us_ = std::max(max_us_, think_us);
}

void ThinkTimes::Merge(const ThinkTimes& other) {
  for (const auto& [b, n] : other.buckets_) buckets_[b] += n;
  count_ += other.count_;
  max_us_ = std::max(max_us_, other.max_us_);
  bank_spent_us_ += other.bank_spent_us_;
}

double ThinkTimes::QuantileUs(double q) const {
  if (count_ == 0) return 0;
  const int64_t rank =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(q * static_cast<double>(count_))));
  int64_t seen = 0;
  for (const auto& [b, n] : buckets_) {
    seen += n;
    if (seen >= rank) return std::min(MiddleOf(b), static_cast<double>(max_us_));
  }
  return static_cast<double>(max_us_);
}

}  // namespace arena
