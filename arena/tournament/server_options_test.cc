// The referee server's options (server_options.h): which addresses are
// loopback, and TLS refused without both readable PEM files.
#include "arena/tournament/server_options.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

TEST(ServerOptions, LoopbackAddresses) {
  EXPECT_TRUE(IsLoopback("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopback("localhost:1"));
  EXPECT_TRUE(IsLoopback("[::1]:50051"));
  EXPECT_TRUE(IsLoopback("unix:/tmp/referee.sock"));
  EXPECT_FALSE(IsLoopback("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopback("[::]:50051"));
  EXPECT_FALSE(IsLoopback("192.168.1.5:50051"));
}

TEST(ServerOptions, TlsNeedsReadablePemFiles) {
  auto half = ListenCredentials("127.0.0.1:0", "cert.pem", "");
  EXPECT_FALSE(half.ok());
  EXPECT_THAT(half.status().message(), HasSubstr("--tls_key"));
  auto missing = ListenCredentials("127.0.0.1:0", "/no/such/cert.pem", "/no/such/key.pem");
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("/no/such/cert.pem"));
  EXPECT_TRUE(ListenCredentials("127.0.0.1:0", "", "").ok());
}

}  // namespace
}  // namespace arena
