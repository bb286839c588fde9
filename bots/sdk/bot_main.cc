// The SDK's command-line entry point (flags live only in *_main.cc files).
#include <cstdlib>
#include <iostream>

#include "absl/synchronization/mutex.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "bots/sdk/bot.h"
#include "bots/sdk/epsilon.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, address, "",
          "referee address host:port (default: $ARENA_ADDRESS)");
ABSL_FLAG(std::string, token, "", "this bot's token (default: $ARENA_TOKEN)");
ABSL_FLAG(int, threads, 1, "decisions taken at once across matches");
ABSL_FLAG(double, epsilon, 0,
          "chance (0 to 1) that a decision is a uniformly random legal action "
          "instead of the bot's own (reproducible: seeded from the match and "
          "decision ids); 0 plays as the bot does");

namespace arena::bots {

int BotMain(int argc, char** argv, const std::string& name,
            const Policy& policy) {
  absl::SetProgramUsageMessage(
      "An arena bot. Connects to a referee and plays until it ends the "
      "stream.\nUsage: " + name + " [--address HOST:PORT] [--token T] [--epsilon E]");
  absl::ParseCommandLine(argc, argv);
  const double epsilon = absl::GetFlag(FLAGS_epsilon);
  if (absl::Status s = CheckEpsilon(epsilon); !s.ok()) {
    std::cerr << name << ": " << s.message() << "\n";
    return 2;
  }
  // Debian's Abseil checks lock order on every Lock unless told not to.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  BotOptions options;
  options.address = absl::GetFlag(FLAGS_address);
  options.token = absl::GetFlag(FLAGS_token);
  options.threads = absl::GetFlag(FLAGS_threads);
  if (options.address.empty()) {
    if (const char* a = std::getenv("ARENA_ADDRESS")) options.address = a;
  }
  if (options.token.empty()) {
    if (const char* t = std::getenv("ARENA_TOKEN")) options.token = t;
  }
  if (const char* ca = std::getenv("ARENA_TLS_CA")) options.tls_ca = ca;
  options.client = name + " (arena-cpp-sdk/1)";
  spdlog::set_pattern("[%H:%M:%S.%e] [" + name + "] [%l] %v");
  absl::Status s = RunBot(options, WithEpsilon(epsilon, policy));
  if (!s.ok()) {
    spdlog::error("{}", s.ToString());
    return 1;
  }
  return 0;
}

}  // namespace arena::bots
