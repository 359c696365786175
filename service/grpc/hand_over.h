// gRPC passes our reactors and interceptors from thread to thread (a
// handler's thread, an alarm's, the thread that completes a read, a write,
// the call's end), ordering them inside Debian's uninstrumented libgrpc++,
// where ThreadSanitizer cannot see that order. Our code calls
// GrpcHandOver() where it hands an object to gRPC (before it sets an alarm,
// before it finishes a call) and where gRPC hands one back (first thing in
// a callback): an acquire-release read-modify-write of one constant-
// initialized atomic, which puts everything before the first call before
// everything after the second in the order ThreadSanitizer tracks (RMWs of
// one atomic are totally ordered, and each acquires what the earlier ones
// released). The atomic is no object's own: an object's atomic, or its
// mutex, is written when the object is made, unordered with the other
// thread's first use of it in turn. It costs one locked instruction.
#ifndef HALMA_SERVICE_GRPC_HAND_OVER_H_
#define HALMA_SERVICE_GRPC_HAND_OVER_H_

namespace halma::service {

void GrpcHandOver();

}  // namespace halma::service

#endif  // HALMA_SERVICE_GRPC_HAND_OVER_H_
