#include "arena/tournament/server_options.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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

absl::Status CheckListenAddress(const std::string& listen) {
  if (absl::StartsWith(listen, "unix:")) {
    if (listen.size() == 5) {
      return absl::InvalidArgumentError("--listen unix: needs a socket path");
    }
    return absl::OkStatus();
  }
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen ", listen, ": use HOST:PORT (e.g. 127.0.0.1:50051, "
        "[::1]:50051) or unix:PATH"));
  }
  std::string host = listen.substr(0, colon);
  const std::string port_text = listen.substr(colon + 1);
  int port = -1;
  if (!absl::SimpleAtoi(port_text, &port) || port < 0 || port > 65535 ||
      port_text.find_first_not_of("0123456789") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen ", listen, ": the port '", port_text,
        "' is not a number from 0 to 65535"));
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (int e = ::getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found); e != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen ", listen, ": the host '", host, "' does not resolve (",
        ::gai_strerror(e), ")"));
  }
  absl::Status status;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    const int r = ::bind(fd, a->ai_addr, a->ai_addrlen);
    const int err = errno;
    ::close(fd);
    if (r == 0) continue;
    if (err == EADDRINUSE) {
      status = absl::FailedPreconditionError(absl::StrCat(
          "--listen ", listen, ": port ", port,
          " is in use by another program (another referee?); stop it or "
          "choose another port"));
    } else if (err == EADDRNOTAVAIL) {
      status = absl::FailedPreconditionError(absl::StrCat(
          "--listen ", listen, ": ", host,
          " is not an address of this machine"));
    } else if (err == EACCES) {
      status = absl::FailedPreconditionError(absl::StrCat(
          "--listen ", listen, ": port ", port,
          " needs privileges (ports below 1024); choose a port above 1023"));
    } else {
      status = absl::FailedPreconditionError(absl::StrCat(
          "--listen ", listen, ": cannot listen there: ", std::strerror(err)));
    }
    break;
  }
  ::freeaddrinfo(found);
  return status;
}

}  // namespace arena
