#include "referee/game_api/game.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace arena {

void State::DiscardEventsBefore(size_t first_kept) {
  if (first_kept <= discarded_) return;
  const size_t n = std::min(first_kept - discarded_, events_.size());
  if (2 * n < events_.size()) return;
  events_.erase(events_.begin(), events_.begin() + static_cast<ptrdiff_t>(n));
  discarded_ += n;
}

absl::Status CheckSeatCount(const GameInfo& info, int num_seats) {
  if (num_seats >= info.min_seats && num_seats <= info.max_seats) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      info.name, ": ", num_seats, " seats is not allowed (",
      info.min_seats == info.max_seats
          ? absl::StrCat("exactly ", info.min_seats)
          : absl::StrCat(info.min_seats, " to ", info.max_seats),
      ")"));
}

std::vector<int> PlacementsFromScores(const std::vector<double>& scores,
                                      bool higher_is_better) {
  std::vector<int> placements(scores.size(), 1);
  for (size_t i = 0; i < scores.size(); ++i) {
    for (size_t j = 0; j < scores.size(); ++j) {
      const bool better = higher_is_better ? scores[j] > scores[i]
                                           : scores[j] < scores[i];
      if (better) ++placements[i];
    }
  }
  return placements;
}

const v1::Event* EventForSeat(const LoggedEvent& e, int seat) {
  if (e.is_public || (e.seats_mask >> seat) & 1) return &e.event;
  if (e.has_redacted) return &e.redacted;
  return nullptr;
}

std::string EnumWords(const google::protobuf::EnumValueDescriptor* v) {
  std::string name = v->name();
  const google::protobuf::EnumValueDescriptor* zero = v->type()->FindValueByNumber(0);
  if (zero != nullptr && absl::EndsWith(zero->name(), "UNSPECIFIED")) {
    const std::string prefix =
        zero->name().substr(0, zero->name().size() - std::string("UNSPECIFIED").size());
    if (absl::StartsWith(name, prefix)) name = name.substr(prefix.size());
  }
  if (v->number() == 0) return "none";
  return absl::AsciiStrToLower(absl::StrReplaceAll(name, {{"_", " "}}));
}

void EngineFatal(absl::string_view game, absl::string_view message) {
  std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(game.size()),
               game.data(), static_cast<int>(message.size()), message.data());
  std::abort();
}

}  // namespace arena
