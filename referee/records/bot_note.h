// A bot's note on its decision (Decision.note): the short text of its own
// that the referee records with the decision and never sends to any bot
// (docs/protocol.md, "Notes").
//
// BoundNote is what the referee keeps of a note: every character that could
// change how the text around it reads (C0 and C1 controls, DEL, Unicode's
// bidirectional controls, line and paragraph separators) and every byte
// that is not UTF-8 becomes U+FFFD, and of that at most kMaxNoteBytes are
// kept, cut at a character boundary; `cut_bytes` counts the bytes of the
// note as sent that were left out. CheckRecordedNote is what `arena verify`
// checks of a recorded one. A note is recorded data: nothing in a match
// depends on it.
//
// Thread safety: plain functions of their arguments.
#ifndef ARENA_REFEREE_RECORDS_BOT_NOTE_H_
#define ARENA_REFEREE_RECORDS_BOT_NOTE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace arena {

// Bytes of a note the referee keeps.
inline constexpr size_t kMaxNoteBytes = 256;
// A bot's message is at most 64 KiB (the referee's receive limit), so no
// more than this can have been cut from a note.
inline constexpr int64_t kMaxNoteCutBytes = 64 * 1024;

struct BoundedNote {
  std::string text;       // at most kMaxNoteBytes, valid UTF-8, no control
  int32_t cut_bytes = 0;  // bytes of the note as sent that were left out
};

BoundedNote BoundNote(absl::string_view sent);

// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD,
// then cut to at most `max_bytes` at a character boundary (what the C++ SDK
// sends, so that its message is valid protobuf and within the limit).
std::string ValidUtf8Prefix(absl::string_view text, size_t max_bytes);

// `text` as BoundNote cleans it (every byte that is not UTF-8 and every
// control, bidirectional control and line separator as U+FFFD), none of it
// cut: for other text a bot writes that reaches a record or a terminal (its
// stderr's last lines in a crash's fault detail).
std::string PlainText(absl::string_view text);

// OK if (`note`, `cut_bytes`) is something BoundNote can give: at most
// kMaxNoteBytes of valid UTF-8 without a replaced character, and a cut only
// from a note that was full (within 4 bytes, the longest character, of
// kMaxNoteBytes), of at most kMaxNoteCutBytes. Else an error saying what is
// wrong.
absl::Status CheckRecordedNote(absl::string_view note, int64_t cut_bytes);

}  // namespace arena

#endif  // ARENA_REFEREE_RECORDS_BOT_NOTE_H_
