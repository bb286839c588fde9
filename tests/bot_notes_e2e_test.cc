// Bots' notes end to end, through the real binaries: a C++ SDK bot
// (tests/note_bot_main.cc) writes a note on every decision, hostile ones
// among them (markup and script, NULs and terminal escapes, bytes that are
// not UTF-8, over-long, a megabyte), in `arena match` against the random bot;
// the Python bot writes its own with --notes. Then: the record holds each as
// the referee keeps it and verifies; `arena replay` shows each under its
// own decision, `--seat` only that seat's; `arena html` shows none unless
// --show_notes; a repro bundle holds the faulty seat's own notes; and
// `arena verify` refuses a record whose note count was edited.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "arena/v1/repro.pb.h"
#include "bots/sdk/bot.h"
#include "gtest/gtest.h"
#include "referee/records/bot_note.h"
#include "tests/e2e_util.h"
#include "tests/note_bot.h"

namespace arena {
namespace {

using testing::Cmd;
using testing::kBin;
using testing::Sh;

constexpr char kMarker[] = "NOTE s";

struct Played {
  std::string dir, record;
  std::vector<v1::RecordLine> lines;
  int noter_seat = -1;
};

Played PlayNoted(const testing::Workdir& w, const std::string& extra = "") {
  Played p;
  p.dir = w.path() + "/records";
  const Cmd r = Sh(absl::StrCat(kBin, "/arena match --game pesten --seed 50 --records ", p.dir,
                                " --record_format jsonl --decision_ms 2000 --bot noter=\"", kBin,
                                "/note_bot", extra, "\" --bot rnd=", kBin, "/random_bot"));
  EXPECT_TRUE(r.code == 0 || !extra.empty()) << r.output;
  p.record = testing::OnlyRecord(p.dir);
  auto lines = ReadRecordFile(p.record);
  EXPECT_TRUE(lines.ok()) << lines.status();
  if (lines.ok()) p.lines = *lines;
  if (!p.lines.empty()) {
    const auto& bots = p.lines[0].header().seat_bots();
    for (int s = 0; s < bots.size(); ++s) {
      if (bots[s] == "noter") p.noter_seat = s;
    }
  }
  return p;
}

// What the referee keeps of the note the bot wrote for `a`: the SDK sends
// 16 KiB of it, made UTF-8; the referee keeps 256 bytes, controls replaced.
BoundedNote Expected(const v1::SeatAction& a) {
  return BoundNote(ValidUtf8Prefix(testing::NoteFor(a.seat(), a.decision_id(), a.action()),
                                   bots::kMaxSentNoteBytes));
}

TEST(BotNotesE2e, RecordedReplayedAndShownOnlyWhereAsked) {
  testing::Workdir w("notes");
  const Played p = PlayNoted(w);
  ASSERT_GE(p.noter_seat, 0);
  // The record: every one of the noter's own decisions with its note, the
  // random bot's with none.
  std::map<uint64_t, const v1::SeatAction*> noted;  // by decision id
  int cut = 0;
  for (const auto& l : p.lines) {
    if (!l.has_decision()) continue;
    for (const auto& a : l.decision().actions()) {
      if (a.seat() != p.noter_seat || a.source() != v1::SeatAction::SOURCE_BOT) {
        EXPECT_EQ(a.note(), "");
        EXPECT_EQ(a.note_cut_bytes(), 0);
        continue;
      }
      const BoundedNote e = Expected(a);
      EXPECT_EQ(a.note(), e.text) << "decision " << a.decision_id();
      EXPECT_EQ(a.note_cut_bytes(), e.cut_bytes) << "decision " << a.decision_id();
      cut += a.note_cut_bytes() > 0;
      noted[a.decision_id()] = &a;
    }
  }
  ASSERT_GE(noted.size(), 6u) << "every kind of note";
  EXPECT_GT(cut, 0);
  // The megabyte: 16 KiB sent (the SDK's bound), 256 kept, the rest counted.
  for (const auto& [id, a] : noted) {
    if (testing::NoteKind(id) == 5) EXPECT_EQ(a->note_cut_bytes(), 16384 - 256) << id;
    if (testing::NoteKind(id) == 2) EXPECT_TRUE(absl::StrContains(a->note(), "\xEF\xBF\xBDhere")) << a->note();
  }
  Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", p.dir));
  EXPECT_EQ(v.code, 0) << v.output;

  // `arena replay`: each note on the line under its own decision.
  Cmd text = Sh(absl::StrCat(kBin, "/arena replay ", p.record));
  ASSERT_EQ(text.code, 0) << text.output;
  std::vector<std::string> lines = absl::StrSplit(text.output, '\n');
  size_t shown = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (!absl::StartsWith(lines[i], "    note: ")) continue;
    // "    note: NOTE s<seat> d<id> a<action>; ..."
    std::vector<std::string> head = absl::StrSplit(lines[i].substr(10), ' ');
    ASSERT_GE(head.size(), 3u) << lines[i];
    uint64_t id = 0;
    ASSERT_TRUE(absl::SimpleAtoi(head[2].substr(1), &id)) << lines[i];
    ASSERT_TRUE(noted.count(id)) << lines[i];
    const v1::SeatAction& a = *noted[id];
    EXPECT_TRUE(absl::StartsWith(lines[i - 1], absl::StrCat("  seat ", a.seat(), " (noter): ",
                                                            a.label(), "  [bot, ")))
        << lines[i - 1] << "\n" << lines[i];
    EXPECT_EQ(lines[i], absl::StrCat("    note: ", a.note(),
                                     a.note_cut_bytes() > 0
                                         ? absl::StrCat(" [", a.note_cut_bytes(),
                                                        " more bytes cut]")
                                         : ""));
    // No terminal escape, NUL or bell reaches the terminal.
    EXPECT_EQ(lines[i].find_first_of(std::string("\x1B\x07\r\0", 4)), std::string::npos);
    ++shown;
  }
  EXPECT_EQ(shown, noted.size());

  // --seat: that seat's own notes, and another seat's none.
  const int other = 1 - p.noter_seat;
  Cmd mine = Sh(absl::StrCat(kBin, "/arena replay ", p.record, " --seat ", p.noter_seat));
  Cmd theirs = Sh(absl::StrCat(kBin, "/arena replay ", p.record, " --seat ", other));
  ASSERT_EQ(mine.code, 0) << mine.output;
  ASSERT_EQ(theirs.code, 0) << theirs.output;
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(mine.output, "\n    note: NOTE s")).size() - 1,
            noted.size());
  EXPECT_FALSE(absl::StrContains(theirs.output, kMarker));

  // The public site: no note unless --show_notes, and then every one. The
  // page holds the steps as gzip+base64 (no note's markup in the HTML);
  // its script shows them as text.
  for (const bool show : {false, true}) {
    const std::string out = absl::StrCat(w.path(), "/html-", show);
    Cmd h = Sh(absl::StrCat(kBin, "/arena html ", p.dir, " --out ", out,
                            show ? " --show_notes" : ""));
    ASSERT_EQ(h.code, 0) << h.output;
    const std::string name = p.lines[0].header().match_id();
    const std::string page = testing::ReadFile(absl::StrCat(out, "/replays/", name, ".html"));
    // A long match's steps are in chunk files beside the page, each
    // arenaReplayChunk(k, "<gzip+base64>"); (a short one's in the page);
    // a Pesten page carries its decisions instead (replay-inputs).
    std::string steps;
    for (const char* id : {"replay-chunk-0", "replay-inputs"}) {
      const std::string open = absl::StrCat("id=\"", id, "\" data-encoding=\"gzip+base64\">");
      if (const size_t at = page.find(open); at != std::string::npos) {
        const size_t end = page.find("</script>", at);
        steps += testing::GunzipBase64(page.substr(at + open.size(), end - at - open.size()));
      }
    }
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(
             absl::StrCat(out, "/replays/", name, ".steps"), ec)) {
      const std::string chunk = testing::ReadFile(e.path().string());
      const size_t from = chunk.find('"') + 1;
      steps += testing::GunzipBase64(chunk.substr(from, chunk.rfind('"') - from));
      EXPECT_FALSE(absl::StrContains(chunk, kMarker)) << e.path();
    }
    ASSERT_FALSE(steps.empty()) << "no steps found beside " << name;
    EXPECT_FALSE(absl::StrContains(page, kMarker));
    EXPECT_FALSE(absl::StrContains(page, "alert('note')"));
    const size_t count = std::vector<std::string>(absl::StrSplit(steps, kMarker)).size() - 1;
    EXPECT_EQ(count, show ? noted.size() : 0u) << "show_notes " << show;
    // In the steps' JSON, markup is escaped as protobuf escapes it (and so
    // in the decisions').
    EXPECT_FALSE(absl::StrContains(steps, "<script>")) << "show_notes " << show;
  }
}

TEST(BotNotesE2e, AnEditedCountIsRefusedByVerify) {
  testing::Workdir w("notes-edit");
  Played p = PlayNoted(w);
  ASSERT_GE(p.noter_seat, 0);
  for (auto& l : p.lines) {
    if (!l.has_decision()) continue;
    for (auto& a : *l.mutable_decision()->mutable_actions()) {
      if (testing::NoteKind(a.decision_id()) == 0 && a.seat() == p.noter_seat && a.note_cut_bytes() == 0 &&
          a.source() == v1::SeatAction::SOURCE_BOT) {
        a.set_note_cut_bytes(1000);  // "plain words": nothing was cut
        std::string out;
        for (const auto& line : p.lines) absl::StrAppend(&out, RecordLineToJson(line), "\n");
        const std::string edited = w.path() + "/edited.jsonl";
        std::ofstream(edited) << out;
        Cmd v = Sh(absl::StrCat(kBin, "/arena verify ", edited));
        EXPECT_EQ(v.code, 1) << v.output;
        EXPECT_TRUE(absl::StrContains(
            v.output, absl::StrCat("seat ", p.noter_seat, "'s action: note_cut_bytes says 1000 "
                                   "bytes were cut from a note of ")))
            << v.output;
        return;
      }
    }
  }
  FAIL() << "no plain note";
}

TEST(BotNotesE2e, AReproBundleHoldsTheFaultySeatsOwnNotes) {
  testing::Workdir w("notes-repro");
  // The noter hangs at its first decision from id 8 on: a timeout; the
  // bundle (arena tournament writes them) holds its requests up to that
  // one, the others each answered with its note.
  const std::string dir = w.path() + "/records";
  Cmd r = Sh(absl::StrCat(kBin, "/arena tournament --game pesten --games 2 --seed 50 --records ",
                          dir, " --decision_ms 2000 --bot noter=\"", kBin,
                          "/note_bot --hang_at 8\" --bot rnd=", kBin, "/random_bot"));
  std::vector<std::string> bundles;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/repro/noter", ec)) {
    bundles.push_back(e.path().string());
  }
  ASSERT_FALSE(bundles.empty()) << r.output;
  const std::string& bundle = bundles[0];
  v1::ReproBundle b;
  auto s = google::protobuf::util::JsonStringToMessage(testing::ReadFile(bundle), &b);
  ASSERT_TRUE(s.ok()) << s.ToString() << " " << bundle;
  int with_notes = 0;
  for (const auto& x : b.exchanges()) {
    if (x.answer().fault() != v1::FAULT_KIND_UNSPECIFIED || !x.answer().recorded()) continue;
    v1::SeatAction a;
    a.set_seat(b.seat());
    a.set_decision_id(x.answer().decision_id());
    a.set_action(x.answer().action());
    EXPECT_EQ(x.answer().note(), Expected(a).text) << x.answer().decision_id();
    EXPECT_EQ(x.answer().note_cut_bytes(), Expected(a).cut_bytes);
    ++with_notes;
  }
  EXPECT_GE(b.fault().decision_id(), 8u);
  EXPECT_EQ(with_notes, b.exchanges_size() - 1) << b.ShortDebugString();
  EXPECT_GE(with_notes, 3);
}

// A note that is not UTF-8 makes the message invalid protobuf, and one of
// 100 KiB makes it larger than the referee takes (64 KiB): either way the
// referee cannot read it and ends that bot's stream. Its seat faults at
// that decision; the record verifies, holds no note, and nothing else is
// hurt.
void ExpectOnlyItsOwnStreamEnds(const std::string& mode) {
  testing::Workdir w(absl::StrCat("notes-", mode));
  const std::string bot = w.Script(
      "invalid_note_bot", absl::StrCat("PYTHONPATH=", kBin, "/../python exec /usr/bin/python3 ",
                                       ARENA_SOURCE_DIR, "/tests/invalid_note_bot.py ", mode,
                                       "\n"));
  const std::string dir = w.path() + "/records";
  Cmd r = Sh(absl::StrCat(kBin, "/arena match --game pesten --seed 50 --records ", dir,
                          " --decision_ms 1500 --bot bad=", bot, " --bot rnd=", kBin,
                          "/random_bot"));
  auto lines = ReadRecordFile(testing::OnlyRecord(dir));
  ASSERT_TRUE(lines.ok()) << lines.status() << r.output;
  EXPECT_EQ(Sh(absl::StrCat(kBin, "/arena verify ", dir)).code, 0);
  const int bad = lines->at(0).header().seat_bots(0) == "bad" ? 0 : 1;
  int first_step = -1;
  const v1::Forfeit* forfeit = nullptr;
  for (const auto& l : *lines) {
    if (l.has_forfeit()) forfeit = &l.forfeit();
    if (!l.has_decision()) continue;
    for (const auto& a : l.decision().actions()) {
      EXPECT_EQ(a.note(), "");
      EXPECT_FALSE(a.seat() == bad && a.source() == v1::SeatAction::SOURCE_BOT)
          << "the unreadable answer was taken";
    }
  }
  ASSERT_NE(forfeit, nullptr) << r.output;
  EXPECT_EQ(forfeit->seat(), bad);
  // Its first request was its only one: the match ends there, the other
  // seat placed first.
  for (const auto& l : *lines) {
    if (l.has_decision()) first_step = std::max(first_step, l.decision().step());
  }
  EXPECT_LE(forfeit->step(), first_step + 1) << forfeit->ShortDebugString();
  EXPECT_TRUE(forfeit->fault() == v1::FAULT_KIND_DISCONNECTED ||
              forfeit->fault() == v1::FAULT_KIND_TIMEOUT ||
              forfeit->fault() == v1::FAULT_KIND_CRASHED)
      << forfeit->ShortDebugString();
  EXPECT_EQ(lines->back().result().placements(1 - bad), 1);
  EXPECT_TRUE(absl::StrContains(testing::ReadFile(dir + "/logs/bad.log"), "sent a note"));
}

TEST(BotNotesE2e, ANoteThatIsNotUtf8EndsOnlyItsOwnBotsStream) {
  ExpectOnlyItsOwnStreamEnds("utf8");
}

TEST(BotNotesE2e, ANoteOf100KiBEndsOnlyItsOwnBotsStream) { ExpectOnlyItsOwnStreamEnds("big"); }

TEST(BotNotesE2e, ThePythonBotWritesNotesWithNotes) {
  testing::Workdir w("notes-python");
  const std::string dir = w.path() + "/records";
  Cmd r = Sh(absl::StrCat(kBin, "/arena match --game pesten --seed 5 --records ", dir,
                          " --record_format jsonl --bot py=\"", kBin,
                          "/python_random_bot --notes\" --bot rnd=", kBin, "/random_bot"));
  ASSERT_EQ(r.code, 0) << r.output;
  auto lines = ReadRecordFile(testing::OnlyRecord(dir));
  ASSERT_TRUE(lines.ok()) << lines.status();
  int notes = 0;
  for (const auto& l : *lines) {
    if (!l.has_decision()) continue;
    for (const auto& a : l.decision().actions()) {
      if (a.note().empty()) continue;
      // "python: random 3 of 7": the index it played.
      EXPECT_TRUE(absl::StartsWith(a.note(), absl::StrCat("python: random ", a.action(), " of ")))
          << a.note();
      ++notes;
    }
  }
  EXPECT_GT(notes, 0);
  EXPECT_EQ(Sh(absl::StrCat(kBin, "/arena verify ", dir)).code, 0);
}

}  // namespace
}  // namespace arena
