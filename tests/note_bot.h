// The notes tests/note_bot_main.cc writes (Decision.note), one a decision,
// each naming its seat, decision id and action so that a test can tell it
// is shown at the right decision; every one of six a hostile text: markup
// and script, NULs and terminal escapes, bytes that are not UTF-8, text
// over the 256 bytes kept, a megabyte.
#ifndef ARENA_TESTS_NOTE_BOT_H_
#define ARENA_TESTS_NOTE_BOT_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace arena::testing {

// What every note starts with: "NOTE s<seat> d<decision id> a<action>;".
inline std::string NoteHead(int seat, uint64_t decision_id, int action) {
  return absl::StrCat("NOTE s", seat, " d", decision_id, " a", action, ";");
}

// Which of the six kinds a decision's note is: every kind comes up among
// the ids of one seat, even when the seats take turns (odd ids, even ids).
inline int NoteKind(uint64_t decision_id) {
  return static_cast<int>((decision_id + decision_id / 6) % 6);
}

// `big`: the length of the longest one (a megabyte by default).
inline std::string NoteFor(int seat, uint64_t decision_id, int action, size_t big = 1 << 20) {
  const std::string head = NoteHead(seat, decision_id, action);
  switch (NoteKind(decision_id)) {
    case 0:
      return absl::StrCat(head, " plain words");
    case 1:
      return absl::StrCat(head, " <script>alert('note')</script><img src=x onerror=alert(1)>",
                          "</script><!--&amp;");
    case 2:
      return absl::StrCat(head, std::string(" NUL\0here", 9), " \x1B[31mred\x1B[0m\x07\r\nnext");
    case 3:
      return absl::StrCat(head, " \xFF\xFE not UTF-8 \xC3");
    case 4: {
      std::string s = absl::StrCat(head, " ");
      for (int i = 0; i < 200; ++i) s += "\xC3\xA9";  // "é", past 256 bytes
      return s;
    }
    default:
      return absl::StrCat(head, " ", std::string(big, 'x'));  // a megabyte
  }
}

}  // namespace arena::testing

#endif  // ARENA_TESTS_NOTE_BOT_H_
