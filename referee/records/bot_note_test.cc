// What the referee keeps of a bot's note (BoundNote) and what verify
// accepts of a recorded one (CheckRecordedNote); the expected texts and
// counts are worked out by hand in each test's comments.
#include "referee/records/bot_note.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD, 3 bytes

std::string Times(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(BoundNote, KeepsAShortNoteAsSent) {
  const BoundedNote n = BoundNote("3 of 7: keeps the Ace for the end");
  EXPECT_EQ(n.text, "3 of 7: keeps the Ace for the end");
  EXPECT_EQ(n.cut_bytes, 0);
  EXPECT_EQ(BoundNote("").text, "");
  // Script and markup are text like any other: the pages escape them.
  EXPECT_EQ(BoundNote("<script>alert(1)</script>&amp;").text,
            "<script>alert(1)</script>&amp;");
}

TEST(BoundNote, CutsAt256BytesAndCountsTheRest) {
  EXPECT_EQ(BoundNote(std::string(256, 'a')).cut_bytes, 0);
  const BoundedNote n = BoundNote(std::string(257, 'a'));
  EXPECT_EQ(n.text, std::string(256, 'a'));
  EXPECT_EQ(n.cut_bytes, 1);
  // A megabyte: 256 kept, 1,048,320 counted.
  const BoundedNote big = BoundNote(std::string(1 << 20, 'x'));
  EXPECT_EQ(big.text.size(), 256u);
  EXPECT_EQ(big.cut_bytes, (1 << 20) - 256);
}

TEST(BoundNote, CutsAtACharacterBoundary) {
  // 254 + "é" (2 bytes) = 256: whole.
  EXPECT_EQ(BoundNote(std::string(254, 'a') + "\xC3\xA9").cut_bytes, 0);
  // 255 + "é" = 257: the "é" does not fit and goes whole, 2 bytes.
  BoundedNote n = BoundNote(std::string(255, 'a') + "\xC3\xA9");
  EXPECT_EQ(n.text, std::string(255, 'a'));
  EXPECT_EQ(n.cut_bytes, 2);
  // 253 + a 4-byte emoji + "b" = 258: 253 kept, 5 cut.
  n = BoundNote(std::string(253, 'a') + "\xF0\x9F\x98\x80" + "b");
  EXPECT_EQ(n.text, std::string(253, 'a'));
  EXPECT_EQ(n.cut_bytes, 5);
  EXPECT_TRUE(CheckRecordedNote(n.text, n.cut_bytes).ok());
}

TEST(BoundNote, ReplacesControlsNulsAndBidiControls) {
  // NUL, ESC (a terminal's colour), BEL, newline, DEL, a C1 control (U+0085,
  // C2 85), RIGHT-TO-LEFT OVERRIDE (U+202E, E2 80 AE), LINE SEPARATOR
  // (U+2028, E2 80 A8): each one U+FFFD.
  const std::string sent = std::string("a\0b", 3) + "\x1B[31m\x07\n\x7F" + "\xC2\x85" +
                           "\xE2\x80\xAE" + "evil" + "\xE2\x80\xA8" + "z";
  const BoundedNote n = BoundNote(sent);
  EXPECT_EQ(n.text, "a" + kFffd + "b" + kFffd + "[31m" + Times(kFffd, 5) + "evil" + kFffd +
                        "z");
  EXPECT_EQ(n.cut_bytes, 0);
  // Other text outside ASCII stays: "Ä 😀 ♥".
  EXPECT_EQ(BoundNote("\xC3\x84 \xF0\x9F\x98\x80 \xE2\x99\xA5").text,
            "\xC3\x84 \xF0\x9F\x98\x80 \xE2\x99\xA5");
}

TEST(BoundNote, ReplacesEveryByteThatIsNotUtf8) {
  // 0xFF and 0xFE never start a character; a lone lead byte at the end.
  EXPECT_EQ(BoundNote("\xFF\xFEok\xC3").text, kFffd + kFffd + "ok" + kFffd);
  // An overlong '/' (C0 AF): two bytes, neither valid.
  EXPECT_EQ(BoundNote("\xC0\xAF").text, kFffd + kFffd);
  // A surrogate (ED A0 80): three.
  EXPECT_EQ(BoundNote("\xED\xA0\x80").text, Times(kFffd, 3));
  // Past U+10FFFF (F4 90 80 80): four.
  EXPECT_EQ(BoundNote("\xF4\x90\x80\x80").text, Times(kFffd, 4));
}

TEST(BoundNote, CountsCutBytesAsSentWhenControlsGrew) {
  // 100 NULs: each kept as U+FFFD (3 bytes); 85 fit in 255 bytes, the 86th
  // would make 258. The other 15 NULs, 15 bytes as sent, are cut.
  const BoundedNote n = BoundNote(std::string(100, '\0'));
  EXPECT_EQ(n.text, Times(kFffd, 85));
  EXPECT_EQ(n.cut_bytes, 15);
  EXPECT_TRUE(CheckRecordedNote(n.text, n.cut_bytes).ok());
}

TEST(ValidUtf8Prefix, RepairsAndCutsAtABoundary) {
  EXPECT_EQ(ValidUtf8Prefix("ab\xFF", 10), "ab" + kFffd);
  EXPECT_EQ(ValidUtf8Prefix("a\xC3\xA9", 2), "a");  // "é" would end at byte 3
  EXPECT_EQ(ValidUtf8Prefix(std::string(1 << 20, 'x'), 16384).size(), 16384u);
}

TEST(CheckRecordedNote, RejectsWhatTheRefereeCannotHaveKept) {
  EXPECT_TRUE(CheckRecordedNote("fine", 0).ok());
  EXPECT_TRUE(CheckRecordedNote(std::string(256, 'a'), 70).ok());
  EXPECT_TRUE(CheckRecordedNote(std::string(253, 'a'), 4).ok());
  const auto error = [](const std::string& note, int64_t cut) {
    return std::string(CheckRecordedNote(note, cut).message());
  };
  EXPECT_EQ(error(std::string(257, 'a'), 0), "note of 257 bytes, over the 256 a record keeps");
  EXPECT_EQ(error("bell\x07", 0), "note holds U+0007 at byte 4, which the referee replaces");
  EXPECT_EQ(error("x\xE2\x80\xAE", 0),
            "note holds U+202E at byte 1, which the referee replaces");
  EXPECT_EQ(error("ok\xFF", 0), "note is not UTF-8 at byte 2");
  EXPECT_EQ(error("ok", -1), "note_cut_bytes is -1, not in [0, 65536]");
  EXPECT_EQ(error(std::string(256, 'a'), 65537), "note_cut_bytes is 65537, not in [0, 65536]");
  // A note of 252 bytes had room for any next character: nothing was cut.
  EXPECT_EQ(error(std::string(252, 'a'), 9),
            "note_cut_bytes says 9 bytes were cut from a note of 252 bytes, but only a note "
            "of more than 252 bytes is cut");
  EXPECT_EQ(error("short", 1),
            "note_cut_bytes says 1 bytes were cut from a note of 5 bytes, but only a note "
            "of more than 252 bytes is cut");
}

// Whatever a bot sends, what the referee keeps passes verify, and the
// bytes kept and cut account for the note as sent.
TEST(BoundNote, AnyBytesGiveANoteThatVerifies) {
  Rng rng(50);
  for (int i = 0; i < 3000; ++i) {
    std::string sent(rng.Uniform(700), '\0');
    // Bytes from all 256 values, or (every other note) mostly ASCII with
    // some multi-byte characters, which are cut at the end more often.
    for (char& c : sent) {
      c = static_cast<char>(i % 2 ? rng.Uniform(256) : 0x20 + rng.Uniform(0x5F));
    }
    if (i % 2 == 0 && !sent.empty()) sent.insert(rng.Uniform(sent.size()), "\xE2\x99\xA5");
    const BoundedNote n = BoundNote(sent);
    ASSERT_TRUE(CheckRecordedNote(n.text, n.cut_bytes).ok())
        << i << ": " << CheckRecordedNote(n.text, n.cut_bytes);
    ASSERT_LE(n.cut_bytes, static_cast<int64_t>(sent.size()));
    if (sent.size() <= 85) ASSERT_EQ(n.cut_bytes, 0) << i;  // 85 x 3 bytes fit
  }
}

// PlainText cleans as BoundNote does, whatever the length: "ok\xff" is 3
// bytes, then U+FFFD (EF BF BD); ESC and BEL each become U+FFFD; "é" (C3 A9)
// stays; nothing is cut from 1,000 bytes.
TEST(PlainText, CleansLikeANoteButCutsNothing) {
  EXPECT_EQ(PlainText("ok\xff"), "ok\xEF\xBF\xBD");
  EXPECT_EQ(PlainText("\x1b[1m\x07\xC3\xA9"), "\xEF\xBF\xBD[1m\xEF\xBF\xBD\xC3\xA9");
  EXPECT_EQ(PlainText(std::string(1000, 'a')), std::string(1000, 'a'));
  EXPECT_EQ(PlainText(std::string("a\0b", 3)), "a\xEF\xBF\xBD" "b");
}

}  // namespace
}  // namespace arena
