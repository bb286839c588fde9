#include "referee/registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/games/quasenbo/quasenbo.h"

namespace arena {
namespace {

struct Entry {
  const GameInfo& (*info)();
  absl::StatusOr<std::unique_ptr<Game>> (*create)(const Options&, int);
};

const std::vector<Entry>& Entries() {
  static const auto* entries = new std::vector<Entry>{
      {&quasenbo::QuasenboInfo, &quasenbo::CreateQuasenbo},
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
    if (num_seats < info.min_seats || num_seats > info.max_seats) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": ", num_seats, " seats is not allowed (",
                       info.min_seats, " to ", info.max_seats, ")"));
    }
    return e.create(options, num_seats);
  }
  return absl::NotFoundError(absl::StrCat("unknown game '", name,
                                          "' (known: ",
                                          absl::StrJoin(GameNames(), ", "), ")"));
}

}  // namespace arena
