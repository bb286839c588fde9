#include "referee/games/quabble/assets.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "quabble_default_assets.h"  // generated: kQuabbleDefaultAssets

namespace arena {
namespace quabble {
namespace {

using google::protobuf::TextFormat;

uint64_t Fnv1a(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Collects the text-format parser's first error.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (line_ >= 0) return;
    line_ = line;
    column_ = column;
    message_ = message;
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}
  int line_ = -1;
  int column_ = -1;
  std::string message_;
};

// What a power needs besides its value: amount range and default (the
// shipped table's number), target, threshold and its default.
struct PowerNeeds {
  bool amount = false;
  int amount_min = 0;
  int amount_max = 0;
  int amount_default = 0;
  bool target = false;
  bool threshold = false;
  int threshold_default = 0;
};

PowerNeeds NeedsOf(v1::QuabblePower p) {
  PowerNeeds n;
  auto amount = [&n](int lo, int hi, int def) {
    n.amount = true;
    n.amount_min = lo;
    n.amount_max = hi;
    n.amount_default = def;
  };
  switch (p) {
    case v1::QUABBLE_POWER_SET_SQUARE:
      amount(-kMaxValue, kMaxValue, 1);  // n cards: amount*n*n
      break;
    case v1::QUABBLE_POWER_NEIGHBOUR_BONUS:
      amount(1, kMaxValue, 1);
      break;
    case v1::QUABBLE_POWER_NEIGHBOUR_PENALTY:
      amount(1, kMaxValue, 2);
      break;
    case v1::QUABBLE_POWER_MAJORITY:
      amount(1, kMaxValue, 6);
      break;
    case v1::QUABBLE_POWER_SINGLETON:
      amount(-kMaxValue, kMaxValue, 8);
      break;
    case v1::QUABBLE_POWER_DOUBLE_TARGET:
      n.target = true;
      break;
    case v1::QUABBLE_POWER_SLAY_TARGET:
      n.target = true;
      amount(0, kMaxValue, 2);
      break;
    case v1::QUABBLE_POWER_CURSE:
      amount(-kMaxValue, kMaxValue, -5);
      n.threshold = true;
      n.threshold_default = 2;
      break;
    default:
      break;
  }
  return n;
}

// Names the asset entry and the field around a parse error at (line,
// column), both 0-based, e.g. " (in asset 'Very Rare Eggs', field amount)";
// empty when the error is outside an asset entry. Uses protobuf's own
// tokenizer, so it reads the text as the parser does.
std::string ParseErrorPlace(absl::string_view text, int line, int column) {
  using google::protobuf::io::Tokenizer;
  google::protobuf::io::ArrayInputStream in(text.data(),
                                            static_cast<int>(text.size()));
  FirstError ignored;
  Tokenizer tok(&in, &ignored);
  auto before = [&](const Tokenizer::Token& t) {
    return t.line < line || (t.line == line && t.column <= column);
  };
  int depth = 0;
  int entry = 0;         // asset entries opened so far
  int error_entry = -1;  // the entry the error lies in
  std::string field, name, prev, prev2;
  while (tok.Next()) {
    const Tokenizer::Token& t = tok.current();
    if (error_entry < 0 && !before(t)) {
      if (depth == 0) return "";
      error_entry = entry;
    }
    if (t.text == "{" || t.text == "<") {
      if (depth == 0 && prev == "assets") {
        ++entry;
        name.clear();
      }
      ++depth;
    } else if (t.text == "}" || t.text == ">") {
      if (--depth <= 0 && error_entry >= 0) break;
    } else if (t.type == Tokenizer::TYPE_IDENTIFIER && depth == 1 &&
               error_entry < 0 && prev != ":") {
      field = t.text;
    } else if (t.type == Tokenizer::TYPE_STRING && depth == 1 &&
               prev == ":" && prev2 == "name") {
      Tokenizer::ParseString(t.text, &name);
    }
    prev2 = prev;
    prev = t.text;
  }
  if (error_entry < 0 && depth >= 1) error_entry = entry;
  if (error_entry < 0) return "";
  std::string out = name.empty()
                        ? absl::StrCat(" (in asset ", error_entry, ", no name")
                        : absl::StrCat(" (in asset '", name, "'");
  if (!field.empty()) absl::StrAppend(&out, ", field ", field);
  return absl::StrCat(out, ")");
}

// Moves (line, column) back to the last whole-word occurrence of `word`
// that starts at or before it (0-based; columns count bytes, tabs as one).
void LocateBefore(absl::string_view text, const std::string& word, int* line,
                  int* column) {
  if (word.empty()) return;
  int l = 0, c = 0, best_l = -1, best_c = -1;
  auto is_word = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (l > *line || (l == *line && c > *column)) break;
    if (text.compare(i, word.size(), word) == 0 &&
        (i == 0 || !is_word(text[i - 1])) &&
        (i + word.size() == text.size() || !is_word(text[i + word.size()]))) {
      best_l = l;
      best_c = c;
    }
    if (text[i] == '\n') {
      ++l;
      c = 0;
    } else {
      ++c;
    }
  }
  if (best_l >= 0) {
    *line = best_l;
    *column = best_c;
  }
}

}  // namespace

absl::string_view DefaultAssetListText() { return kQuabbleDefaultAssets; }

absl::StatusOr<std::shared_ptr<const Catalogue>> ParseAssetList(
    absl::string_view text, const std::string& source, int num_seats) {
  auto where = [&](int line, int column) {
    return absl::StrCat("quabble: asset list ", source, ", line ", line + 1,
                        ", column ", column + 1, ": ");
  };
  v1::QuabbleAssetList list;
  TextFormat::ParseInfoTree tree;
  FirstError errors;
  TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(std::string(text), &list)) {
    int line = std::max(errors.line_, 0), column = std::max(errors.column_, 0);
    // The parser reports an unknown field name or enum value at the token
    // after it; point at the name itself.
    if (absl::StrContains(errors.message_, "no field named") ||
        absl::StrContains(errors.message_, "Unknown enumeration value")) {
      const size_t q = errors.message_.find('"', errors.message_.find(
          absl::StrContains(errors.message_, "no field named")
              ? "no field named" : "value of"));
      const size_t q2 = q == std::string::npos ? q : errors.message_.find('"', q + 1);
      if (q2 != std::string::npos) {
        LocateBefore(text, errors.message_.substr(q + 1, q2 - q - 1), &line,
                     &column);
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        where(line, column),
        errors.message_.empty() ? "cannot parse" : errors.message_,
        ParseErrorPlace(text, line, column)));
  }
  const auto* assets_field =
      v1::QuabbleAssetList::descriptor()->FindFieldByName("assets");
  const auto* d = v1::QuabbleAsset::descriptor();
  // Where asset i (or one of its fields) was written.
  auto at = [&](int i, const char* field) {
    TextFormat::ParseLocation loc = tree.GetLocation(assets_field, i);
    if (field != nullptr) {
      const TextFormat::ParseInfoTree* nested =
          tree.GetTreeForNested(assets_field, i);
      if (nested != nullptr) {
        TextFormat::ParseLocation f =
            nested->GetLocation(d->FindFieldByName(field), -1);
        if (f.line >= 0) loc = f;
      }
    }
    return where(std::max(loc.line, 0), std::max(loc.column, 0));
  };
  auto fail = [](std::string m) {
    return absl::InvalidArgumentError(std::move(m));
  };
  if (list.assets_size() == 0) {
    return fail(absl::StrCat("quabble: asset list ", source,
                             ": no assets (the list needs at least one "
                             "`assets { ... }` entry)"));
  }
  if (list.assets_size() > kMaxAssets) {
    return fail(absl::StrCat(at(kMaxAssets, nullptr), "too many assets: ",
                             list.assets_size(), " (at most ", kMaxAssets,
                             ")"));
  }
  auto cat = std::make_shared<Catalogue>();
  cat->source = source;
  int total = 0;
  for (int i = 0; i < list.assets_size(); ++i) {
    const v1::QuabbleAsset& a = list.assets(i);
    const std::string label = absl::StrCat("asset '", a.name(), "'");
    if (a.name().empty()) {
      return fail(absl::StrCat(at(i, nullptr), "asset ", i + 1,
                               " has no name"));
    }
    for (int j = 0; j < i; ++j) {
      if (list.assets(j).name() == a.name()) {
        return fail(absl::StrCat(at(i, "name"), "duplicate name '", a.name(),
                                 "' (also asset ", j + 1, ")"));
      }
    }
    if (a.count() < 1 || a.count() > kMaxCount) {
      return fail(absl::StrCat(at(i, "count"), label, ": count ", a.count(),
                               " is out of range (1 to ", kMaxCount, ")"));
    }
    if (a.value() < -kMaxValue || a.value() > kMaxValue) {
      return fail(absl::StrCat(at(i, "value"), label, ": value ", a.value(),
                               " is out of range (", -kMaxValue, " to ",
                               kMaxValue, ")"));
    }
    if (a.power() == v1::QUABBLE_POWER_UNSPECIFIED) {
      return fail(absl::StrCat(at(i, nullptr), label,
                               ": no power given (write power: "
                               "QUABBLE_POWER_NONE for none)"));
    }
    if (!v1::QuabblePower_IsValid(a.power())) {
      return fail(absl::StrCat(at(i, "power"), label, ": unknown power ",
                               static_cast<int>(a.power())));
    }
    const PowerNeeds needs = NeedsOf(a.power());
    const std::string power_name = v1::QuabblePower_Name(a.power());
    // A number left out takes the shipped table's number for the power.
    int amount = 0, threshold = 0;
    if (needs.amount) {
      amount = a.has_amount() ? a.amount() : needs.amount_default;
      if (amount < needs.amount_min || amount > needs.amount_max) {
        return fail(absl::StrCat(at(i, "amount"), label, ": amount ",
                                 amount, " is out of range for ", power_name,
                                 " (", needs.amount_min, " to ",
                                 needs.amount_max, ")"));
      }
    } else if (a.amount() != 0) {
      return fail(absl::StrCat(at(i, "amount"), label, ": ", power_name,
                               " takes no amount"));
    }
    if (needs.threshold) {
      threshold = a.has_threshold() ? a.threshold() : needs.threshold_default;
      if (threshold < 1 || threshold > kMaxThreshold) {
        return fail(absl::StrCat(at(i, "threshold"), label, ": threshold ",
                                 threshold, " is out of range (1 to ",
                                 kMaxThreshold, ")"));
      }
    } else if (a.threshold() != 0) {
      return fail(absl::StrCat(at(i, "threshold"), label, ": ", power_name,
                               " takes no threshold"));
    }
    int target = -1;
    if (needs.target) {
      if (a.target().empty()) {
        return fail(absl::StrCat(at(i, nullptr), label, ": ", power_name,
                                 " needs a target asset"));
      }
      if (a.target() == a.name()) {
        return fail(absl::StrCat(at(i, "target"), label,
                                 ": the target is the asset itself"));
      }
      for (int j = 0; j < list.assets_size(); ++j) {
        if (list.assets(j).name() == a.target()) target = j;
      }
      if (target < 0) {
        return fail(absl::StrCat(at(i, "target"), label, ": unknown target '",
                                 a.target(), "'"));
      }
      if (target > i) {
        return fail(absl::StrCat(
            at(i, "target"), label, ": target '", a.target(),
            "' comes later in the list; powers act in list order, so a "
            "target must come before the asset that acts on it"));
      }
      const v1::QuabblePower tp = list.assets(target).power();
      if (tp == v1::QUABBLE_POWER_DOUBLE_TARGET ||
          tp == v1::QUABBLE_POWER_SLAY_TARGET) {
        return fail(absl::StrCat(at(i, "target"), label, ": target '",
                                 a.target(), "' itself acts on another asset"));
      }
      for (int j = 0; j < i; ++j) {
        if (list.assets(j).target() == a.target()) {
          return fail(absl::StrCat(at(i, "target"), label, ": target '",
                                   a.target(), "' is already the target of '",
                                   list.assets(j).name(), "'"));
        }
      }
    } else if (!a.target().empty()) {
      return fail(absl::StrCat(at(i, "target"), label, ": ", power_name,
                               " takes no target"));
    }
    total += a.count();
    if (total > kMaxCards) {
      return fail(absl::StrCat(at(i, "count"), label, ": the deck would have ",
                               total, " cards, more than ", kMaxCards));
    }
    Catalogue::Asset asset;
    asset.name = a.name();
    asset.count = a.count();
    asset.value = a.value();
    asset.power = a.power();
    asset.amount = amount;
    asset.target = target;
    asset.threshold = threshold;
    asset.text = a.text();
    cat->first_card.push_back(cat->num_cards());
    for (int c = 0; c < a.count(); ++c) {
      cat->card_asset.push_back(static_cast<uint8_t>(i));
    }
    cat->assets.push_back(std::move(asset));
  }
  if (num_seats > 0 && total < num_seats * kHandSize) {
    return fail(absl::StrCat(
        "quabble: asset list ", source, ": the deck has ", total,
        " cards in all, too few to deal ", kHandSize, " to each of ",
        num_seats, " seats (", num_seats * kHandSize, " needed)"));
  }
  // The fingerprint is of the list as written; the list sent in the rules
  // carries every number in force, defaults filled in.
  std::string bytes;
  list.SerializeToString(&bytes);
  cat->fingerprint = Fnv1a(bytes);
  for (int i = 0; i < list.assets_size(); ++i) {
    const PowerNeeds needs = NeedsOf(list.assets(i).power());
    if (needs.amount) list.mutable_assets(i)->set_amount(cat->assets[i].amount);
    if (needs.threshold) {
      list.mutable_assets(i)->set_threshold(cat->assets[i].threshold);
    }
  }
  cat->list = std::move(list);
  return std::shared_ptr<const Catalogue>(std::move(cat));
}

absl::StatusOr<std::shared_ptr<const Catalogue>> LoadAssetFile(
    const std::string& path, int num_seats) {
  // Only a regular file of bounded size is read: a device or FIFO could
  // block or never end, and a huge file is refused without being echoed.
  constexpr std::uintmax_t kMaxAssetFileBytes = 1 << 20;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quabble: cannot read the asset file '", path,
        "' (option assets): no such file, or not readable"));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quabble: the asset file '", path,
        "' (option assets) is not a regular file"));
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxAssetFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quabble: the asset file '", path, "' (option assets) is ",
        ec ? std::string("of unknown size") : absl::StrCat(size, " bytes"),
        "; at most 1 MiB (1048576 bytes) is accepted"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quabble: cannot read the asset file '", path,
        "' (option assets): no such file, or not readable"));
  }
  std::string text(kMaxAssetFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxAssetFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quabble: the asset file '", path,
        "' (option assets) is over 1 MiB (1048576 bytes)"));
  }
  return ParseAssetList(text, path, num_seats);
}

}  // namespace quabble
}  // namespace arena
