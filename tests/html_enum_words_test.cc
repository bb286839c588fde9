// The HTML replay page has words for every enum value its match shows, in
// every registered game: the protocol's own enums and the game's, which it
// registers (GameInfo::proto_files). A game added by docs/adding-a-game.md
// (tests/toy_game, built with ARENA_EXTRA_GAMES=tests/toy_game) gets them as
// a bundled game does.
#include <regex>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "arena/views/html.h"
#include "arena/views/replay.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace arena {
namespace {

// The JSON inside the page's <script ... id="`id`"> element.
std::string ScriptJson(const std::string& page, const std::string& id) {
  const std::string open =
      absl::StrCat("<script type=\"application/json\" id=\"", id, "\">");
  const size_t from = page.find(open);
  if (from == std::string::npos) return "";
  const size_t begin = from + open.size();
  const size_t end = page.find("</script>", begin);
  return end == std::string::npos ? "" : page.substr(begin, end - begin);
}

// Every string in `json` that the pages' script shows as an enum value
// (arena/views/html/common.js: /^[A-Z][A-Z0-9_]+$/).
std::set<std::string> EnumLikeStrings(const std::string& json) {
  std::set<std::string> out;
  static const std::regex kEnum("\"([A-Z][A-Z0-9_]+)\"");
  for (std::sregex_iterator it(json.begin(), json.end(), kEnum), end; it != end;
       ++it) {
    out.insert((*it)[1]);
  }
  return out;
}

// Whether `name` is a value of an enum in one of the game's own files.
bool IsGameEnumValue(const GameInfo& info, const std::string& name) {
  for (const google::protobuf::FileDescriptor* f : info.proto_files) {
    const std::string scoped =
        f->package().empty() ? name : absl::StrCat(f->package(), ".", name);
    const google::protobuf::EnumValueDescriptor* v =
        f->pool()->FindEnumValueByName(scoped);
    if (v != nullptr && v->type()->file() == f) return true;
  }
  return false;
}

class HtmlEnumWords : public ::testing::TestWithParam<std::string> {};

TEST_P(HtmlEnumWords, EveryEnumValueOfAReplayHasWords) {
  const std::string name = GetParam();
  const GameInfo* info = FindGameInfo(name);
  ASSERT_NE(info, nullptr);
  ASSERT_FALSE(info->proto_files.empty())
      << name << " registers no .proto files (GameInfo::proto_files)";
  auto game = CreateGame(name, {}, 0);
  ASSERT_TRUE(game.ok()) << game.status();
  MatchSpec spec;
  spec.game_name = name;
  spec.match_id = absl::StrCat(name, "-words");
  spec.seed = 7;
  spec.decision_cap = 400;  // a long game's words show in its first steps
  const testing::LocalMatch m =
      testing::PlayLocal(**game, spec, testing::RandomPolicy(7));
  absl::StatusOr<v1::Replay> replay =
      BuildReplay(testing::ParseOrFail(m.record_lines), {});
  ASSERT_TRUE(replay.ok()) << replay.status();
  const std::string page = ReplayPage(*replay, "../index.html");

  google::protobuf::Struct words;
  const std::string words_json = ScriptJson(page, "enum-words");
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(words_json, &words).ok())
      << words_json.substr(0, 200);
  std::string replay_json;
  google::protobuf::util::JsonPrintOptions po;
  po.always_print_primitive_fields = true;
  po.preserve_proto_field_names = true;
  ASSERT_TRUE(
      google::protobuf::util::MessageToJsonString(*replay, &replay_json, po)
          .ok());

  int own = 0;  // values of the game's own enums met
  for (const std::string& value : EnumLikeStrings(replay_json)) {
    const auto it = words.fields().find(value);
    if (IsGameEnumValue(*info, value)) {
      ++own;
      ASSERT_NE(it, words.fields().end())
          << name << "'s replay page has no words for " << value;
    }
    if (it == words.fields().end()) continue;  // not an enum: a plain string
    EXPECT_NE(it->second.string_value(), "") << value;
    EXPECT_NE(it->second.string_value(), value) << value;
  }
  EXPECT_GT(own, 0) << name << ": no value of the game's own enums in its "
                    << "replay, so nothing of them was checked";
}

TEST(HtmlEnumWords, TheToyGamesPhaseIsInWords) {
  if (FindGameInfo("toy") == nullptr) {
    GTEST_SKIP() << "configured without ARENA_EXTRA_GAMES=tests/toy_game";
  }
  v1::Replay replay;
  replay.mutable_header()->set_game("toy");
  const std::string page = ReplayPage(replay, "../index.html");
  google::protobuf::Struct words;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  ScriptJson(page, "enum-words"), &words)
                  .ok());
  auto word = [&](const std::string& value) -> std::string {
    const auto it = words.fields().find(value);
    return it == words.fields().end() ? "(no words)"
                                      : it->second.string_value();
  };
  EXPECT_EQ(word("TOY_PHASE_PLAYING"), "playing");
  EXPECT_EQ(word("TOY_PHASE_FINISHED"), "finished");
}

INSTANTIATE_TEST_SUITE_P(Games, HtmlEnumWords, ::testing::ValuesIn(GameNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param;
                         });

}  // namespace
}  // namespace arena
