#include "arena/cli/command.h"

#include <iostream>

#include "absl/strings/str_cat.h"

namespace arena {

int Fail(const absl::Status& s) {
  std::cerr << "arena: " << s.message() << "\n";
  return 2;
}

absl::StatusOr<std::pair<std::string, std::string>> SplitFlagPair(const char* flag,
                                                                  const std::string& text,
                                                                  const char* form,
                                                                  bool need_right) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || (need_right && eq + 1 == text.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " '", text, "' is not ", form));
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

}  // namespace arena
