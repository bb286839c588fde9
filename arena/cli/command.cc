#include "arena/cli/command.h"

#include <iostream>

namespace arena {

int Fail(const absl::Status& s) {
  std::cerr << "arena: " << s.message() << "\n";
  return 2;
}

}  // namespace arena
