// Seeded random numbers whose output is fixed by this file alone.
//
// The standard library's distributions and shuffles differ between
// implementations, and absl::BitGen is deliberately unreproducible, so every
// chance outcome in a match comes from this generator: SplitMix64 to expand
// the seed, xoshiro256** for the stream, Lemire's unbiased bounded integers and
// a Fisher-Yates shuffle. A record made on one machine replays on any other.
//
// Thread safety: none; each match owns its generators.
#ifndef ARENA_REFEREE_GAME_API_RNG_H_
#define ARENA_REFEREE_GAME_API_RNG_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace arena {

// SplitMix64 step: also used to derive match seeds from a tournament seed.
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Seed of the `index`-th stream derived from `seed` (match seeds, fault RNGs).
inline uint64_t DeriveSeed(uint64_t seed, uint64_t index) {
  uint64_t s = seed ^ (0xa0761d6478bd642fULL * (index + 1));
  SplitMix64(s);
  return SplitMix64(s);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t s = seed;
    for (auto& word : s_) word = SplitMix64(s);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n); n > 0. Lemire's multiply-and-reject method.
  uint32_t Uniform(uint32_t n) {
    uint64_t m = static_cast<uint64_t>(static_cast<uint32_t>(Next() >> 32)) * n;
    uint32_t low = static_cast<uint32_t>(m);
    if (low < n) {
      const uint32_t threshold = static_cast<uint32_t>(-n) % n;
      while (low < threshold) {
        m = static_cast<uint64_t>(static_cast<uint32_t>(Next() >> 32)) * n;
        low = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }

  // Fisher-Yates, from the back.
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) {
      const uint32_t j = Uniform(static_cast<uint32_t>(i));
      std::swap(v[i - 1], v[j]);
    }
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace arena

#endif  // ARENA_REFEREE_GAME_API_RNG_H_
