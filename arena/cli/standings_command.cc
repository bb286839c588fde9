#include "arena/cli/standings_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "arena/cli/command.h"
#include "arena/records/folder.h"
#include "arena/stats/standings.h"

namespace arena {

int RunStandings(const StandingsCommandOptions& options) {
  const std::vector<std::string>& dirs = options.dirs;
  const std::string& out_dir = options.out_dir;
  for (size_t d = 0; d < dirs.size(); ++d) {
    for (size_t e = 0; e < d; ++e) {
      std::error_code ec;
      if (std::filesystem::equivalent(dirs[d], dirs[e], ec)) {
        return Fail(absl::InvalidArgumentError(absl::StrCat(
            dirs[d], " is given twice: its matches would count twice")));
      }
    }
  }
  const bool combine = dirs.size() > 1 || !out_dir.empty();
  absl::flat_hash_map<std::string, int> seen_ids;  // match id -> folder
  StandingsAccumulator all{StandingsContext{}};
  StandingsContext combined;
  int planned = 0;
  bool any_problem = false;
  std::vector<v1::EntrantReport> all_entrants;
  for (size_t d = 0; d < dirs.size(); ++d) {
    const std::string& dir = dirs[d];
    FolderContext folder(dir);
    if (absl::Status s = folder.Init(); !s.ok()) return Fail(s);
    StandingsAccumulator acc(folder.from_manifest() ? *folder.Get() : StandingsContext{});
    std::vector<std::string> problems;
    absl::Status walked = ForEachRecordSummary(
        dir, &problems,
        [&](const MatchSummary& m, const std::vector<v1::RecordLine>& lines) -> absl::Status {
          auto [it, fresh] = seen_ids.emplace(m.match_id, static_cast<int>(d));
          if (!fresh) {
            return absl::InvalidArgumentError(absl::StrCat(
                "match ", m.match_id, " is in both ", dirs[it->second], " and ", dir,
                ": combining them would count it twice"));
          }
          folder.See(m, lines);
          if (absl::Status s = acc.Add(m); !s.ok()) return s;
          return combine ? all.Add(m) : absl::OkStatus();
        });
    for (const auto& p : problems) std::cerr << "arena: skipped " << p << "\n";
    any_problem |= !problems.empty();
    if (!walked.ok()) return Fail(walked);
    auto context = folder.Get();
    if (!context.ok()) return Fail(context.status());
    const StandingsContext& ctx = *context;
    if (d == 0) {
      combined = ctx;
    } else if (ctx.game != combined.game || ctx.seats != combined.seats ||
               ctx.options != combined.options) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          dir, " holds ", ctx.game, " with ", ctx.seats, " seats, ", dirs[0],
          " ", combined.game, " with ", combined.seats,
          " seats (or other options): they cannot be combined")));
    }
    for (const auto& b : ctx.bots) {
      if (std::find(combined.bots.begin(), combined.bots.end(), b) == combined.bots.end()) {
        combined.bots.push_back(b);
      }
    }
    planned += ctx.matches_planned >= 0 ? ctx.matches_planned
                                        : static_cast<int>(acc.matches());
    acc.SetContext(ctx);
    auto st = acc.Build();
    if (!st.ok()) return Fail(st.status());
    // What the run knew of its bot processes, beyond the records.
    if (auto entrants = ReadEntrants(dir); entrants.ok()) {
      SetEntrants(*entrants, &*st);
      MergeEntrants(*entrants, &all_entrants);
    } else if (!absl::IsNotFound(entrants.status())) {
      std::cerr << "arena: skipped " << entrants.status().message() << "\n";
      any_problem = true;
    }
    if (absl::Status s = WriteStandings(*st, dir); !s.ok()) return Fail(s);
    std::cout << dir << ":\n" << StandingsTable(*st);
  }
  if (combine) {
    combined.matches_planned = planned;
    all.SetContext(combined);
    auto st = all.Build();
    if (!st.ok()) return Fail(st.status());
    SetEntrants(all_entrants, &*st);
    if (dirs.size() > 1) {
      std::cout << "all " << dirs.size() << " folders:\n" << StandingsTable(*st);
    }
    if (!out_dir.empty()) {
      if (absl::Status s = MakeRecordsDir(out_dir); !s.ok()) return Fail(s);
      if (absl::Status s = WriteStandings(*st, out_dir); !s.ok()) return Fail(s);
      std::cout << "combined standings (standings.json, standings.csv, "
                   "head_to_head.csv) in " << out_dir << "\n";
    }
  }
  return any_problem ? 1 : 0;
}

}  // namespace arena
