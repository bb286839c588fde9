// The zstd dictionaries of compact records (docs/records.md), one or more
// per game, compiled in: each game's folder lists its dictionary files in
// arena_add_game(... RECORD_DICTIONARIES ...), and the build embeds them
// (referee/games/CMakeLists.txt generates the definition of
// CompiledRecordDictionaries). A game's last dictionary compresses its new
// records; every one stays, so that records compressed with an earlier one
// still read. A dictionary is known by the id in its own header, which the
// zstd frame of a record names; ids are unique across games (a test checks).
//
// Thread safety: immutable after first use; safe from any thread.
#ifndef ARENA_REFEREE_RECORDS_RECORD_DICTIONARIES_H_
#define ARENA_REFEREE_RECORDS_RECORD_DICTIONARIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace arena {

struct RecordDictionary {
  std::string game;
  absl::string_view bytes;  // a zstd dictionary, static storage
};

// Every dictionary compiled into this program, in the order the games list
// them (generated at build time).
const std::vector<RecordDictionary>& CompiledRecordDictionaries();

}  // namespace arena

#endif  // ARENA_REFEREE_RECORDS_RECORD_DICTIONARIES_H_
