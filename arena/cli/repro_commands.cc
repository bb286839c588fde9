#include "arena/cli/repro_commands.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "arena/cli/command.h"
#include "arena/records/seat_transcript.h"
#include "referee/records/record.h"
#include "referee/records/stdio_json.h"

namespace arena {

int RunReplayRequests(const std::string& file, int seat) {
  auto lines = ReadRecordFile(file);
  if (!lines.ok()) return Fail(lines.status());
  auto transcripts = SeatTranscripts(*lines, file);
  if (!transcripts.ok()) return Fail(transcripts.status());
  if (seat < 0 || seat >= static_cast<int>(transcripts->size())) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "--seat ", seat, ": the match has seats 0 to ", transcripts->size() - 1)));
  }
  for (const v1::RefereeMessage& m : (*transcripts)[seat].Messages()) {
    std::cout << StdioJsonLine(m);
  }
  std::cout.flush();
  return std::cout.good() ? 0 : Fail(absl::UnavailableError("cannot write to stdout"));
}

void ReportReproBundles(const ReproBundleWriter::Totals& totals,
                        const std::string& records_dir) {
  if (totals.written > 0) {
    std::cout << totals.written << " repro bundles (what a bot was sent up to its fault; "
              << "arena replay-bot BUNDLE -- COMMAND re-feeds it) in " << records_dir << "/"
              << kReproDir << "/\n";
  }
  if (totals.capped > 0) {
    std::cout << totals.capped << " more matches with a fault have no repro bundle (at most "
              << ReproBundleWriter::kMaxMatchesPerBot << " matches a bot, its first)\n";
  }
  if (totals.no_show > 0) {
    std::cout << totals.no_show << " matches with a fault have only no-shows of a withdrawn "
              << "bot: no repro bundle (it was sent nothing; its cause is in its withdrawal)\n";
  }
  if (totals.failed > 0) {
    std::cerr << "arena: " << totals.failed
              << " repro bundles could not be written (see the log); the records are whole\n";
  }
}

}  // namespace arena
