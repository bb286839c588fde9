#include "arena/launch.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "arena/bot_process.h"
#include "arena/server_options.h"
#include "arena/tournament.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "referee/bot_hub.h"
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

std::string NewToken() {
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  unsigned char bytes[16] = {};
  urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  std::string out;
  for (unsigned char b : bytes) absl::StrAppendFormat(&out, "%02x", b);
  return out;
}

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

absl::StatusOr<v1::Standings> RunConfiguredTournament(
    v1::TournamentConfig config, const LaunchOptions& options) {
  if (absl::Status s = ValidateConfig(&config); !s.ok()) return s;
  std::vector<BotIdentity> ids;
  for (const auto& b : config.bots()) {
    if (options.start_bots && b.command().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bot '", b.name(), "' has no command to start it"));
    }
    ids.push_back({b.name(), b.token()});
  }
  RaiseFdLimit();
  FdReserve reserve(64);  // released for the standings
  auto credentials =
      ListenCredentials(options.listen, options.tls_cert, options.tls_key);
  if (!credentials.ok()) return credentials.status();
  BotHub hub(ids, options.hub);
  grpc::ServerBuilder builder;
  ConfigureServer(&builder);
  int port = 0;
  builder.AddListeningPort(options.listen, *credentials, &port);
  builder.RegisterService(hub.service());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen));
  }
  std::string address = options.listen;
  if (const size_t colon = address.rfind(':'); colon != std::string::npos) {
    address = absl::StrCat(address.substr(0, colon), ":", port);
  }
  spdlog::info("referee listening on {}", address);

  const int max_restarts = config.max_restarts() > 0 ? config.max_restarts() : 3;
  BotSupervisor supervisor(&hub, options.connect_timeout, max_restarts);
  std::vector<std::string> names;
  for (const auto& b : config.bots()) names.push_back(b.name());
  absl::Status startup;
  if (options.start_bots) {
    const std::string logs = absl::StrCat(config.records_dir(), "/logs");
    std::string mk = absl::StrCat("mkdir -p '", logs, "'");
    if (std::system(mk.c_str()) != 0) {
      return absl::UnavailableError(absl::StrCat("cannot create ", logs));
    }
    for (const auto& b : config.bots()) {
      supervisor.Add(std::make_unique<BotProcess>(
          b.name(), b.command(), address, b.token(),
          absl::StrCat(logs, "/", b.name(), ".log")));
    }
    startup = supervisor.StartAll();
  } else {
    spdlog::info("waiting up to {} for bots: {}",
                 absl::FormatDuration(options.connect_timeout),
                 absl::StrJoin(names, ", "));
    if (!hub.WaitForBots(names, options.connect_timeout)) {
      std::string missing;
      for (const auto& n : names) {
        if (!hub.IsConnected(n)) absl::StrAppend(&missing, missing.empty() ? "" : ", ", n);
      }
      startup = absl::DeadlineExceededError(
          absl::StrCat("bots did not connect in time: ", missing));
    }
  }
  absl::StatusOr<v1::Standings> result(absl::UnknownError("not run"));
  if (!startup.ok()) {
    result = startup;
  } else {
    TournamentHooks hooks;
    hooks.show_progress = options.show_progress;
    hooks.fixed_seating = options.fixed_seating;
    if (options.start_bots) {
      hooks.ensure_bot = [&](const std::string& b) { return supervisor.Ensure(b); };
      hooks.dropped_bots = [&] { return supervisor.Dropped(); };
    } else {
      hooks.ensure_bot = [&](const std::string& b) { return hub.IsConnected(b); };
    }
    result = RunTournament(config, hub, hooks);
    reserve.Release();
    if (result.ok()) {
      if (absl::Status s = WriteStandings(*result, config.records_dir()); !s.ok()) {
        spdlog::error("{}", s.ToString());
        result = absl::UnavailableError(absl::StrCat(
            "the standings could not be written: ", s.message()));
      }
    }
  }
  hub.CloseAll();
  supervisor.StopAll();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  return result;
}

}  // namespace arena
