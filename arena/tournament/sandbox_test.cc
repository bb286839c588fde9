// BwrapArgs: what of the host a sandboxed bot gets to see.
#include "arena/tournament/sandbox.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace arena {
namespace {

bool Binds(const std::vector<std::string>& args, const std::string& path) {
  for (size_t i = 0; i + 2 < args.size(); ++i) {
    if (args[i] == "--ro-bind" && args[i + 1] == path && args[i + 2] == path) return true;
  }
  return false;
}

// A bot command given relative to the working folder, through a link whose
// target lies in another folder of /tmp (a checkout in a temporary folder,
// its build/bin linked from where arena runs): the link's target folder is
// bound too, or the bot's program is not there inside the sandbox.
TEST(BwrapArgs, BindsTheTargetOfALinkedRelativeCommand) {
  char checkout[] = "/tmp/sandbox_checkout.XXXXXX";
  char work[] = "/tmp/sandbox_work.XXXXXX";
  ASSERT_NE(::mkdtemp(checkout), nullptr);
  ASSERT_NE(::mkdtemp(work), nullptr);
  const std::string bin = std::string(checkout) + "/bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin + "/bot") << "#!/bin/sh\n";
  std::filesystem::create_directories(std::string(work) + "/build");
  std::filesystem::create_directory_symlink(bin, std::string(work) + "/build/bin");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(work);
  SandboxOptions o;
  const std::vector<std::string> args =
      BwrapArgs(o, ::geteuid(), ::getegid(), "build/bin/bot --seed 3");
  const std::vector<std::string> plain = BwrapArgs(o, ::geteuid(), ::getegid(), "true");
  std::filesystem::current_path(before);
  EXPECT_TRUE(Binds(args, work));      // the working folder
  EXPECT_TRUE(Binds(args, checkout));  // the link's target
  EXPECT_FALSE(Binds(plain, checkout));  // not for a command that does not name it
  std::filesystem::remove_all(checkout);
  std::filesystem::remove_all(work);
}

}  // namespace
}  // namespace arena
