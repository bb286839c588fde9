// ExactSum and DealGroupComparisons of arena/stats/ratings.h: the exact
// sums and the deal-group store the ratings' bootstrap draws from.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "arena/stats/ratings.h"

namespace arena {

// --- ExactSum ---------------------------------------------------------------

void ExactSum::Add(double x) {
  if (!std::isfinite(x)) {
    special_ += x;
    return;
  }
  size_t i = 0;
  for (size_t k = 0; k < partials_.size(); ++k) {
    double y = partials_[k];
    if (std::abs(x) < std::abs(y)) std::swap(x, y);
    const double hi = x + y;
    const double lo = y - (hi - x);
    if (lo != 0.0) partials_[i++] = lo;
    x = hi;
  }
  partials_.resize(i);
  if (!std::isfinite(x)) {  // the finite terms overflowed
    special_ += x;
    partials_.clear();
    return;
  }
  partials_.push_back(x);
}

double ExactSum::Value() const {
  if (special_ != 0.0 || std::isnan(special_)) return special_;
  // The partials are non-overlapping, in increasing magnitude: add them from
  // the top until the sum is inexact, then correct a half-way rounding.
  size_t n = partials_.size();
  if (n == 0) return 0.0;
  double hi = partials_[--n];
  double lo = 0;
  while (n > 0) {
    const double x = hi;
    const double y = partials_[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0.0) break;
  }
  if (n > 0 && ((lo < 0 && partials_[n - 1] < 0) || (lo > 0 && partials_[n - 1] > 0))) {
    const double y = lo * 2;
    const double x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

// --- DealGroupComparisons ---------------------------------------------------

namespace {

// A group's name: prefixes[prefix()] followed by number() written with
// digits() digits (zero-padded; no digits: the prefix is the whole name).
// Twelve bytes, aligned to four, so that a group's slot in the tree is 28.
struct GroupKey {
  uint32_t prefix_digits;  // prefix << 5 | digits
  uint32_t number_hi, number_lo;
  uint32_t prefix() const { return prefix_digits >> 5; }
  uint32_t digits() const { return prefix_digits & 31; }
  uint64_t number() const { return uint64_t{number_hi} << 32 | number_lo; }
};

// A pair's counts in a group: n comparisons of players i < j, w2 twice the
// number i won (a tie is one). n == 0: the group has no pair (yet). The
// first pair of a group sits beside its key; its kMore bit says that the
// group has further pairs (in the overflow tree).
struct Cell {
  uint32_t i = 0, j = 0;
  uint32_t n = 0, w2 = 0;
};
constexpr uint32_t kMore = 1u << 31;
constexpr uint32_t kMaxDigits = 19;         // a uint64 holds any 19 digits
constexpr uint32_t kMaxPrefixes = 1u << 27;  // prefix ids fit in 27 bits

absl::string_view Digits(const GroupKey& k, char (&buf)[24]) {
  if (k.digits() == 0) return {};
  std::snprintf(buf, sizeof buf, "%0*llu", static_cast<int>(k.digits()),
                static_cast<unsigned long long>(k.number()));
  return absl::string_view(buf, k.digits());
}

// a1 + a2 < b1 + b2, bytes compared as unsigned (std::string's order).
bool ConcatLess(absl::string_view a1, absl::string_view a2, absl::string_view b1,
                absl::string_view b2) {
  const size_t la = a1.size() + a2.size(), lb = b1.size() + b2.size();
  for (size_t k = 0; k < std::min(la, lb); ++k) {
    const unsigned char ca = k < a1.size() ? a1[k] : a2[k - a1.size()];
    const unsigned char cb = k < b1.size() ? b1[k] : b2[k - b1.size()];
    if (ca != cb) return ca < cb;
  }
  return la < lb;
}

}  // namespace

struct DealGroupComparisons::Impl {
  struct Less {
    const Impl* impl;
    bool operator()(const GroupKey& a, const GroupKey& b) const {
      if (a.prefix_digits == b.prefix_digits) return a.number() < b.number();
      char da[24], db[24];
      const absl::string_view sa = Digits(a, da), sb = Digits(b, db);
      if (a.prefix() == b.prefix()) return sa < sb;
      return ConcatLess(impl->prefixes[a.prefix()], sa, impl->prefixes[b.prefix()], sb);
    }
  };
  Impl() : groups(Less{this}), overflow(Less{this}) {}
  // A copy's trees compare through the copy's own prefixes.
  Impl(const Impl& o) : prefixes(o.prefixes), groups(Less{this}), overflow(Less{this}) {
    for (size_t id = 0; id < prefixes.size(); ++id) {
      prefix_ids.emplace(prefixes[id], static_cast<uint32_t>(id));
    }
    groups.insert(o.groups.begin(), o.groups.end());
    overflow.insert(o.overflow.begin(), o.overflow.end());  // equal keys keep their order
  }
  Impl& operator=(const Impl&) = delete;

  // The key of `name`; false if it would need a prefix beyond kMaxPrefixes.
  bool KeyOf(absl::string_view name, GroupKey* key) {
    size_t d = 0;
    while (d < name.size() && d < kMaxDigits &&
           name[name.size() - 1 - d] >= '0' && name[name.size() - 1 - d] <= '9') {
      ++d;
    }
    uint64_t number = 0;
    for (size_t p = name.size() - d; p < name.size(); ++p) {
      number = number * 10 + static_cast<uint64_t>(name[p] - '0');
    }
    const absl::string_view prefix = name.substr(0, name.size() - d);
    uint32_t id;
    auto it = prefix_ids.find(prefix);
    if (it != prefix_ids.end()) {
      id = it->second;
    } else {
      if (prefixes.size() >= kMaxPrefixes) return false;
      prefixes.emplace_back(prefix);
      id = static_cast<uint32_t>(prefixes.size() - 1);
      prefix_ids.emplace(prefixes.back(), id);
    }
    *key = GroupKey{id << 5 | static_cast<uint32_t>(d), static_cast<uint32_t>(number >> 32),
                    static_cast<uint32_t>(number)};
    return true;
  }
  void AddPair(const GroupKey& key, Cell* head, uint32_t i, uint32_t j, uint32_t w2) {
    if (head->n == 0) {
      *head = Cell{i, j, 1, w2};
      return;
    }
    if (head->i == i && head->j == j) {
      ++head->n;
      head->w2 += w2;
      return;
    }
    if (head->n & kMore) {
      auto [from, to] = overflow.equal_range(key);
      for (auto it = from; it != to; ++it) {
        if (it->second.i == i && it->second.j == j) {
          ++it->second.n;
          it->second.w2 += w2;
          return;
        }
      }
    }
    head->n |= kMore;
    overflow.insert({key, Cell{i, j, 1, w2}});
  }

  std::deque<std::string> prefixes;  // stable: prefix_ids views them
  absl::flat_hash_map<absl::string_view, uint32_t> prefix_ids;
  absl::btree_map<GroupKey, Cell, Less> groups;
  absl::btree_multimap<GroupKey, Cell, Less> overflow;  // second and later pairs
};

DealGroupComparisons::DealGroupComparisons() : impl_(std::make_unique<Impl>()) {}
DealGroupComparisons::DealGroupComparisons(const DealGroupComparisons& o)
    : impl_(std::make_unique<Impl>(*o.impl_)),
      comparisons_(o.comparisons_),
      max_seats_(o.max_seats_) {}
DealGroupComparisons& DealGroupComparisons::operator=(const DealGroupComparisons& o) {
  if (this != &o) *this = DealGroupComparisons(o);
  return *this;
}
DealGroupComparisons::DealGroupComparisons(DealGroupComparisons&&) noexcept = default;
DealGroupComparisons& DealGroupComparisons::operator=(DealGroupComparisons&&) noexcept =
    default;
DealGroupComparisons::~DealGroupComparisons() = default;

int64_t DealGroupComparisons::groups() const {
  return static_cast<int64_t>(impl_->groups.size());
}

absl::Status DealGroupComparisons::Add(absl::string_view deal_group,
                                       absl::Span<const int> seat_players,
                                       absl::Span<const int> placements) {
  if (placements.size() != seat_players.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "deal group ", deal_group, ": ", seat_players.size(), " seats but ",
        placements.size(), " placements"));
  }
  int top = players() - 1;
  for (size_t s = 0; s < seat_players.size(); ++s) {
    if (seat_players[s] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("deal group ", deal_group, ": player ", seat_players[s]));
    }
    if (placements[s] < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "deal group ", deal_group, ": placement ", placements[s], " (1 is best)"));
    }
    top = std::max(top, seat_players[s]);
  }
  GroupKey key;
  if (!impl_->KeyOf(deal_group, &key)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "deal group ", deal_group, ": more than ", kMaxPrefixes, " distinct group names"));
  }
  comparisons_.resize(static_cast<size_t>(top) + 1, 0);
  max_seats_ = std::max(max_seats_, static_cast<int>(seat_players.size()));
  for (size_t s = 0; s < seat_players.size(); ++s) {
    for (size_t t = 0; t < seat_players.size(); ++t) {
      if (seat_players[t] != seat_players[s]) ++comparisons_[seat_players[s]];
    }
  }
  Cell& head = impl_->groups.try_emplace(key).first->second;
  for (size_t a = 0; a < seat_players.size(); ++a) {
    for (size_t b = a + 1; b < seat_players.size(); ++b) {
      uint32_t i = static_cast<uint32_t>(seat_players[a]);
      uint32_t j = static_cast<uint32_t>(seat_players[b]);
      if (i == j) continue;
      uint32_t w2 = placements[a] < placements[b] ? 2 : placements[a] == placements[b] ? 1 : 0;
      if (i > j) {
        std::swap(i, j);
        w2 = 2 - w2;
      }
      impl_->AddPair(key, &head, i, j, w2);
    }
  }
  return absl::OkStatus();
}

void DealGroupComparisons::ForEachGroup(
    const std::function<void(absl::Span<const Pair>)>& f) const {
  std::vector<Pair> pairs;
  for (const auto& [key, head] : impl_->groups) {
    pairs.clear();
    auto add = [&](const Cell& c) {
      pairs.push_back({static_cast<int>(c.i), static_cast<int>(c.j),
                       static_cast<double>(c.n & ~kMore), c.w2 / 2.0});
    };
    if (head.n != 0) add(head);
    if (head.n & kMore) {
      auto [from, to] = impl_->overflow.equal_range(key);
      for (auto it = from; it != to; ++it) add(it->second);
    }
    std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
      return a.i != b.i ? a.i < b.i : a.j < b.j;
    });
    f(pairs);
  }
}

}  // namespace arena
