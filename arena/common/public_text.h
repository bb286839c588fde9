// Text for the public (standings, the HTML site, CI reports) that names no
// path of the organiser's machine: a bot that failed to start is named by
// its entrant name and its command's basename, not by where its files lie.
// The organiser's log keeps the full text.
//
// PublicText replaces every absolute path in `text` (a '/' at the start, or
// after a blank, a quote, '(', '=' or ':', up to the next blank, quote,
// parenthesis, comma or ':') by its last component: "exec: /srv/c/bot: not
// found" becomes "exec: bot: not found", and `File "/home/a/my_bot.py",
// line 3` becomes `File "my_bot.py", line 3`. A path that ends in '/' keeps
// its last folder's name. Nothing else changes.
//
// Thread safety: a plain function.
#ifndef ARENA_ARENA_COMMON_PUBLIC_TEXT_H_
#define ARENA_ARENA_COMMON_PUBLIC_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace arena {

std::string PublicText(absl::string_view text);

}  // namespace arena

#endif  // ARENA_ARENA_COMMON_PUBLIC_TEXT_H_
