// arena html: the site from a records folder; bad records and hostile names.
#include "arena/views/html.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace arena {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class HtmlSite : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/arena_html_testXXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(absl::StrCat("rm -rf '", dir_, "'").c_str()); }

  // Plays a quasenbo match between bots with these names into dir_.
  void Play(const std::string& id, std::vector<std::string> names, bool tamper = false) {
    auto game = CreateGame("quasenbo", {}, 2);
    ASSERT_TRUE(game.ok());
    MatchSpec spec;
    spec.game_name = "quasenbo";
    spec.match_id = id;
    spec.seed = 5;
    spec.seat_bots = std::move(names);
    auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(5));
    std::ofstream f(absl::StrCat(dir_, "/", id, ".jsonl"));
    for (size_t i = 0; i < m.record_lines.size(); ++i) {
      std::string line = m.record_lines[i];
      if (tamper && i + 1 == m.record_lines.size()) line = "{\"result\": {\"scores\": [9, 9]}}";
      f << line << "\n";
    }
  }
  std::string dir_;
};

TEST_F(HtmlSite, WritesAnIndexAndOneReplayPagePerRecord) {
  Play("m1", {"alice", "bob"});
  Play("m2", {"bob", "alice"});
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  EXPECT_EQ(site->records, 2);
  EXPECT_EQ(site->replay_pages, 2);
  EXPECT_TRUE(site->failures.empty()) << absl::StrJoin(site->failures, "\n");
  const std::string index = Slurp(absl::StrCat(dir_, "/html/index.html"));
  EXPECT_TRUE(absl::StrContains(index, "replays/m1.html"));
  EXPECT_TRUE(absl::StrContains(index, "replays/m2.html"));
  const std::string page = Slurp(absl::StrCat(dir_, "/html/replays/m1.html"));
  EXPECT_TRUE(absl::StrContains(page, "data-encoding=\"gzip+base64\""));
  // Self-contained: nothing is fetched from elsewhere.
  for (const std::string& p : {index, page}) {
    for (const char* ref : {"src=\"http", "href=\"http", "url(http", "@import", "fetch(",
                            "XMLHttpRequest", "//cdn"}) {
      EXPECT_FALSE(absl::StrContains(p, ref)) << "a network reference: " << ref;
    }
    EXPECT_FALSE(absl::StrContains(p, "<script src")) << "an external script";
    EXPECT_FALSE(absl::StrContains(p, "<link")) << "an external stylesheet";
  }
}

TEST_F(HtmlSite, ABadRecordIsListedWithItsErrorAndGetsNoPage) {
  Play("good", {"a", "b"});
  Play("bad", {"a", "b"}, /*tamper=*/true);
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  EXPECT_EQ(site->replay_pages, 1);
  ASSERT_EQ(site->failures.size(), 1u);
  EXPECT_TRUE(absl::StrContains(site->failures[0], "bad.jsonl")) << site->failures[0];
  const std::string index = Slurp(absl::StrCat(dir_, "/html/index.html"));
  EXPECT_TRUE(absl::StrContains(index, "\"file\":\"bad.jsonl\",\"error\":")) << "not listed";
  struct stat st;
  EXPECT_NE(::stat(absl::StrCat(dir_, "/html/replays/bad.html").c_str(), &st), 0);
}

TEST_F(HtmlSite, AHostileBotNameCannotEndTheScriptElement) {
  const std::string evil = "</script><script>alert(1)</script>";
  Play("m1", {evil, "b"});
  auto site = WriteHtmlSite(dir_, {});
  ASSERT_TRUE(site.ok()) << site.status();
  const std::string index = Slurp(absl::StrCat(dir_, "/html/index.html"));
  EXPECT_FALSE(absl::StrContains(index, evil));
  // The name is there, escaped (protobuf's JSON writes < as \u003c).
  EXPECT_TRUE(absl::StrContains(index, "script>alert(1)") ||
              absl::StrContains(index, "script\\u003ealert(1)"));
}

TEST_F(HtmlSite, MaxReplaysLimitsThePages) {
  Play("m1", {"a", "b"});
  Play("m2", {"a", "b"});
  HtmlOptions o;
  o.max_replays = 1;
  o.out_dir = absl::StrCat(dir_, "/site");
  auto site = WriteHtmlSite(dir_, o);
  ASSERT_TRUE(site.ok()) << site.status();
  EXPECT_EQ(site->replay_pages, 1);
  EXPECT_EQ(site->records, 2);
  EXPECT_EQ(site->out_dir, o.out_dir);
}

TEST_F(HtmlSite, NoFolderOrNoRecordsIsAnError) {
  auto none = WriteHtmlSite(absl::StrCat(dir_, "/absent"), {});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::StrContains(none.status().message(), "no such folder"));
  auto empty = WriteHtmlSite(dir_, {});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(absl::StrContains(empty.status().message(), "no records"));
}

}  // namespace
}  // namespace arena
