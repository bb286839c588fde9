// RecentValues<T, N>: the latest N values pushed, oldest first. It holds no
// memory until the first push and never more than N values: the match link
// keeps one per seat (the ids of its latest requests) and one for its latest
// timeouts, in every live match, where a std::deque cost 0.5 KiB each even
// when empty (its first block is allocated on construction).
//
// Not thread-safe: the owner guards it.
#ifndef ARENA_REFEREE_SERVICE_RECENT_VALUES_H_
#define ARENA_REFEREE_SERVICE_RECENT_VALUES_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace arena {

template <typename T, size_t N>
class RecentValues {
  static_assert(N > 0, "RecentValues keeps at least one value");

 public:
  // Keeps `value`, dropping the oldest value once N are kept.
  void Push(T value) {
    if (values_.size() < N) {
      values_.push_back(std::move(value));
      return;
    }
    values_[oldest_] = std::move(value);
    oldest_ = (oldest_ + 1) % N;
  }

  size_t size() const { return values_.size(); }

  // Calls f(value) on each kept value, oldest first.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t i = 0; i < values_.size(); ++i) f(values_[(oldest_ + i) % values_.size()]);
  }

  // The kept values, oldest first.
  std::vector<T> ToVector() const {
    std::vector<T> out;
    out.reserve(values_.size());
    ForEach([&out](const T& v) { out.push_back(v); });
    return out;
  }

 private:
  std::vector<T> values_;
  size_t oldest_ = 0;  // where the oldest is, once N are kept (before: 0)
};

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_RECENT_VALUES_H_
