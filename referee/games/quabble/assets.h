// Quabble's asset list: reading and checking a text-format QuabbleAssetList
// (the shipped one, compiled in from assets.textproto, or a file named by
// the `assets` option) and compiling it into the Catalogue the engine plays.
// What each power does and which lists are refused, with the error texts:
// referee/games/quabble/rules.md ("The asset list as data").
//
// ParseAssetList and LoadAssetFile never abort: every problem, from a syntax
// error to a deck too small for the deal, is an InvalidArgument status whose
// message names the list, the line and column (from 1) and, where it can,
// the asset and the field. A Catalogue is immutable once returned and is
// shared (shared_ptr) by the game and each of its states; all functions here
// are thread-safe.
#ifndef ARENA_REFEREE_GAMES_QUABBLE_ASSETS_H_
#define ARENA_REFEREE_GAMES_QUABBLE_ASSETS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "arena/v1/quabble.pb.h"

namespace arena {
namespace quabble {

inline constexpr int kHandSize = 5;       // cards dealt to each seat
inline constexpr int kMaxAssets = 32;     // kinds of asset in one list
inline constexpr int kMaxCount = 60;      // copies of one asset
inline constexpr int kMaxCards = 240;     // cards in the whole deck
inline constexpr int kMaxValue = 20;      // |value|, |amount|
inline constexpr int kMaxThreshold = 60;

// The asset list of a match, checked and compiled for play. Card ids are
// dense: the first asset's copies first, then the next asset's, in list
// order.
struct Catalogue {
  struct Asset {
    std::string name;
    int count = 0;
    int value = 0;
    v1::QuabblePower power = v1::QUABBLE_POWER_NONE;
    // The numbers in force: a number the list leaves out is the shipped
    // table's number for the power (NeedsOf in assets.cc).
    int amount = 0;
    int target = -1;     // index of the target asset, or -1
    int threshold = 0;
    std::string text;
  };
  std::vector<Asset> assets;          // in power order
  std::vector<uint8_t> card_asset;    // card id -> asset index
  std::vector<int> first_card;        // asset index -> its lowest card id
  std::string source;                 // "default" or the file path
  uint64_t fingerprint = 0;           // FNV-1a of the list as written
  v1::QuabbleAssetList list;          // as loaded, numbers in force filled in
  int num_cards() const { return static_cast<int>(card_asset.size()); }
};

// The text of the shipped asset list (assets.textproto, compiled in).
absl::string_view DefaultAssetListText();

// Parses and checks an asset list. `source` names it in errors ("file
// <source>, line L, column C: problem"). `num_seats` > 0 also checks that the
// deck is large enough for the deal.
absl::StatusOr<std::shared_ptr<const Catalogue>> ParseAssetList(
    absl::string_view text, const std::string& source, int num_seats);

// As ParseAssetList, reading the file at `path` (a regular file of at most
// 1 MiB; anything else is refused without being read).
absl::StatusOr<std::shared_ptr<const Catalogue>> LoadAssetFile(
    const std::string& path, int num_seats);

}  // namespace quabble
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_QUABBLE_ASSETS_H_
