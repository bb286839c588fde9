#include "bots/sdk/epsilon.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/game_api/rng.h"

namespace arena::bots {
namespace {

// Keeps the epsilon draws apart from other streams seeded the same way
// (the random bot's, from the same ids).
constexpr uint64_t kEpsilonStream = 0x65707369'6c6f6e31ULL;  // "epsilon1"

}  // namespace

absl::Status CheckEpsilon(double epsilon) {
  if (!(epsilon >= 0 && epsilon <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--epsilon must be in [0, 1] (the chance that a decision is a random "
        "legal action), not ",
        epsilon));
  }
  return absl::OkStatus();
}

uint64_t EpsilonSeed(const v1::DecisionRequest& request) {
  // FNV-1a over the match id, then the decision id mixed in.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : request.match_id()) {
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return DeriveSeed(h ^ kEpsilonStream, request.decision_id());
}

int ChooseWithEpsilon(double epsilon, const Policy& policy,
                      const v1::MatchStart& match,
                      const v1::DecisionRequest& request) {
  const int n = request.legal_actions_size();
  if (epsilon <= 0 || n == 0) return policy(match, request);
  Rng rng(EpsilonSeed(request));
  // A uniform double in [0, 1) from the top 53 bits: below 1 always, so
  // epsilon 1 always plays at random.
  const double u = static_cast<double>(rng.Next() >> 11) * 0x1.0p-53;
  if (u >= epsilon) return policy(match, request);
  return static_cast<int>(rng.Uniform(static_cast<uint32_t>(n)));
}

Policy WithEpsilon(double epsilon, Policy policy) {
  if (epsilon <= 0) return policy;
  return [epsilon, policy = std::move(policy)](const v1::MatchStart& match,
                                               const v1::DecisionRequest& request) {
    return ChooseWithEpsilon(epsilon, policy, match, request);
  };
}

}  // namespace arena::bots
