#include "arena/schedule.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace arena {

absl::StatusOr<std::vector<std::vector<int>>> Arrangements(int bots, int seats,
                                                           int64_t limit) {
  if (bots < 1 || seats < 1) {
    return absl::InvalidArgumentError("need at least one bot and one seat");
  }
  const int distinct = std::min(bots, seats);
  std::vector<std::vector<int>> out;
  std::vector<int> t(seats, 0);
  std::vector<int> used(bots, 0);
  // Depth-first over tuples, pruning those that cannot reach `distinct`.
  std::function<absl::Status(int, int)> rec = [&](int pos,
                                                  int ndistinct) -> absl::Status {
    if (pos == seats) {
      if (ndistinct == distinct) {
        if (static_cast<int64_t>(out.size()) >= limit) {
          return absl::InvalidArgumentError(absl::StrCat(
              "more than ", limit, " seat arrangements for ", bots,
              " bots and ", seats, " seats"));
        }
        out.push_back(t);
      }
      return absl::OkStatus();
    }
    for (int b = 0; b < bots; ++b) {
      const bool fresh = used[b] == 0;
      if (bots >= seats && !fresh) continue;  // all distinct
      if (distinct - (ndistinct + fresh) > seats - pos - 1) continue;
      t[pos] = b;
      ++used[b];
      absl::Status s = rec(pos + 1, ndistinct + fresh);
      --used[b];
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  };
  absl::Status s = rec(0, 0);
  if (!s.ok()) return s;
  return out;
}

}  // namespace arena
