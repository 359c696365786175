#include "service/grpc/hand_over.h"

#include <atomic>
#include <cstdint>

namespace halma::service {
namespace {

constinit std::atomic<std::uint64_t> hand_over{0};

}  // namespace

void GrpcHandOver() { hand_over.fetch_add(1, std::memory_order_acq_rel); }

}  // namespace halma::service
