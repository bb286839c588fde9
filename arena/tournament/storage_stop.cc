#include "arena/tournament/storage_stop.h"

#include <string>

#include "referee/records/storage_fault.h"
#include "spdlog/spdlog.h"

namespace arena {

bool StorageStop::Check(const std::function<int()>& live) {
  if (stopped_) return true;
  const absl::Status fault = FirstStorageFault();
  if (fault.ok()) return false;
  stopped_ = true;
  spdlog::error("{}; no further match is started ({} live ones end first)",
                std::string(fault.message()), live());
  return true;
}

}  // namespace arena
