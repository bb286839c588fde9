#include "referee/records/bot_note.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace arena {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// The code point of the UTF-8 sequence at text[i] and its length in bytes;
// length 0 if no valid sequence starts there (overlong forms, surrogates
// and code points past U+10FFFF are not valid).
struct Decoded {
  uint32_t cp = 0;
  size_t len = 0;
};

Decoded DecodeAt(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return {c, 1};
  size_t len = 0;
  uint32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return {};
  }
  if (i + len > text.size()) return {};
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {};
  return {cp, len};
}

// Characters a note may not hold: they could change how the replay's text
// around the note reads (a terminal's escape sequences, a line of its own,
// text that runs right to left past the note's end).
bool Replaced(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E ||
         cp == 0x200F || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// `text` with every byte that is not part of valid UTF-8 (and, with
// `controls`, every character Replaced names) as U+FFFD, at most
// `max_bytes` of it, cut at a character boundary; `*used` is the bytes of
// `text` it took.
std::string Clean(absl::string_view text, size_t max_bytes, bool controls, size_t* used) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const Decoded d = DecodeAt(text, i);
    const size_t len = d.len == 0 ? 1 : d.len;
    const absl::string_view kept = d.len == 0 || (controls && Replaced(d.cp))
                                       ? absl::string_view(kReplacement)
                                       : text.substr(i, len);
    if (out.size() + kept.size() > max_bytes) break;
    out.append(kept.data(), kept.size());
    i += len;
  }
  *used = i;
  return out;
}

}  // namespace

BoundedNote BoundNote(absl::string_view sent) {
  BoundedNote out;
  size_t used = 0;
  out.text = Clean(sent, kMaxNoteBytes, /*controls=*/true, &used);
  out.cut_bytes = static_cast<int32_t>(sent.size() - used);
  return out;
}

std::string ValidUtf8Prefix(absl::string_view text, size_t max_bytes) {
  size_t used = 0;
  return Clean(text, max_bytes, /*controls=*/false, &used);
}

std::string PlainText(absl::string_view text) {
  size_t used = 0;
  return Clean(text, std::string::npos, /*controls=*/true, &used);
}

absl::Status CheckRecordedNote(absl::string_view note, int64_t cut_bytes) {
  if (note.size() > kMaxNoteBytes) {
    return absl::InvalidArgumentError(absl::StrCat("note of ", note.size(),
                                                   " bytes, over the ", kMaxNoteBytes,
                                                   " a record keeps"));
  }
  for (size_t i = 0; i < note.size();) {
    const Decoded d = DecodeAt(note, i);
    if (d.len == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("note is not UTF-8 at byte ", i));
    }
    if (Replaced(d.cp)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "note holds U+%04X at byte %d, which the referee replaces", d.cp, i));
    }
    i += d.len;
  }
  if (cut_bytes < 0 || cut_bytes > kMaxNoteCutBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "note_cut_bytes is ", cut_bytes, ", not in [0, ", kMaxNoteCutBytes, "]"));
  }
  // A cut leaves the note full: its next character (4 bytes at most) would
  // not have fitted.
  if (cut_bytes > 0 && note.size() + 4 <= kMaxNoteBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "note_cut_bytes says ", cut_bytes, " bytes were cut from a note of ", note.size(),
        " bytes, but only a note of more than ", kMaxNoteBytes - 4, " bytes is cut"));
  }
  return absl::OkStatus();
}

}  // namespace arena
