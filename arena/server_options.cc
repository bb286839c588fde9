#include "arena/server_options.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read the TLS ", what, " ", path));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().find("-----BEGIN") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("the TLS ", what, " ", path, " is not a PEM file"));
  }
  return ss.str();
}

}  // namespace

void ConfigureServer(grpc::ServerBuilder* b, const ServerLimits& l) {
  b->SetMaxReceiveMessageSize(l.max_receive_bytes);
  b->AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, l.max_concurrent_streams);
  b->AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, l.handshake_timeout_ms);
  b->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, l.max_connection_idle_ms);
  b->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, l.keepalive_time_ms);
  b->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, l.keepalive_timeout_ms);
  b->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  b->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  b->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                        l.min_client_ping_interval_ms);
  b->AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  b->AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES,
                        l.stream_lookahead_bytes);
  grpc::ResourceQuota quota("referee");
  quota.Resize(l.memory_quota_bytes);
  b->SetResourceQuota(quota);
}

bool IsLoopback(const std::string& listen) {
  if (absl::StartsWith(listen, "unix:")) return true;
  std::string host = listen;
  if (const size_t colon = host.rfind(':'); colon != std::string::npos) {
    host = host.substr(0, colon);
  }
  return absl::StartsWith(host, "127.") || host == "localhost" ||
         host == "[::1]" || host == "::1";
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ListenCredentials(
    const std::string& listen, const std::string& tls_cert,
    const std::string& tls_key) {
  if (tls_cert.empty() != tls_key.empty()) {
    return absl::InvalidArgumentError(
        "TLS needs both a certificate (--tls_cert) and its key (--tls_key)");
  }
  if (tls_cert.empty()) {
    if (!IsLoopback(listen)) {
      spdlog::warn(
          "listening on {} without TLS: tokens and games cross the network in "
          "plaintext; give --tls_cert and --tls_key", listen);
    }
    return grpc::InsecureServerCredentials();
  }
  auto cert = ReadPem(tls_cert, "certificate");
  if (!cert.ok()) return cert.status();
  auto key = ReadPem(tls_key, "key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions o;
  o.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(o);
}

FdReserve::FdReserve(int n) {
  for (int i = 0; i < n; ++i) {
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) break;
    fds_.push_back(fd);
  }
}

FdReserve::~FdReserve() { Release(); }

void FdReserve::Release() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
}

int64_t RaiseFdLimit() {
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur < rl.rlim_max) {
    rlim_t old = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &rl) != 0) return static_cast<int64_t>(old);
    spdlog::info("open file limit raised from {} to {}", old, rl.rlim_cur);
  }
  return static_cast<int64_t>(rl.rlim_cur);
}

}  // namespace arena
