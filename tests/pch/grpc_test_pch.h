// The gRPC tier of the tests' precompiled headers: test_pch.h plus gRPC,
// protobuf and the generated services, for the tests that link gRPC (the
// loopback fixture, the client). The transport-free core's tests use
// test_pch.h alone, so gRPC's headers stay out of their sight.
#ifndef HALMA_TESTS_PCH_GRPC_TEST_PCH_H_
#define HALMA_TESTS_PCH_GRPC_TEST_PCH_H_

#include "tests/pch/test_pch.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "halma/v1/halma.grpc.pb.h"

#endif  // HALMA_TESTS_PCH_GRPC_TEST_PCH_H_
