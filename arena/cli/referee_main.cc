// referee: a standalone referee for bots that connect from elsewhere.
//
//   referee --listen ADDR --config FILE [--tls_cert PEM --tls_key PEM] [--resume]
//
// It listens on 127.0.0.1 unless told otherwise (and warns when it listens
// beyond loopback without TLS). A bot that disconnects keeps its seats for
// --reconnect_grace_ms.
//
// The config is an arena.v1.TournamentConfig in protobuf text format (see
// docs/config.md). The referee waits for every bot the config lists to
// connect with its token, runs the tournament, and writes the records and
// standings into the config's records_dir.
#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "arena/tournament/launch.h"
#include "arena/tournament/server_options.h"
#include "arena/cli/flags_check.h"
#include "arena/cli/logging.h"
#include "arena/tournament/config.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "address to listen on (e.g. 0.0.0.0:50051 for every interface)");
ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain: listen with TLS");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(int64_t, reconnect_grace_ms, 5000,
          "how long a disconnected bot keeps its seats (0: none)");
ABSL_FLAG(std::string, log_file, "", "also append the log (stderr) to this file");
ABSL_FLAG(std::string, config, "", "tournament config (text-format TournamentConfig)");
ABSL_FLAG(bool, resume, false,
          "resume the tournament in the config's records_dir (its manifest must be "
          "this config's, with the same secret_file): play only the matches "
          "without a whole record");
ABSL_FLAG(int64_t, connect_timeout_s, 300,
          "how long to wait for the bots, unless the config says");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "A standalone referee.\nUsage: referee --listen ADDR --config FILE");
  // Debian's Abseil is built with the Mutex deadlock detector on: every Lock
  // is looked up in a process-wide graph of lock order (GraphCycles showed in
  // the referee's profile, docs/benchmarks.md). Tests keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // An unknown flag or a value that does not parse is a usage error (2),
  // checked before absl's parser would exit 1 on it (flags_check.h).
  if (absl::Status s = arena::CheckCommandLineFlags(argc, argv); !s.ok()) {
    std::cerr << "referee: " << s.message() << "; referee --help lists the flags\n";
    return 2;
  }
  const std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() > 1) {
    std::cerr << "referee: unexpected argument '" << args[1] << "' (it takes flags only)\n";
    return 2;
  }
  ::umask(077);  // records, standings and secrets: the organiser's only
  if (absl::Status s = arena::SetUpLogging(absl::GetFlag(FLAGS_log_file)); !s.ok()) {
    std::cerr << "referee: " << s.message() << "\n";
    return 2;
  }
  if (absl::Status s = arena::CheckListenAddress(absl::GetFlag(FLAGS_listen)); !s.ok()) {
    std::cerr << "referee: " << s.message() << "\n";
    return 2;
  }
  const std::string path = absl::GetFlag(FLAGS_config);
  if (path.empty()) {
    std::cerr << "referee: --config FILE is required\n";
    return 2;
  }
  auto config = arena::ReadConfigFile(path);
  if (!config.ok()) {
    std::cerr << "referee: " << config.status().message() << "\n";
    return 2;
  }
  // Every field checked (and defaults filled in) before anything listens or
  // waits for a bot; RunConfiguredTournament's own check is then a no-op.
  if (absl::Status s = arena::ValidateConfig(&*config); !s.ok()) {
    std::cerr << "referee: config " << path << ": " << s.message() << "\n";
    return 2;
  }
  arena::LaunchOptions lo;
  lo.listen = absl::GetFlag(FLAGS_listen);
  lo.start_bots = false;
  lo.resume = absl::GetFlag(FLAGS_resume);
  lo.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  lo.tls_key = absl::GetFlag(FLAGS_tls_key);
  if (absl::GetFlag(FLAGS_reconnect_grace_ms) < 0) {
    std::cerr << "referee: --reconnect_grace_ms must not be negative\n";
    return 2;
  }
  // The config's connect_timeout_ms has the same bounds (ValidateConfig).
  if (const int64_t s = absl::GetFlag(FLAGS_connect_timeout_s); s < 1 || s > 3600) {
    std::cerr << "referee: --connect_timeout_s=" << s << ": must be in [1, 3600]\n";
    return 2;
  }
  lo.hub.reconnect_grace = absl::Milliseconds(absl::GetFlag(FLAGS_reconnect_grace_ms));
  lo.connect_timeout = config->connect_timeout_ms() > 0
                           ? absl::Milliseconds(config->connect_timeout_ms())
                           : absl::Seconds(absl::GetFlag(FLAGS_connect_timeout_s));
  auto st = arena::RunConfiguredTournament(*config, lo);
  if (!st.ok() && arena::StorageFailed(st.status())) {
    // The disk could not take a write: stopped, resumable.
    std::cerr << "referee: " << st.status().message()
              << "\nreferee: to finish the tournament, free space where "
              << config->records_dir() << " is (and where the log file is), then run the "
              << "referee again with the same --config"
              << (std::filesystem::exists(config->records_dir() + "/manifest.json")
                      ? " and --resume\n"
                      : " (nothing was recorded; no --resume)\n");
    return arena::kStorageExitCode;
  }
  if (!st.ok()) {
    std::cerr << "referee: " << st.status().message() << "\n";
    return 2;
  }
  std::cout << arena::StandingsTable(*st);
  // 1: complete, but a match is unrecorded or a bot failed (withdrawn, cut
  // off); the table above says which and why.
  return st->matches_unrecorded() == 0 && arena::FailedEntrants(*st).empty() ? 0 : 1;
}
