#include "policy.h"

#include <set>

#include "toy.pb.h"

namespace toy {

int ChooseToyAction(const arena::v1::MatchStart& match,
                    const arena::v1::DecisionRequest& request) {
  // The toy's messages come packed in the `other` slots: unpack by type.
  v1::ToyRules rules;
  v1::ToyView view;
  if (!match.rules().other().UnpackTo(&rules) || !request.view().other().UnpackTo(&view)) {
    return 0;
  }
  std::set<int> seen(view.hand().begin(), view.hand().end());
  seen.insert(view.played_cards().begin(), view.played_cards().end());
  int highest_unseen = -1;
  for (int c = 0; c < rules.deck_size(); ++c) {
    if (!seen.count(c)) highest_unseen = c;
  }
  int best = -1, best_card = 0;
  int lowest = 0, lowest_card = rules.deck_size();
  for (int i = 0; i < request.legal_actions_size(); ++i) {
    v1::ToyAction a;
    if (!request.legal_actions(i).other().UnpackTo(&a)) return 0;
    if (a.card() > highest_unseen && (best < 0 || a.card() < best_card)) {
      best = i;
      best_card = a.card();
    }
    if (a.card() < lowest_card) {
      lowest = i;
      lowest_card = a.card();
    }
  }
  return best >= 0 ? best : lowest;
}

}  // namespace toy
