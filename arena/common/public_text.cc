#include "arena/common/public_text.h"

#include <regex>

namespace arena {

std::string PublicText(absl::string_view text) {
  // What may come before a path, the folders, then its last component
  // (empty for a path ending in '/', whose last folder is kept instead).
  static const std::regex* const kPath = new std::regex(
      R"re((^|[\s"'(=:])/(?:[^\s"'(),:/]+/)*?([^\s"'(),:/]+)?/?(?=$|[\s"'(),:]))re");
  return std::regex_replace(std::string(text), *kPath, "$1$2");
}

}  // namespace arena
