// A replay page that carries a match's decisions instead of its steps: the
// page's script re-simulates them with the game's engine in the browser
// (arena/views/html/resim.js and, for Pesten, pesten.js), so that a long
// match's page costs about what its record costs, not its steps'.
//
// PageDecisionColumns gathers, from the steps of a replay (StreamReplay,
// seat -1, notes as the site shows them), what the page's engine cannot work
// out (each decision's actions: seat, action, source, think time, fault
// detail, notes, a label only where it is not its legal action's) and, for
// each chunk of positions, a check of what the steps hold
// (StepCheckText): the page refuses a chunk its engine makes otherwise.
// The JSON's layout is resim.js's to read; both say it.
//
// Thread safety: none; one builder per page.
#ifndef ARENA_ARENA_VIEWS_PAGE_DECISIONS_H_
#define ARENA_ARENA_VIEWS_PAGE_DECISIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "arena/v1/replay.pb.h"

namespace arena {

// Whether the pages' script can re-simulate matches of `game`.
bool BrowserEngineGame(const std::string& game);

// What a chunk's check covers of a step: its number, every view's JSON (as
// the replay's), every event's visibility and words as each seat got them,
// and every action's legal labels. resim.js (stepCheckText) says the same.
std::string StepCheckText(const v1::ReplayStep& step);

// FNV-1a (32 bits) of `text`, continued from `hash`.
uint32_t Fnv1a(const std::string& text, uint32_t hash = 0x811c9dc5u);

class PageDecisionColumns {
 public:
  explicit PageDecisionColumns(int chunk_steps) : chunk_steps_(chunk_steps) {}
  // Each position's step, in order.
  void Add(const v1::ReplayStep& step);
  // The columns' JSON ({"finished":..,"sources":[..],"step":[..],"n":[..],
  // "seat":[..],"action":[..],"think":[..],"src":[..],"x":[..],
  // "checks":[..]}).
  std::string Json(bool finished) const;
  int64_t positions() const { return positions_; }

 private:
  int chunk_steps_;
  int64_t positions_ = 0;
  int64_t decisions_ = 0;
  int64_t actions_ = 0;
  int64_t last_step_ = 0;
  std::string step_, n_, seat_, action_, think_, src_, x_;
  std::vector<uint32_t> checks_;
};

}  // namespace arena

#endif  // ARENA_ARENA_VIEWS_PAGE_DECISIONS_H_
