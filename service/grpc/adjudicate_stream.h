// AdjudicateStream: many game records on one bidirectional call.
//
// Flow control is gRPC's own: a stream reads up to four records ahead of
// the one being answered, holds at most one answer waiting for the write
// before it, and answers the next record only when the answer before it is
// on its way. A client that stops reading answers therefore stops the
// server reading records, and a stream's memory is bounded by eight
// messages whatever the client sends.
//
// Answers to a client that sends ahead go out in runs, one sendmsg for
// many: while the next record is being answered an answer is written with
// gRPC's buffer hint, and an answer with nothing yet behind it waits for
// the next record at most 1 ms (a client that waits for each answer never
// sees that wait).
//
// Each record is an expensive call of its own: it takes a slot of the
// admission gate (waiting in its queue like any Adjudicate), runs with its
// own maximum call time, and a refusal is that record's error, not the
// stream's end.
#ifndef HALMA_SERVICE_GRPC_ADJUDICATE_STREAM_H_
#define HALMA_SERVICE_GRPC_ADJUDICATE_STREAM_H_

#include <mutex>

#include "absl/container/flat_hash_set.h"
#include "grpcpp/grpcpp.h"
#include "service/grpc/unary_calls.h"

namespace halma::service {

// The streams open now, so that a shutdown can end them once the records
// they have received are answered (an idle stream would otherwise hold the
// drain until the grace period ran out).
class StreamRegistry {
 public:
  class Member {
   public:
    // Answer what has been received, then end the call (UNAVAILABLE).
    // Called with the registry's lock held: must not call back into it.
    virtual void EndForShutdown() = 0;

   protected:
    ~Member() = default;
  };

  // False once EndAll has run: the stream must end at once.
  bool Add(Member* member);
  void Remove(Member* member);
  // Tells every open stream to end, and refuses new ones.
  void EndAll();
  int open() const;

 private:
  // A std::mutex, not absl::Mutex: ThreadSanitizer sees the former's
  // ordering, not that of Debian's uninstrumented Abseil.
  mutable std::mutex mu_;
  absl::flat_hash_set<Member*> members_;  // Guarded by mu_.
  bool ending_ = false;                   // Guarded by mu_.
};

// Longest record id echoed; longer ids are an error for their record.
inline constexpr int kMaxRecordIdBytes = 256;

// A new reactor for one AdjudicateStream call; it deletes itself when the
// call is done.
grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
NewAdjudicateStream(const GrpcRulesEdge& edge, StreamRegistry* registry,
                    grpc::CallbackServerContext* context);

}  // namespace halma::service

#endif  // HALMA_SERVICE_GRPC_ADJUDICATE_STREAM_H_
