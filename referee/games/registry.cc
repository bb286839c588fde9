#include "referee/games/registry.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
// Every game that referee/CMakeLists.txt built (arena_add_game).
#include "referee/games_headers.inc"

namespace arena {
namespace {

struct Entry {
  const GameInfo& (*info)();
  absl::StatusOr<std::unique_ptr<Game>> (*create)(const Options&, int);
};

const std::vector<Entry>& Entries() {
  // Each game's folder provides its Info() and Create(options, seats).
  static const auto* entries = new std::vector<Entry>{
#include "referee/games_entries.inc"
  };
  return *entries;
}

}  // namespace

std::vector<std::string> GameNames() {
  std::vector<std::string> names;
  for (const Entry& e : Entries()) names.push_back(e.info().name);
  return names;
}

const GameInfo* FindGameInfo(const std::string& name) {
  for (const Entry& e : Entries()) {
    if (e.info().name == name) return &e.info();
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Game>> CreateGame(const std::string& name,
                                                 const Options& options,
                                                 int num_seats) {
  for (const Entry& e : Entries()) {
    const GameInfo& info = e.info();
    if (info.name != name) continue;
    if (num_seats == 0) num_seats = info.default_seats;
    if (absl::Status s = CheckSeatCount(info, num_seats); !s.ok()) return s;
    return e.create(options, num_seats);
  }
  // "Pesten" for "pesten": names are lower case, people write them as titles.
  std::string hint;
  for (const Entry& e : Entries()) {
    if (absl::EqualsIgnoreCase(e.info().name, name)) {
      hint = absl::StrCat("did you mean '", e.info().name, "'? ");
    }
  }
  return absl::NotFoundError(absl::StrCat("unknown game '", name, "' (", hint,
                                          "known: ",
                                          absl::StrJoin(GameNames(), ", "), ")"));
}

}  // namespace arena
