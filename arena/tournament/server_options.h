// How the referee's gRPC server is set up against hostile or unlucky
// clients: the server-side limits and keepalive (ConfigureServer), the
// listening credentials (plaintext or TLS, with a warning for plaintext
// beyond loopback), and the process's descriptor limit.
//
// Kept apart from launch.cc so that each concern stays in one place.
//
// Thread safety: plain functions; RaiseFdLimit changes the process's limit
// (call it before starting threads that open files). An FdReserve has one
// owner and closes what it holds when released or destroyed.
#ifndef ARENA_ARENA_TOURNAMENT_SERVER_OPTIONS_H_
#define ARENA_ARENA_TOURNAMENT_SERVER_OPTIONS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace arena {

// Limits of one referee server (the gRPC channel arguments they set).
struct ServerLimits {
  int max_concurrent_streams = 4;        // per connection
  int max_receive_bytes = 64 * 1024;     // a bot message; a Decision is tiny
  int handshake_timeout_ms = 5000;       // a connection that never speaks
  int max_connection_idle_ms = 15000;    // a connection with no stream
  int keepalive_time_ms = 10000;         // ping a quiet peer this often...
  int keepalive_timeout_ms = 5000;       // ...and drop it if no answer
  int min_client_ping_interval_ms = 5000;  // clients may ping this often
  // Inbound buffering: a fixed flow-control window per stream (no BDP
  // probing, which grows it to megabytes for a fast sender), and a memory
  // quota for all of gRPC's buffers.
  int stream_lookahead_bytes = 64 * 1024;
  size_t memory_quota_bytes = 256u << 20;
};

// Sets the limits and keepalive on `builder`.
void ConfigureServer(grpc::ServerBuilder* builder,
                     const ServerLimits& limits = ServerLimits());

// The credentials to listen on `listen` with: TLS when a certificate and key
// are given (PEM files), else plaintext (with a warning when `listen` is not
// a loopback or Unix address). Errors name the file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ListenCredentials(
    const std::string& listen, const std::string& tls_cert,
    const std::string& tls_key);

// Checks a --listen address before the server is built: HOST:PORT (an IPv6
// host in brackets) with a port in 0..65535, or unix:PATH; the host must
// resolve, and the port must be free on it. Each error says which and what
// to do ("in use by another program", "not an address of this machine").
absl::Status CheckListenAddress(const std::string& listen);

// True for 127.0.0.0/8, ::1, localhost and unix: addresses.
bool IsLoopback(const std::string& listen);

// Descriptors held open (on /dev/null) so that the end of a run can always
// open its files, however many connections a flood holds: Release() frees
// them just before the standings are written.
class FdReserve {
 public:
  explicit FdReserve(int n);
  ~FdReserve();
  FdReserve(const FdReserve&) = delete;
  FdReserve& operator=(const FdReserve&) = delete;
  void Release();
  int size() const { return static_cast<int>(fds_.size()); }

 private:
  std::vector<int> fds_;
};

// Raises the soft limit on open descriptors to the hard limit; returns the
// new soft limit.
int64_t RaiseFdLimit();

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_SERVER_OPTIONS_H_
