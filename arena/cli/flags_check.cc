#include "arena/cli/flags_check.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace arena {
namespace {

// The usage flags absl handles without registering them as flags.
bool IsUsageFlag(absl::string_view name) {
  for (absl::string_view u : {"help", "helpfull", "helpshort", "helppackage", "version",
                              "only_check_args", "helpon", "helpmatch"}) {
    if (name == u) return true;
  }
  return false;
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The defined flag nearest to `name` (at most 2 edits away), or "".
std::string Nearest(absl::string_view name) {
  std::string best;
  size_t best_d = 3;
  for (const auto& [flag_name, flag] : absl::GetAllFlags()) {
    if (flag->IsRetired()) continue;
    const size_t d = EditDistance(name, flag_name);
    if (d < best_d || (d == best_d && std::string(flag_name) < best)) {
      best_d = d;
      best = std::string(flag_name);
    }
  }
  return best;
}

}  // namespace

absl::Status CheckCommandLineFlags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") break;  // the rest are arguments
    if (arg.size() < 2 || arg[0] != '-') continue;
    absl::string_view body = arg.substr(arg[1] == '-' ? 2 : 1);
    absl::string_view name = body, value;
    const size_t eq = body.find('=');
    const bool has_value = eq != absl::string_view::npos;
    if (has_value) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
    }
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("'", arg, "' is not a flag"));
    }
    if (IsUsageFlag(name)) continue;
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no")) {
      // --noNAME: false, for a bool flag only, and without a value.
      absl::CommandLineFlag* positive = absl::FindCommandLineFlag(name.substr(2));
      if (positive != nullptr && positive->IsOfType<bool>() && !positive->IsRetired()) {
        if (has_value) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", name, " takes no value (give --", name.substr(2), "=VALUE)"));
        }
        continue;
      }
    }
    if (flag == nullptr || flag->IsRetired()) {
      std::string message = absl::StrCat("unknown flag --", name);
      if (const std::string near = Nearest(name); !near.empty()) {
        absl::StrAppend(&message, " (did you mean --", near, "?)");
      }
      return absl::InvalidArgumentError(message);
    }
    std::string given;
    if (has_value) {
      given = std::string(value);
    } else if (flag->IsOfType<bool>()) {
      given = "true";
    } else if (i + 1 < argc) {
      given = argv[++i];  // --NAME VALUE, as absl reads it
    } else {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
    }
    std::string error;
    if (!flag->ParseFrom(given, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, "=", given, ": ", error));
    }
  }
  return absl::OkStatus();
}

}  // namespace arena
