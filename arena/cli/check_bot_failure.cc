#include "arena/cli/check_bot_failure.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "arena/records/repro_bundle.h"
#include "arena/views/replay.h"
#include "referee/records/record.h"

namespace arena {
namespace {

// This program, by its absolute path: the re-run command then works as
// printed from the folder check-bot ran in, whether or not `arena` is on
// PATH ("arena" if the path cannot be read).
std::string ThisProgram() {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec || self.empty()) return "arena";
  // Rebuilt while it ran: the new one is at the same path.
  constexpr absl::string_view kDeleted = " (deleted)";
  if (absl::EndsWith(self, kDeleted)) self.resize(self.size() - kDeleted.size());
  return ShellWord(self);
}

}  // namespace

std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           absl::StrContains("/._-+=:,@%", c);
  });
  if (plain) return word;
  return absl::StrCat("'", absl::StrReplaceAll(word, {{"'", "'\\''"}}), "'");
}

// The bundle goes into `bot.dir`'s repro/ folder; the last steps shown are
// those of the seat's replay (arena replay FILE --seat S).
void PrintCheckFailure(const CheckFailure& f, const CheckedBot& bot, std::ostream& out) {
  out << "\nfirst failure: " << f.check << "\n  match: " << f.where << "\n  record: " << f.record
      << "\n";
  auto lines = ReadRecordFile(f.record);
  if (!lines.ok()) return;
  ReplayOptions ro;
  ro.seat = f.seat;
  ro.source = f.record;
  ro.notes = true;  // the bot's own, as arena replay --seat shows them
  auto replay = BuildReplay(*lines, ro);
  if (!replay.ok()) {
    out << "  (no replay: " << replay.status().message() << ")\n";
    return;
  }
  if (f.fault != v1::FAULT_KIND_UNSPECIFIED) {
    auto bundles = MakeReproBundles(*lines, f.record);
    const absl::Status made = bundles.status();
    if (!made.ok()) bundles = std::vector<v1::ReproBundle>();
    const v1::ReproBundle* own = nullptr;
    for (const v1::ReproBundle& b : *bundles) {
      if (b.seat() == f.seat && b.exchanges_size() > 0) own = &b;
    }
    const std::string path =
        own == nullptr ? "" : ReproBundlePath(bot.dir, own->match_id(), bot.name, own->seat());
    const absl::Status written = own == nullptr ? made : WriteReproBundle(path, *own);
    out << "  the request that faulted: "
        << (own != nullptr ? RequestText(own->match_start(),
                                         own->exchanges(own->exchanges_size() - 1).request())
                           : absl::StrCat("step ", f.fault_step))
        << "\n";
    if (own != nullptr && written.ok()) {
      out << "  repro bundle: " << path << "\n  re-run it: " << ThisProgram() << " replay-bot "
          << ShellWord(path) << (bot.sandboxed ? "" : " --inherit_env") << " -- " << bot.command
          << "\n";
    } else if (!written.ok()) {
      out << "  (no repro bundle: " << written.message() << ")\n";
    }
  }
  constexpr int kStepsShown = 3;
  auto* steps = replay->mutable_steps();
  int with_actions = 0, from = steps->size();
  while (from > 0 && with_actions < kStepsShown) {
    if ((*steps)[--from].actions_size() > 0) ++with_actions;
  }
  steps->DeleteSubrange(0, from);
  out << "  what seat " << f.seat << " was sent and answered at the end (all of it: "
      << "arena replay " << f.record << " --seat " << f.seat << "):\n";
  std::ostringstream text;
  PrintReplayText(*replay, text);
  for (absl::string_view l : absl::StrSplit(text.str(), '\n', absl::SkipEmpty())) {
    out << "    " << l << "\n";
  }
}

}  // namespace arena
