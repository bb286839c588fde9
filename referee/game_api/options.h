// Reading a game's options (string key=value pairs from the config or
// --option flags) with errors that name the option and the allowed values.
// Unknown option names are refused by Finish().
#ifndef ARENA_REFEREE_GAME_API_OPTIONS_H_
#define ARENA_REFEREE_GAME_API_OPTIONS_H_

#include <set>
#include <string>

#include "absl/status/status.h"
#include "referee/game_api/game.h"

namespace arena {

class OptionReader {
 public:
  OptionReader(const Options& options, const GameInfo& info)
      : options_(options), info_(info) {}

  // Reads a boolean ("true"/"false"/"1"/"0"); records the first error.
  bool Bool(const std::string& name, bool default_value);
  // Reads an integer in [min, max]; records the first error.
  int Int(const std::string& name, int default_value, int min, int max);
  // Reads one of `allowed`; records the first error.
  std::string Choice(const std::string& name, const std::string& default_value,
                     const std::set<std::string>& allowed);
  // Reads any string.
  std::string String(const std::string& name, const std::string& default_value);

  // The first error met, or an error naming an unknown option, or OK.
  absl::Status Finish() const;

 private:
  const std::string* Find(const std::string& name);
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  const Options& options_;
  const GameInfo& info_;
  std::set<std::string> used_;
  absl::Status status_;
};

}  // namespace arena

#endif  // ARENA_REFEREE_GAME_API_OPTIONS_H_
