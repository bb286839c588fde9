#include "referee/service/recent_values.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace arena {
namespace {

TEST(RecentValues, HoldsNothingUntilTheFirstPush) {
  RecentValues<uint64_t, 4> r;
  EXPECT_EQ(r.size(), 0u);
  EXPECT_TRUE(r.ToVector().empty());
  int calls = 0;
  r.ForEach([&](uint64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(RecentValues, KeepsEveryValueUpToNOldestFirst) {
  RecentValues<uint64_t, 4> r;
  r.Push(7);
  r.Push(8);
  r.Push(9);
  EXPECT_EQ(r.ToVector(), (std::vector<uint64_t>{7, 8, 9}));
}

TEST(RecentValues, KeepsTheLatestNOldestFirstWhenMoreArePushed) {
  RecentValues<uint64_t, 3> r;
  for (uint64_t v = 1; v <= 3; ++v) r.Push(v);
  EXPECT_EQ(r.ToVector(), (std::vector<uint64_t>{1, 2, 3}));
  r.Push(4);  // drops 1
  EXPECT_EQ(r.ToVector(), (std::vector<uint64_t>{2, 3, 4}));
  r.Push(5);
  r.Push(6);  // a whole turn: 4, 5, 6
  EXPECT_EQ(r.ToVector(), (std::vector<uint64_t>{4, 5, 6}));
  r.Push(7);
  EXPECT_EQ(r.size(), 3u);
  std::vector<uint64_t> seen;
  r.ForEach([&](uint64_t v) { seen.push_back(v); });
  EXPECT_EQ(seen, (std::vector<uint64_t>{5, 6, 7}));
}

TEST(RecentValues, KeepsOneWhenNIsOne) {
  RecentValues<std::string, 1> r;
  r.Push("a");
  r.Push("b");
  EXPECT_EQ(r.ToVector(), (std::vector<std::string>{"b"}));
}

}  // namespace
}  // namespace arena
