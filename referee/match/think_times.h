// How long a bot took to answer, as a distribution that does not grow with
// the number of answers: counts in buckets 1 % wide (a think time of t
// microseconds, t >= 1, falls in bucket 1 + floor(log(t) / log(1.01)); 0 in
// bucket 0), so a quantile read from it is within 1 % of the exact one
// (nearest rank over the same answers), and the largest time is kept
// exactly. Merging is exact: the same answers give the same ThinkTimes in
// any order. About 2,200 buckets cover 1 us to an hour; a bot's times fill
// a few hundred at most, kept sparse.
//
// Thread safety: none (a value type).
#ifndef ARENA_REFEREE_MATCH_THINK_TIMES_H_
#define ARENA_REFEREE_MATCH_THINK_TIMES_H_

#include <cstdint>
#include <map>

namespace arena {

class ThinkTimes {
 public:
  void Add(int64_t think_us);
  void Merge(const ThinkTimes& other);
  // What the answers (and timeouts) spent of their time banks, summed.
  void AddBankSpent(int64_t us) { bank_spent_us_ += us; }
  int64_t bank_spent_us() const { return bank_spent_us_; }

  int64_t count() const { return count_; }
  int64_t max_us() const { return max_us_; }
  // The q-quantile (0 < q <= 1) by nearest rank: the time of the
  // ceil(q * count)-th shortest answer, to within 1 % (the middle of its
  // bucket, at most the largest time seen); 0 without answers.
  double QuantileUs(double q) const;

  bool operator==(const ThinkTimes& o) const {
    return count_ == o.count_ && max_us_ == o.max_us_ && buckets_ == o.buckets_ &&
           bank_spent_us_ == o.bank_spent_us_;
  }

 private:
  std::map<int32_t, int64_t> buckets_;  // bucket -> answers
  int64_t count_ = 0;
  int64_t max_us_ = 0;
  int64_t bank_spent_us_ = 0;
};

}  // namespace arena

#endif  // ARENA_REFEREE_MATCH_THINK_TIMES_H_
