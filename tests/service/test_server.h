// Helpers shared by the in-process service tests: start a server on
// loopback, open a channel without message limits, call with raw bytes.
#ifndef HALMA_TESTS_SERVICE_TEST_SERVER_H_
#define HALMA_TESTS_SERVICE_TEST_SERVER_H_

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/server.h"

// Sanitizer builds (CMakePresets.json) run the same code several times
// slower; a test that needs a call to take seconds makes a smaller one.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HALMA_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HALMA_TEST_SANITIZED 1
#endif
#endif
#ifndef HALMA_TEST_SANITIZED
#define HALMA_TEST_SANITIZED 0
#endif

namespace halma::service {

inline constexpr int kSanitizerSlowdown = HALMA_TEST_SANITIZED ? 10 : 1;

inline std::unique_ptr<HalmaServer> MustStart(const ServerConfig& config) {
  absl::StatusOr<std::unique_ptr<HalmaServer>> server = StartServer(config);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

// No client-side message limits: the tests probe the server's.
inline std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                   args);
}

// Calls `method` with `bytes` as the serialized request, whatever they are;
// the answer's bytes go to `*answer` when it is not null.
inline grpc::Status CallWithBytes(grpc::GenericStub& stub,
                                  const std::string& method,
                                  const std::string& bytes,
                                  grpc::ByteBuffer* answer = nullptr) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  grpc::Slice slice(bytes);
  grpc::ByteBuffer in(&slice, 1);
  grpc::ByteBuffer out;
  // A promise rather than an absl::Notification: ThreadSanitizer sees the
  // former's ordering, not that of Debian's uninstrumented Abseil.
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &in,
                 answer != nullptr ? answer : &out,
                 [&](grpc::Status s) { done.set_value(std::move(s)); });
  grpc::Status status = done.get_future().get();
  return status;
}

}  // namespace halma::service

#endif  // HALMA_TESTS_SERVICE_TEST_SERVER_H_
