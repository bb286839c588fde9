#include "arena/cli/record_commands.h"

#include <fstream>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "arena/cli/command.h"
#include "arena/records/record_tools.h"
#include "arena/views/replay.h"
#include "referee/games/registry.h"
#include "referee/records/record.h"

namespace arena {

int RunVerify(const std::string& path) {
  VerifySummary sum = VerifyPath(path);
  for (const auto& f : sum.failures) std::cout << "FAIL " << f << "\n";
  std::cout << sum.passed << " of " << sum.files << " records verified";
  if (sum.standings_checked > 0) {
    std::cout << (sum.standings_passed == sum.standings_checked
                      ? "; the standings agree with them"
                      : "; the standings DO NOT agree with them");
  }
  if (!sum.failures.empty()) std::cout << ", " << sum.failures.size() << " FAILED";
  std::cout << "\n";
  return sum.failures.empty() && sum.files > 0 ? 0 : 1;
}

int RunCat(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& file : files) {
    auto lines = ReadRecordFile(file);
    if (!lines.ok()) {
      std::cout << std::flush;
      return Fail(lines.status());
    }
    out.clear();
    for (const v1::RecordLine& l : *lines) {
      out += RecordLineToJson(l);
      out += '\n';
    }
    std::cout << out;
  }
  std::cout << std::flush;
  return std::cout.good() ? 0 : 2;
}

int RunReplay(const ReplayCommandOptions& options) {
  auto lines = ReadRecordFile(options.file);
  if (!lines.ok()) return Fail(lines.status());
  ReplayOptions ro;
  ro.seat = options.seat;
  ro.step = options.step;
  ro.source = options.file;
  ro.notes = true;  // the bots' notes: whoever reads the record may read them
  // The replay is streamed (its memory is one step's, not the match's). So
  // that a record that does not verify prints nothing, the whole record is
  // verified first (about a tenth of the replay's time); up to a --step,
  // only as far as that step, as before.
  if (ro.step < 0) {
    if (absl::Status s = VerifyRecord(*lines, options.file); !s.ok()) return Fail(s);
  }
  if (const std::string& json = options.json; json == "-") {
    ReplayJsonSink sink(std::cout);
    if (absl::Status s = StreamReplay(*lines, ro, sink); !s.ok()) return Fail(s);
  } else if (!json.empty()) {
    std::ofstream out(json);
    ReplayJsonSink sink(out);
    if (absl::Status s = StreamReplay(*lines, ro, sink); !s.ok()) return Fail(s);
    out.close();
    if (!out.good()) return Fail(absl::UnavailableError(absl::StrCat("cannot write ", json)));
  } else {
    ReplayTextSink sink(std::cout);
    if (absl::Status s = StreamReplay(*lines, ro, sink); !s.ok()) return Fail(s);
  }
  return 0;
}

int RunHtml(const std::string& dir, const HtmlOptions& options) {
  if (options.max_replays < -1) {
    return Fail(absl::InvalidArgumentError("--replays N: N is 0 or more (-1: all)"));
  }
  auto site = WriteHtmlSite(dir, options);
  if (!site.ok()) return Fail(site.status());
  for (const auto& f : site->failures) std::cout << "FAIL " << f << "\n";
  std::cout << site->records << " records, " << site->replay_pages << " replay pages: "
            << site->out_dir << "/index.html\n";
  return site->failures.empty() ? 0 : 1;
}

int RunGames() {
  for (const auto& g : GameNames()) {
    const GameInfo* info = FindGameInfo(g);
    std::cout << g << " (" << info->min_seats << "-" << info->max_seats
              << " seats, default " << info->default_seats << ")\n";
    for (const auto& [k, help] : info->options) std::cout << "  --option " << k << "=...: " << help << "\n";
  }
  return 0;
}

}  // namespace arena
