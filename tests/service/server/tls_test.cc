// TLS on the gRPC port: served with a certificate and key, refused to a
// plaintext client, and both files or neither.
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;

std::string TestFile(const std::string& name) {
  return std::string(HALMA_SERVICE_TESTDATA) + "/" + name;
}

std::string ReadTestFile(const std::string& name) {
  std::ifstream in(TestFile(name));
  EXPECT_TRUE(in) << TestFile(name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TlsTest, ServesTlsWithACertificateAndKey) {
  ServerConfig config = LoopbackConfig();
  config.tls_cert = TestFile("server.crt");
  config.tls_key = TestFile("server.key");
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  EXPECT_THAT((*server)->ListeningLine(), HasSubstr("tls on"));

  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadTestFile("server.crt");
  auto tls = v1::HalmaRules::NewStub(
      grpc::CreateChannel(absl::StrCat("localhost:", (*server)->port()),
                          grpc::SslCredentials(options)));
  const Reply<v1::ListVariantsResponse> reply =
      Call(&Stub::ListVariants, *tls, v1::ListVariantsRequest());
  EXPECT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_EQ(reply.response.variants_size(), 5);

  // A plaintext client cannot talk to it.
  EXPECT_FALSE(server
                   ->Call(&Stub::ListVariants, v1::ListVariantsRequest(),
                          absl::Seconds(3))
                   .status.ok());
}

TEST(TlsTest, CertificateAndKeyComeTogether) {
  ServerConfig config = LoopbackConfig();
  config.tls_cert = TestFile("server.crt");
  auto server = HalmaServer::Start(config);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("tls_cert and tls_key"));

  config.tls_key = "/nonexistent/server.key";
  server = HalmaServer::Start(config);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("/nonexistent/server.key"));
}

}  // namespace
}  // namespace halma::service
