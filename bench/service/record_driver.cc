// halma_record_driver: the rules' part of an Adjudicate call read in place,
// without gRPC, for callgrind (bench/callgrind.sh runs it):
//
//   halma_record_driver <records file> <preset> [unary|stream]
//
// Every record of the file (bench/data/records, one per line) becomes the
// request bytes a client sends (a serialized AdjudicateRequest, or for
// `stream` an AdjudicateStreamRequest with an id); AnswerRecords then does
// for each what the gRPC edge does between receiving those bytes and
// handing gRPC the answer's (service/grpc/unary_calls.cc
// AdjudicateInPlace): the in-place read of the request, the variant's
// parse, RulesCore::AdjudicateView (the replay and the answer's fields) and
// the answer's serialization, after one unmeasured pass (WarmUp). Not
// inlined nor folded with WarmUp: its name is the toggle pattern.
// Prints the records and plies to divide by.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "google/protobuf/arena.h"
#include "halma/v1/halma.pb.h"
#include "service/core/record_view.h"
#include "service/core/rules_core.h"

namespace {

namespace v1 = ::halma::v1;

std::vector<std::string> ReadRequests(const char* path,
                                      const std::string& preset, bool stream) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  std::vector<std::string> requests;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    v1::AdjudicateStreamRequest request;
    request.set_id("record-" + std::to_string(requests.size()));
    v1::AdjudicateRequest* record = request.mutable_record();
    record->mutable_variant()->set_preset(preset);
    std::istringstream words(line);
    for (std::string move; words >> move;) record->add_moves(move);
    requests.push_back(stream ? request.SerializeAsString()
                              : record->SerializeAsString());
  }
  return requests;
}

// Returns the legal moves played, summed over the records.
[[gnu::always_inline]] inline long Answer(
    const halma::service::RulesCore& core,
    const std::vector<std::string>& requests, bool stream,
    std::string* answer_bytes) {
  halma::service::AdjudicateRequestView view;
  long plies = 0;
  for (const std::string& bytes : requests) {
    absl::string_view id;
    const bool read =
        stream ? halma::service::ReadAdjudicateStreamRequest(bytes, &id, &view)
               : halma::service::ReadAdjudicateRequest(bytes, &view);
    if (!read) std::abort();
    alignas(16) char first_block[8192];
    google::protobuf::ArenaOptions options;
    options.initial_block = first_block;
    options.initial_block_size = sizeof(first_block);
    google::protobuf::Arena arena(options);
    auto* variant = google::protobuf::Arena::CreateMessage<v1::Variant>(&arena);
    if (!variant->ParseFromArray(view.variant.data(),
                                 static_cast<int>(view.variant.size()))) {
      std::abort();
    }
    auto* answer =
        google::protobuf::Arena::CreateMessage<v1::AdjudicateStreamResponse>(
            &arena);
    const std::optional<absl::Status> status =
        core.AdjudicateView(*variant, view, answer->mutable_result());
    if (!status.has_value() || !status->ok()) std::abort();
    if (stream) answer->set_id(std::string(id));
    if (answer->result().has_illegal_move()) std::abort();
    plies += answer->result().moves_played();
    answer_bytes->clear();
    if (!(stream ? answer->SerializeToString(answer_bytes)
                 : answer->result().SerializeToString(answer_bytes))) {
      std::abort();
    }
  }
  return plies;
}

// The measured pass (the toggle pattern) and the warm-up before it.
[[gnu::noipa]] long AnswerRecords(const halma::service::RulesCore& core,
                                  const std::vector<std::string>& requests,
                                  bool stream, std::string* answer_bytes) {
  return Answer(core, requests, stream, answer_bytes);
}
[[gnu::noipa]] long WarmUp(const halma::service::RulesCore& core,
                           const std::vector<std::string>& requests,
                           bool stream, std::string* answer_bytes) {
  return Answer(core, requests, stream, answer_bytes);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s <records file> <preset> [unary|stream]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argc == 4 ? argv[3] : "unary";
  if (mode != "unary" && mode != "stream") {
    std::fprintf(stderr, "mode %s: expected unary or stream\n", mode.c_str());
    return 2;
  }
  const bool stream = mode == "stream";
  const std::vector<std::string> requests =
      ReadRequests(argv[1], argv[2], stream);
  const halma::service::RulesCore core;
  std::string answer_bytes;
  // Once unmeasured: the thread's buffers and the core's caches warm.
  WarmUp(core, requests, stream, &answer_bytes);
  const long plies = AnswerRecords(core, requests, stream, &answer_bytes);
  std::printf("records %zu plies %ld\n", requests.size(), plies);
  return 0;
}
