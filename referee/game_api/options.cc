#include "referee/game_api/options.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace arena {

const std::string* OptionReader::Find(const std::string& name) {
  used_.insert(name);
  auto it = options_.find(name);
  return it == options_.end() ? nullptr : &it->second;
}

bool OptionReader::Bool(const std::string& name, bool default_value) {
  const std::string* v = Find(name);
  if (v == nullptr) return default_value;
  bool out;
  if (!absl::SimpleAtob(*v, &out)) {
    Fail(absl::InvalidArgumentError(absl::StrCat(
        info_.name, ": option ", name, "=", *v, " is not true or false")));
    return default_value;
  }
  return out;
}

int OptionReader::Int(const std::string& name, int default_value, int min,
                      int max) {
  const std::string* v = Find(name);
  if (v == nullptr) return default_value;
  int out;
  if (!absl::SimpleAtoi(*v, &out) || out < min || out > max) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat(info_.name, ": option ", name, "=", *v,
                     " must be a whole number from ", min, " to ", max)));
    return default_value;
  }
  return out;
}

std::string OptionReader::Choice(const std::string& name,
                                 const std::string& default_value,
                                 const std::set<std::string>& allowed) {
  const std::string* v = Find(name);
  if (v == nullptr) return default_value;
  if (allowed.count(*v) == 0) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat(info_.name, ": option ", name, "=", *v, " must be one of ",
                     absl::StrJoin(allowed, ", "))));
    return default_value;
  }
  return *v;
}

std::string OptionReader::String(const std::string& name,
                                 const std::string& default_value) {
  const std::string* v = Find(name);
  return v == nullptr ? default_value : *v;
}

absl::Status OptionReader::Finish() const {
  if (!status_.ok()) return status_;
  for (const auto& [key, value] : options_) {
    if (used_.count(key) == 0) {
      std::vector<std::string> known;
      for (const auto& [k, help] : info_.options) known.push_back(k);
      return absl::InvalidArgumentError(absl::StrCat(
          info_.name, ": unknown option '", key, "' (known: ",
          known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace arena
