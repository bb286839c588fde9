#include "arena/tournament/launch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "arena/records/folder.h"
#include "arena/tournament/bot_process.h"
#include "arena/tournament/secret.h"
#include "arena/tournament/server_options.h"
#include "arena/tournament/config.h"
#include "arena/tournament/plan.h"
#include "arena/tournament/run_stop.h"
#include "arena/tournament/tournament.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "referee/clock/mono_clock.h"
#include "referee/records/record.h"
#include "referee/records/storage_fault.h"
#include "referee/service/bot_hub.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

class ConfigErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty()) {
      first = absl::StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
    }
  }
  void AddWarning(int, int, const std::string&) override {}
  std::string first;
};

}  // namespace

absl::StatusOr<std::string> NewToken() { return RandomHex(16); }

namespace {

// A private folder for the referee's Unix socket: 0711, so that a bot's
// unprivileged uid can reach the socket bound into its sandbox but cannot
// list the folder. Removed with everything in it on destruction, or when
// the run is stopped (arena/tournament/run_stop.h), as the process exits.
class RuntimeDir {
 public:
  absl::Status Create() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "arena-run-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return absl::UnavailableError(absl::StrCat(
          "cannot create a folder for the referee's socket in ",
          std::filesystem::temp_directory_path().string(), ": ",
          std::strerror(errno)));
    }
    path_ = tmpl;
    ::chmod(path_.c_str(), 0711);
    remove_on_stop_.emplace([path = path_] {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    });
    return absl::OkStatus();
  }
  ~RuntimeDir() {
    remove_on_stop_.reset();
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::optional<OnRunStop> remove_on_stop_;
};

// Once the run is stopped (StopRequested), the tournament's thread waits
// here for the process to exit: it starts no bot process and no match.
[[noreturn]] void WaitForTheStop() {
  for (;;) absl::SleepFor(absl::Hours(1));
}

}  // namespace

absl::StatusOr<v1::TournamentConfig> ReadConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open config ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  v1::TournamentConfig config;
  google::protobuf::TextFormat::Parser parser;
  ConfigErrors errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(ss.str(), &config)) {
    return absl::InvalidArgumentError(
        absl::StrCat("config ", path, ": ", errors.first));
  }
  return config;
}

bool StartupFailed(const absl::Status& status) {
  return status.GetPayload(kStartupPayload).has_value();
}

bool StorageFailed(const absl::Status& status) { return IsStorageFault(status); }

absl::Status StorageStopped(const absl::Status& fault, const v1::TournamentConfig& config,
                            const v1::Standings& standings) {
  const int more = StorageFaultCount() - 1;
  absl::Status s = absl::ResourceExhaustedError(absl::StrCat(
      "stopped: ", fault.message(),
      more > 0 ? absl::StrCat(" (and ", more, " more writes failed the same way)") : "",
      ". No match was started after that. ", standings.matches_played(), " of ",
      standings.matches_planned(), " matches are recorded, each record whole; the ",
      standings.matches_unrecorded(), " others have none yet (a match that was live keeps "
      "its unfinished record in ", config.records_dir(), "/", kInProgressDir,
      "/). The standings files hold the last version that could be written whole."));
  s.SetPayload(kStoragePayload, absl::Cord("1"));
  return s;
}

absl::StatusOr<v1::Standings> RunConfiguredTournament(
    v1::TournamentConfig config, const LaunchOptions& options) {
  if (absl::Status s = ValidateConfig(&config); !s.ok()) return s;
  auto secret = ResolveSecret(config);
  if (!secret.ok()) return secret.status();
  const int max_live = options.max_live_bots > 0
                           ? options.max_live_bots
                           : DefaultMaxLiveBots(config.jobs(), config.seats(),
                                                config.bots_size());
  if (options.start_bots && max_live < config.seats()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_live_bots ", max_live, ": a match of ", config.seats(),
        " seats needs at least ", config.seats(), " bot processes at once"));
  }
  // The folder is checked, and the seating said, before any bot starts.
  if (!options.resume) {
    if (absl::Status s = CheckRecordsFolderIsNew(config.records_dir()); !s.ok()) return s;
  }
  if (absl::Status s = CheckSchedule(config, options.fixed_seating); !s.ok()) return s;
  if (config.bots_size() < config.seats()) {  // a bot fills several seats
    if (auto seatings = ArrangementsFor(config, options.fixed_seating); seatings.ok()) {
      if (const std::string note = SeatingNote(config, *seatings); !note.empty()) {
        spdlog::info("{}", note);
      }
    }
  }
  if (absl::Status s = MakeRecordsDir(config.records_dir()); !s.ok()) return s;
  const bool sandboxed = options.start_bots && options.sandbox.enabled;
  SandboxOptions sandbox = options.sandbox;
  RuntimeDir runtime;
  if (sandboxed) {
    if (absl::Status s = runtime.Create(); !s.ok()) return s;
    sandbox.socket_host_path = absl::StrCat(runtime.path(), "/referee.sock");
    sandbox.hidden_paths.push_back(config.records_dir());
    if (!config.secret_file().empty()) {
      sandbox.hidden_paths.push_back(config.secret_file());
    }
    sandbox.hidden_paths.push_back(runtime.path());
    sandbox.uid_base = PickUidBase();
  } else if (options.start_bots) {
    spdlog::warn("--sandbox none: bots are trusted; each can read the others' "
                 "tokens and files, the records while they are written, and "
                 "reach the network");
  }
  const auto self_connecting = [&](const std::string& name) {
    return std::find(options.self_connecting_bots.begin(),
                     options.self_connecting_bots.end(),
                     name) != options.self_connecting_bots.end();
  };
  std::vector<BotIdentity> ids;
  std::map<std::string, std::vector<std::string>> spare_tokens;  // by bot
  for (const auto& b : config.bots()) {
    if (options.start_bots && b.command().empty() && !self_connecting(b.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("bot '", b.name(), "' has no command to start it"));
    }
    ids.push_back({b.name(), b.token()});
    // With a fresh process per rotation, each bot arena starts has spare
    // processes (its next ones, each started while the one before plays;
    // one per rotation of a deal, so that the rotations can be played at
    // once), each connecting with a token of its own: the hub holds its
    // stream apart until it takes over (BotHub::ExpectStandby).
    if (options.start_bots && options.fresh_bots_per_rotation && !self_connecting(b.name())) {
      for (int r = 0; r < std::max(1, config.seats()); ++r) {
        absl::StatusOr<std::string> spare = NewToken();
        if (!spare.ok()) return spare.status();
        ids.push_back({b.name(), *spare});
        spare_tokens[b.name()].push_back(*spare);
      }
    }
  }
  const int64_t fd_limit = RaiseFdLimit();
  {
    // A live match holds kFilesPerLiveMatch files open (arena/tournament/config.h);
    // the bots' streams, the reserve below, the files a match opens for a
    // moment to write, and the process's own files need a few hundred more.
    const int64_t live = std::min<int64_t>(config.jobs(), config.matches());
    const int64_t need = kFilesPerLiveMatch * live + 2 * config.bots_size() + 256;
    if (fd_limit > 0 && need > fd_limit) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "--jobs ", config.jobs(), " needs about ", need, " open files (",
          kFilesPerLiveMatch, " per live match, 2 per bot, 256 for the process), "
          "but this process may "
          "open only ", fd_limit, " (ulimit -n, hard limit); lower --jobs or "
          "raise the limit"));
    }
  }
  FdReserve reserve(64);  // released for the standings
  auto credentials =
      ListenCredentials(options.listen, options.tls_cert, options.tls_key);
  if (!credentials.ok()) return credentials.status();
  HubOptions hub_options = options.hub;
  // Bots that arena starts: their connects and disconnects are their
  // processes' business (a line each, thousands on demand or with fresh
  // processes per deal), which the supervisor sums up instead (a line a
  // minute, and at the end); a process that ends, or does not connect,
  // has lines of its own. A run with bots that connect by themselves
  // (arena play's person at the terminal) keeps every such line.
  if (options.start_bots && options.self_connecting_bots.empty()) {
    hub_options.connections_at_info = false;
  }
  BotHub hub(ids, hub_options);
  // Stock tools: grpc.health.v1.Health and server reflection (docs/bots.md).
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  ConfigureServer(&builder);
  int port = 0;
  std::string address;      // as the referee reports it
  std::string bot_address;  // as the bots reach it
  if (sandboxed) {
    // No TCP at all: the bots have no network; they reach the referee
    // through its Unix socket, bound into each sandbox.
    address = absl::StrCat("unix:", sandbox.socket_host_path);
    bot_address = absl::StrCat("unix:", kSandboxSocket);
    builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  } else {
    builder.AddListeningPort(options.listen, *credentials, &port);
  }
  builder.RegisterService(hub.service());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || (!sandboxed && port == 0)) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", sandboxed ? address : options.listen));
  }
  server->GetHealthCheckService()->SetServingStatus("arena.v1.Referee", true);
  if (sandboxed) {
    // Any local uid may connect; the token decides who it is.
    ::chmod(sandbox.socket_host_path.c_str(), 0666);
    if (absl::Status s = CheckSandbox(sandbox); !s.ok()) {
      server->Shutdown();
      return s;
    }
  } else {
    address = options.listen;
    // HOST:PORT gets the port bound (port 0: any); a unix:PATH has none.
    if (const size_t colon = address.rfind(':');
        colon != std::string::npos && !absl::StartsWith(address, "unix:")) {
      address = absl::StrCat(address.substr(0, colon), ":", port);
    }
    bot_address = address;
  }
  spdlog::info("referee listening on {}", address);
  if (options.on_listening) options.on_listening(address);

  SupervisorOptions so;
  so.connect_timeout = options.connect_timeout;
  so.max_restarts = config.max_restarts() > 0 ? config.max_restarts() : 3;
  so.on_failure = config.on_bot_failure() == v1::BOT_FAILURE_POLICY_UNSPECIFIED
                      ? v1::BOT_FAILURE_POLICY_WITHDRAW
                      : config.on_bot_failure();
  so.max_live = max_live;
  so.idle_timeout = options.bot_idle_timeout;
  so.fresh_per_deal = options.start_bots && options.fresh_bots_per_rotation &&
                      config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  BotSupervisor supervisor(&hub, so);
  // A stop (arena/tournament/run_stop.h) kills the bots: their end is not
  // theirs to be charged with (no CRASHED fault, no restart), so the
  // supervisor stops watching first; a call into it under way (a start on
  // demand, a restart) ends first, for up to 3 s.
  std::atomic<int> in_supervisor{0};
  auto supervised = [&](auto&& call) {
    if (StopRequested()) WaitForTheStop();
    ++in_supervisor;
    if (StopRequested()) WaitForTheStop();
    auto r = call();
    --in_supervisor;
    return r;
  };
  OnRunStop stop_watching([&] {
    const absl::Time until = MonoNow() + absl::Seconds(3);
    while (in_supervisor.load() > 0 && MonoNow() < until) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    supervisor.StopWatching();
  });
  std::vector<std::string> names;
  for (const auto& b : config.bots()) names.push_back(b.name());
  std::vector<v1::EntrantReport> absent;  // referee: bots that never came
  // The reports written to entrants.json, and returned: their logs named
  // within the records folder, so that they hold wherever the folder is
  // moved (and shards of one tournament agree).
  auto entrants_file = [&](std::vector<v1::EntrantReport> reports) {
    const std::string prefix = absl::StrCat(config.records_dir(), "/");
    for (auto& r : reports) {
      if (absl::StartsWith(r.log(), prefix)) r.set_log(r.log().substr(prefix.size()));
    }
    if (absl::Status s = WriteEntrants(reports, config.records_dir()); !s.ok()) {
      spdlog::error("{}", s.ToString());
    }
    return reports;
  };
  absl::Status startup;
  if (options.start_bots) {
    const std::string logs = absl::StrCat(config.records_dir(), "/logs");
    if (::mkdir(logs.c_str(), 0700) != 0 && errno != EEXIST) {
      return StorageFaultStatus(absl::StrCat("cannot create ", logs), errno);
    }
    for (int i = 0; i < config.bots_size(); ++i) {
      const auto& b = config.bots(i);
      if (self_connecting(b.name())) continue;
      auto process = [&](const std::string& token) {
        return std::make_unique<BotProcess>(
            b.name(), b.command(),
            PrepareBotExec(sandbox, i, b.command(), bot_address, token, b.name()),
            absl::StrCat(logs, "/", b.name(), ".log"));
      };
      // With a fresh process per rotation, spares: the bot's next
      // processes, each started while the one before plays (bot_process.h).
      std::vector<std::pair<std::unique_ptr<BotProcess>, std::string>> spares;
      for (const std::string& token : spare_tokens[b.name()]) {
        spares.emplace_back(process(token), token);
      }
      supervisor.Add(process(b.token()), b.token(), std::move(spares));
    }
    startup = supervised([&] { return supervisor.StartAll(); });
    if (startup.ok() && !options.self_connecting_bots.empty() &&
        !hub.WaitForBots(options.self_connecting_bots, options.connect_timeout)) {
      startup = absl::DeadlineExceededError(absl::StrCat(
          absl::StrJoin(options.self_connecting_bots, ", "), " did not connect within ",
          absl::FormatDuration(options.connect_timeout)));
    }
  } else {
    spdlog::info("waiting up to {} for bots: {}",
                 absl::FormatDuration(options.connect_timeout),
                 absl::StrJoin(names, ", "));
    if (!hub.WaitForBots(names, options.connect_timeout)) {
      std::vector<std::string> missing;
      for (const auto& n : names) {
        if (!hub.IsConnected(n)) missing.push_back(n);
      }
      const std::string why = absl::StrCat(
          "did not connect within ", absl::FormatDuration(options.connect_timeout));
      if (so.on_failure == v1::BOT_FAILURE_POLICY_ABORT ||
          missing.size() == names.size()) {
        startup = absl::DeadlineExceededError(absl::StrCat(
            "bots did not connect in time: ", absl::StrJoin(missing, ", ")));
      } else {
        for (const auto& n : missing) {
          // Withdrawn until it connects: its matches meanwhile are its
          // forfeits; a late bot plays the matches that start after it came.
          spdlog::error("bot {} {}: withdrawn; each of its matches that starts "
                        "before it connects is recorded as its forfeit (no show)",
                        n, why);
          hub.SetBotDown(n, v1::FAULT_KIND_NO_SHOW, absl::StrCat("withdrawn: it ", why));
          v1::EntrantReport r;
          r.set_bot(n);
          r.set_withdrawn(true);
          r.set_reason(absl::StrCat("it ", why));
          absent.push_back(std::move(r));
        }
      }
    }
  }
  absl::StatusOr<v1::Standings> result(absl::UnknownError("not run"));
  if (!startup.ok()) {
    // Under abort, a bot that failed stops the tournament (arena exits 1);
    // under withdraw, a startup error means nothing could be played (2).
    if (so.on_failure == v1::BOT_FAILURE_POLICY_ABORT) {
      startup.SetPayload(kStartupPayload, absl::Cord("1"));
    }
    result = startup;
  } else {
    TournamentHooks hooks;
    hooks.show_progress = options.show_progress;
    hooks.fixed_seating = options.fixed_seating;
    hooks.resume = options.resume;
    hooks.live_records = options.live_records;
    hooks.on_recorded = options.on_recorded;
    hooks.on_record_finished = options.on_record_finished;
    if (options.start_bots) {
      hooks.ensure_bot = [&](const std::string& b) {
        return supervised(
            [&] { return self_connecting(b) ? hub.IsConnected(b) : supervisor.Ensure(b); });
      };
      if (const ProcessCounts pc = supervisor.Counts(); pc.on_demand) {
        hooks.max_live_bots = pc.max_live;
        hooks.expect_bots = [&](const std::vector<std::pair<std::string, int64_t>>& upcoming) {
          supervisor.Expect(upcoming);
        };
        hooks.pin_bot = [&](const std::string& b) { supervisor.Pin(b); };
        hooks.bot_ready = [&](const std::string& b) {
          return self_connecting(b) ? hub.IsConnected(b) : supervisor.Ready(b);
        };
        if (options.fresh_bots_per_rotation) {
          hooks.ensure_fresh_bot = [&](const std::string& b, int64_t deal) {
            return supervised([&] {
              return self_connecting(b) ? hub.IsConnected(b) : supervisor.Ensure(b, deal);
            });
          };
        }
      }
      if (options.fresh_bots_per_rotation) {
        hooks.new_bot_processes = [&] {
          return supervised([&] {
            supervisor.RenewAll();
            return absl::OkStatus();
          });
        };
      }
    } else {
      hooks.ensure_bot = [&](const std::string& b) { return hub.IsConnected(b); };
    }
    result = options.run_instead ? options.run_instead(config, *secret, hub, hooks)
                                 : RunTournament(config, *secret, hub, hooks);
    if (options.start_bots) {
      const ProcessCounts pc = supervisor.Counts();
      if (pc.on_demand) {
        spdlog::info(
            "bot processes: at most {} live at once (bound {}); {} started ahead "
            "of their matches, {} started for them, {} stopped after {} without "
            "a match, {} stopped to make room, {} replaced before "
            "a deal they had played ({} by a next process made ready while the one "
            "before played, {} of them while it still played its matches); {} "
            "stopped before they played a match; {} kept once done with their "
            "matches, {} of them played again (a deal they had not met), {} stopped",
            pc.peak_live, pc.max_live, pc.ahead_starts, pc.demand_starts, pc.idle_stops,
            absl::FormatDuration(so.idle_timeout), pc.evictions, pc.renewals,
            pc.successor_takeovers, pc.handovers, pc.unused_stops, pc.parked, pc.reused,
            pc.parked_stops);
      } else {
        spdlog::info("bot processes: at most {} live at once (bound {}: each "
                     "bot's process lives through the tournament)",
                     pc.peak_live, pc.max_live);
      }
    }
    // The descriptors kept in reserve are for the final standings: written
    // again here, so that a flood of connections cannot make them fail.
    reserve.Release();
    if (result.ok()) {
      SetEntrants(entrants_file(options.start_bots ? supervisor.Reports() : absent),
                  &*result);
      if (absl::Status s = WriteStandings(*result, config.records_dir()); !s.ok()) {
        spdlog::error("{}", s.ToString());
        // (A full disk is latched and said below, with what was recorded.)
        if (!IsStorageFault(s)) {
          result = absl::UnavailableError(
              absl::StrCat("the standings could not be written: ", s.message()));
        }
      }
    }
    // A write the disk could not take stopped the tournament (or, at the
    // end, its standings): it is not complete, whatever was recorded.
    if (absl::Status fault = FirstStorageFault(); !fault.ok() && result.ok()) {
      result = StorageStopped(fault, config, *result);
    } else if (!fault.ok() && !IsStorageFault(result.status())) {
      // Another failure came first; the full disk is said too.
      spdlog::error("{}", std::string(fault.message()));
    }
  }
  supervisor.StopWatching();  // the bots end as the streams close: expected
  hub.CloseAll();
  // A bot ends when its stream does (the SDKs do): a moment for that before
  // SIGTERM, so that the log shows how each one exited.
  supervisor.StopAll(absl::Seconds(2));
  // The processes are all reaped now: their CPU time and peak memory are
  // final (the kept ones' too), so entrants.json and the standings that
  // show them are written again.
  if (result.ok() && options.start_bots) {
    SetEntrants(entrants_file(supervisor.Reports()), &*result);
    if (absl::Status s = WriteStandings(*result, config.records_dir()); !s.ok()) {
      spdlog::error("{}", s.ToString());
    }
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  return result;
}

}  // namespace arena
