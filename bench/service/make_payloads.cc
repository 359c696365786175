// halma_service_payloads: the request payloads of the service benchmark
// (bench/service/service_bench.py) and the answer the server must give to
// each of them.
//
//   halma_service_payloads --out=DIR [--distinct=16] [--dense_positions=16]
//       [--stream_records=128]
//   halma_service_payloads --out=DIR --method=LegalMoves
//       --json='{"variant": {"preset": "brainking-8x8"}}' [--name=adhoc]
//       (one command)
//
// Every request is written as one gRPC frame (a 0 byte, the 4-byte
// big-endian length, the serialized message), the body h2load posts with
// -d. Next to it goes the serialized answer, computed in this process by
// the rules core (service/core/rules_core.h), the code the server runs
// (grpc.health.v1 Check answers `status: SERVING`). DIR/manifest.json lists the
// scenarios: name, gRPC method path and, per request, its file, the file of the
// expected answer and the answer's size in bytes.
//
// The AdjudicateStream scenarios are the exception: their one request is
// a whole stream, --stream_records framed AdjudicateStreamRequest messages
// (the records of the Adjudicate scenario of the same kind, in turn, each
// with an id) that h2load posts as the body of every call, and their
// expected answer is the framed AdjudicateStreamResponse messages the
// server sends back, in order. Their manifest entry says "stream": true,
// the records per call and the unary scenario they compare with, and its
// request_bytes and response_bytes are the sizes of those files (frames
// included).
//
// The requests come from the committed position sets (bench/data) and from
// seeded games played with the engine (bench/seeded_games.h, the games of
// bench/data/records): std::mt19937 with fixed seeds and only rng() % k, so
// the payloads are the same with every standard library.
// With --json, DIR holds the floor (Health/Check) and that one request.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/util/json_util.h"
#include "grpc/health/v1/health.pb.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/status.h"
#include "halma/v1/halma.pb.h"
#include "halma/variant.h"
#include "seeded_games.h"
#include "service/core/rules_core.h"

ABSL_FLAG(std::string, out, "", "output directory (created if missing)");
ABSL_FLAG(std::string, data_dir, HALMA_BENCH_DATA_DIR,
          "directory of the dense position sets <preset>.txt");
ABSL_FLAG(int, distinct, 16, "distinct requests per scenario");
ABSL_FLAG(int, dense_positions, 16,
          "positions of bench/data per legal_dense scenario");
ABSL_FLAG(int, stream_records, 128,
          "records per AdjudicateStream call (one h2load request body); a "
          "multiple of --distinct keeps the unary scenario's mix");
ABSL_FLAG(std::uint32_t, seed, 20240909u, "seed of the games played here");
ABSL_FLAG(std::string, method, "",
          "ad hoc: the method of the --json request (ValidateMove, "
          "LegalMoves, Adjudicate, ListVariants, Check, or a full path "
          "such as /halma.v1.HalmaRules/LegalMoves)");
ABSL_FLAG(std::string, json, "", "ad hoc: one request as JSON");
ABSL_FLAG(std::string, name, "adhoc", "ad hoc: the scenario's name");

namespace {

namespace v1 = halma::v1;
using halma::GameStatus;
using halma::LegalMove;
using halma::MoveText;
using halma::Position;
using halma::Seat;
using halma::Square;
using halma::Variant;
using halma::service::RulesCore;

constexpr char kRules[] = "/halma.v1.HalmaRules/";
constexpr char kHealthCheck[] = "/grpc.health.v1.Health/Check";
constexpr char kValidatePreset[] = "classic-16x16";

// One request and the answer it must get.
struct Payload {
  std::string request;   // Serialized request message.
  std::string response;  // Serialized answer.
};

struct Scenario {
  std::string name;
  std::string method;  // gRPC path, e.g. /halma.v1.HalmaRules/LegalMoves.
  std::string note;    // What the requests are, for the manifest.
  std::vector<Payload> payloads;
  // AdjudicateStream: the records per call (each payload is then the
  // framed messages of one whole stream, both ways), and the Adjudicate
  // scenario of the same records. 0 and "" for a unary scenario.
  int records_per_call = 0;
  std::string compare_with = "";
};

// Answers requests with the server's own code.
class Answerer {
 public:
  absl::StatusOr<Payload> Validate(const v1::ValidateMoveRequest& r) const {
    v1::ValidateMoveResponse response;
    return Finish(r, service_.ValidateMove(r, &response), response);
  }
  absl::StatusOr<Payload> Legal(const v1::LegalMovesRequest& r) const {
    v1::LegalMovesResponse response;
    return Finish(r, service_.LegalMoves(r, &response), response);
  }
  absl::StatusOr<Payload> Adjudicate(const v1::AdjudicateRequest& r) const {
    v1::AdjudicateResponse response;
    return Finish(r, service_.Adjudicate(r, &response), response);
  }
  // One record of AdjudicateStream, answered as the stream answers it:
  // the id echoed and the Adjudicate answer, or the error Adjudicate would
  // end the call with. Messages, not yet framed.
  absl::StatusOr<Payload> StreamRecord(
      const v1::AdjudicateStreamRequest& r) const {
    v1::AdjudicateStreamResponse response;
    response.set_id(r.id());
    const absl::Status status =
        service_.Adjudicate(r.record(), response.mutable_result());
    if (!status.ok()) {
      response.mutable_error()->set_code(static_cast<int>(status.code()));
      response.mutable_error()->set_message(std::string(status.message()));
    }
    return Finish(r, absl::OkStatus(), response);
  }
  absl::StatusOr<Payload> Suggest(const v1::SuggestMoveRequest& r) const {
    v1::SuggestMoveResponse response;
    return Finish(r, service_.SuggestMove(r, &response), response);
  }
  absl::StatusOr<Payload> Variants(const v1::ListVariantsRequest& r) const {
    v1::ListVariantsResponse response;
    return Finish(r, service_.ListVariants(r, &response), response);
  }
  // The server registers "" and halma.v1.HalmaRules as SERVING.
  absl::StatusOr<Payload> Health(
      const grpc::health::v1::HealthCheckRequest& r) const {
    if (!r.service().empty() && r.service() != "halma.v1.HalmaRules") {
      return absl::InvalidArgumentError(absl::StrCat(
          "health service \"", r.service(), "\" is not one the server serves"));
    }
    grpc::health::v1::HealthCheckResponse response;
    response.set_status(grpc::health::v1::HealthCheckResponse::SERVING);
    return Finish(r, absl::OkStatus(), response);
  }

 private:
  static absl::StatusOr<Payload> Finish(
      const google::protobuf::Message& request, const absl::Status& status,
      const google::protobuf::Message& response) {
    if (!status.ok()) return status;
    return Payload{request.SerializeAsString(), response.SerializeAsString()};
  }

  RulesCore service_;
};

using halma::bench::LegalMovesInAnswerOrder;
using halma::bench::MoveScratch;
using halma::bench::PathMove;

// The dense position set of a preset, as written (comments skipped).
absl::StatusOr<std::vector<std::string>> ReadPositions(
    const std::string& preset) {
  const std::string path =
      absl::StrCat(absl::GetFlag(FLAGS_data_dir), "/", preset, ".txt");
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  absl::StatusOr<Variant> variant = halma::PresetVariant(preset);
  if (!variant.ok()) return variant.status();
  std::vector<std::string> positions;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    absl::StatusOr<Position> parsed = halma::ParsePosition(line, *variant);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", parsed.status().message()));
    }
    positions.push_back(line);
  }
  if (positions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no positions"));
  }
  return positions;
}

// `count` indices spread evenly over [0, size).
std::vector<int> Spread(int size, int count) {
  std::vector<int> picked;
  for (int i = 0; i < count; ++i) {
    picked.push_back(static_cast<int>(static_cast<long>(i) * size / count) %
                     size);
  }
  return picked;
}

// One gRPC frame: a 0 byte (not compressed), the message's length in 4
// bytes big-endian, the message.
std::string Frame(const std::string& message) {
  const std::uint32_t n = static_cast<std::uint32_t>(message.size());
  std::string out(5, '\0');
  out[1] = static_cast<char>(n >> 24);
  out[2] = static_cast<char>(n >> 16);
  out[3] = static_cast<char>(n >> 8);
  out[4] = static_cast<char>(n);
  return out + message;
}

// --- the scenarios ---------------------------------------------------------

absl::Status AddPayload(absl::StatusOr<Payload> payload, Scenario* scenario) {
  if (!payload.ok()) {
    return absl::InternalError(absl::StrCat(
        scenario->name,
        ": the service refuses a request: ", payload.status().ToString()));
  }
  scenario->payloads.push_back(*std::move(payload));
  return absl::OkStatus();
}

absl::StatusOr<Scenario> HealthScenario(const Answerer& answerer) {
  Scenario s{"health",
             kHealthCheck,
             "grpc.health.v1.Health/Check of the server as a whole (service "
             "\"\"), the floor",
             {}};
  absl::Status status =
      AddPayload(answerer.Health(grpc::health::v1::HealthCheckRequest()), &s);
  if (!status.ok()) return status;
  return s;
}

absl::StatusOr<Scenario> ListVariantsScenario(const Answerer& answerer) {
  Scenario s{"list_variants",
             absl::StrCat(kRules, "ListVariants"),
             "the five presets (the one request there is)",
             {}};
  absl::Status status =
      AddPayload(answerer.Variants(v1::ListVariantsRequest()), &s);
  if (!status.ok()) return status;
  return s;
}

absl::StatusOr<Scenario> LegalStartScenario(const Answerer& answerer,
                                            const std::string& preset) {
  Scenario s{absl::StrCat("legal_start/", preset),
             absl::StrCat(kRules, "LegalMoves"),
             "the start position (position left empty): one request",
             {}};
  v1::LegalMovesRequest request;
  request.mutable_variant()->set_preset(preset);
  absl::Status status = AddPayload(answerer.Legal(request), &s);
  if (!status.ok()) return status;
  return s;
}

absl::StatusOr<Scenario> LegalDenseScenario(
    const Answerer& answerer, const std::string& preset,
    const std::vector<std::string>& positions, int count) {
  Scenario s{absl::StrCat("legal_dense/", preset),
             absl::StrCat(kRules, "LegalMoves"),
             absl::StrCat(count, " dense midgame positions of bench/data/",
                          preset, ".txt, spread over the file"),
             {}};
  for (int i : Spread(static_cast<int>(positions.size()), count)) {
    v1::LegalMovesRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(positions[i]);
    absl::Status status = AddPayload(answerer.Legal(request), &s);
    if (!status.ok()) return status;
  }
  return s;
}

// SuggestMove at `level` on dense midgame positions of `preset` (those in
// progress: the set has a few finished games), seeded by their index. The
// answers are reproducible (a level is a node budget), so they are checked
// like every other.
absl::StatusOr<Scenario> SuggestScenario(
    const Answerer& answerer, const std::string& preset,
    const std::vector<std::string>& positions, int level, int count) {
  Scenario s{
      absl::StrCat("suggest/", preset, "-level-", level),
      absl::StrCat(kRules, "SuggestMove"),
      absl::StrCat("SuggestMove at level ", level, ", 3 candidates, on ", count,
                   " dense midgame positions in progress of "
                   "bench/data/",
                   preset, ".txt, spread over the file"),
      {}};
  for (int i : Spread(static_cast<int>(positions.size()), 4 * count)) {
    if (static_cast<int>(s.payloads.size()) == count) break;
    v1::SuggestMoveRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(positions[i]);
    request.set_level(level);
    request.set_candidates(3);
    request.set_seed(static_cast<std::uint64_t>(i));
    absl::StatusOr<Payload> payload = answerer.Suggest(request);
    if (absl::IsInvalidArgument(payload.status())) continue;  // Finished.
    absl::Status status = AddPayload(std::move(payload), &s);
    if (!status.ok()) return status;
  }
  if (static_cast<int>(s.payloads.size()) < count) {
    return absl::InternalError(
        absl::StrCat(s.name, ": too few positions in progress"));
  }
  return s;
}

v1::ValidateMoveRequest ValidateRequest(const std::string& position,
                                        const std::string& move) {
  v1::ValidateMoveRequest request;
  request.mutable_variant()->set_preset(kValidatePreset);
  request.set_position(position);
  request.set_move(move);
  return request;
}

// Steps and one-hop jumps, alternately,
// one per position.
absl::StatusOr<Scenario> ValidateShortScenario(
    const Answerer& answerer, const Variant& variant,
    const std::vector<std::string>& positions, int count, std::mt19937* rng,
    MoveScratch* scratch) {
  Scenario s{"validate_short",
             absl::StrCat(kRules, "ValidateMove"),
             "a step or a one-hop jump "
             "(alternately, full path) on "
             "dense "
             "classic-16x16 positions",
             {}};
  const int size = static_cast<int>(positions.size());
  const std::vector<int> picked = Spread(size, count);
  for (int i = 0; i < count; ++i) {
    // The i-th spread position, or the
    // next one that has such a move.
    for (int p = 0; p < size; ++p) {
      const std::string& text = positions[(picked[i] + p) % size];
      const Position position = *halma::ParsePosition(text, variant);
      std::vector<PathMove> wanted;
      for (PathMove& m : LegalMovesInAnswerOrder(variant, position, scratch)) {
        if (m.move.hops == i % 2) wanted.push_back(std::move(m));
      }
      if (wanted.empty()) continue;
      const PathMove& m = wanted[(*rng)() % wanted.size()];
      absl::Status status =
          AddPayload(answerer.Validate(ValidateRequest(text, m.Text())), &s);
      if (!status.ok()) return status;
      break;
    }
  }
  if (static_cast<int>(s.payloads.size()) < count) {
    return absl::InternalError(
        "validate_short: too few moves "
        "found");
  }
  return s;
}

// The longest fewest-hop chain of each
// position; the positions with the
// longest ones.
absl::StatusOr<Scenario> ValidateLongScenario(
    const Answerer& answerer, const Variant& variant,
    const std::vector<std::string>& positions, int count,
    MoveScratch* scratch) {
  struct Longest {
    int hops;
    int position;
    std::string move;
  };
  std::vector<Longest> longest;
  for (int p = 0; p < static_cast<int>(positions.size()); ++p) {
    const Position position = *halma::ParsePosition(positions[p], variant);
    Longest best{-1, p, ""};
    for (const PathMove& m :
         LegalMovesInAnswerOrder(variant, position, scratch)) {
      if (m.move.hops > best.hops) best = {m.move.hops, p, m.Text()};
    }
    if (best.hops > 0) longest.push_back(best);
  }
  std::stable_sort(
      longest.begin(), longest.end(),
      [](const Longest& a, const Longest& b) { return a.hops > b.hops; });
  if (static_cast<int>(longest.size()) < count) {
    return absl::InternalError(
        "validate_long: too few "
        "positions");
  }
  longest.resize(count);
  Scenario s{"validate_long",
             absl::StrCat(kRules, "ValidateMove"),
             absl::StrFormat("the longest fewest-hop "
                             "chain (full path) of the "
                             "%d dense classic-16x16 "
                             "positions that have the "
                             "longest: %d to %d hops",
                             count, longest.back().hops, longest.front().hops),
             {}};
  for (const Longest& l : longest) {
    absl::Status status = AddPayload(
        answerer.Validate(ValidateRequest(positions[l.position], l.move)), &s);
    if (!status.ok()) return status;
  }
  return s;
}

// Candidate illegal moves of one kind
// in `position`, in board order.
std::vector<std::string> IllegalCandidates(const Variant& variant,
                                           const Position& position,
                                           v1::IllegalReason reason) {
  const int n = variant.size;
  const auto on_board = [n](int x, int y) {
    return x >= 0 && y >= 0 && x < n && y < n;
  };
  const auto sq = [](int x, int y) {
    return halma::FormatSquare(halma::MakeSquare(x, y));
  };
  std::vector<std::string> out;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      Seat seat;
      const bool occupied = position.PieceAt(halma::MakeSquare(x, y), &seat);
      const bool own = occupied && seat == position.to_move;
      for (int d = 0; d < halma::kDirectionCount; ++d) {
        const int x1 = x + halma::kDirX[d], y1 = y + halma::kDirY[d];
        const int x2 = x1 + halma::kDirX[d], y2 = y1 + halma::kDirY[d];
        if (!on_board(x1, y1)) continue;
        Seat other;
        const bool near = position.PieceAt(halma::MakeSquare(x1, y1), &other);
        const bool far = on_board(x2, y2) &&
                         position.PieceAt(halma::MakeSquare(x2, y2), &other);
        switch (reason) {
          case v1::ILLEGAL_REASON_DESTINATION_OCCUPIED:
            if (own && near) out.push_back(sq(x, y) + "-" + sq(x1, y1));
            break;
          case v1::ILLEGAL_REASON_EMPTY_ORIGIN:
            if (!occupied && !near) out.push_back(sq(x, y) + "-" + sq(x1, y1));
            break;
          case v1::ILLEGAL_REASON_NOT_YOUR_PIECE:
            if (occupied && !own && !near) {
              out.push_back(sq(x, y) + "-" + sq(x1, y1));
            }
            break;
          case v1::ILLEGAL_REASON_NOTHING_TO_JUMP:
            if (own && !near && on_board(x2, y2) && !far) {
              out.push_back(sq(x, y) + "-" + sq(x2, y2));
            }
            break;
          case v1::ILLEGAL_REASON_NOT_A_HOP:
            // A step, then another
            // step: steps never
            // combine.
            if (own && !near && on_board(x2, y2) && !far) {
              out.push_back(sq(x, y) + "-" + sq(x1, y1) + "-" + sq(x2, y2));
            }
            break;
          default:
            break;
        }
      }
      // Shorthand to a far empty square
      // that no chain reaches.
      if (reason == v1::ILLEGAL_REASON_UNREACHABLE && own) {
        for (int ty = 0; ty < n; ++ty) {
          for (int tx = 0; tx < n; ++tx) {
            const int dx = std::abs(tx - x), dy = std::abs(ty - y);
            if (std::max(dx, dy) < 3 || dx % 2 != 0 || dy % 2 != 0) continue;
            if (position.PieceAt(halma::MakeSquare(tx, ty), &seat)) continue;
            out.push_back(sq(x, y) + "-" + sq(tx, ty));
          }
        }
      }
    }
  }
  return out;
}

// Illegal moves of six kinds in turn,
// each checked to be refused for that
// reason, on dense positions.
absl::StatusOr<Scenario> ValidateIllegalScenario(
    const Answerer& answerer, const Variant& variant,
    const std::vector<std::string>& positions, int count, std::mt19937* rng) {
  const v1::IllegalReason reasons[] = {
      v1::ILLEGAL_REASON_DESTINATION_OCCUPIED,
      v1::ILLEGAL_REASON_UNREACHABLE,
      v1::ILLEGAL_REASON_EMPTY_ORIGIN,
      v1::ILLEGAL_REASON_NOT_YOUR_PIECE,
      v1::ILLEGAL_REASON_NOTHING_TO_JUMP,
      v1::ILLEGAL_REASON_NOT_A_HOP,
  };
  Scenario s{"validate_illegal",
             absl::StrCat(kRules, "ValidateMove"),
             "illegal moves on dense "
             "classic-16x16 positions, in "
             "turn: "
             "destination occupied, "
             "unreachable (shorthand), empty "
             "origin, "
             "not your piece, nothing to "
             "jump, not a hop",
             {}};
  const std::vector<int> picked =
      Spread(static_cast<int>(positions.size()), count);
  for (int i = 0; i < count; ++i) {
    const v1::IllegalReason reason = reasons[i % std::size(reasons)];
    bool found = false;
    for (int p = 0; p < static_cast<int>(positions.size()) && !found; ++p) {
      const std::string& text = positions[(picked[i] + p) % positions.size()];
      const Position position = *halma::ParsePosition(text, variant);
      std::vector<std::string> candidates =
          IllegalCandidates(variant, position, reason);
      // Start at a random candidate,
      // take the first the service
      // refuses for this reason.
      const size_t start =
          candidates.empty() ? 0 : (*rng)() % candidates.size();
      for (size_t k = 0; k < candidates.size() && !found; ++k) {
        const std::string& move = candidates[(start + k) % candidates.size()];
        absl::StatusOr<Payload> payload =
            answerer.Validate(ValidateRequest(text, move));
        if (!payload.ok()) continue;
        v1::ValidateMoveResponse response;
        response.ParseFromString(payload->response);
        if (response.legal() || response.reason() != reason) continue;
        s.payloads.push_back(*std::move(payload));
        found = true;
      }
    }
    if (!found) {
      return absl::InternalError(
          absl::StrCat("validate_illegal: no "
                       "move refused for ",
                       v1::IllegalReason_Name(reason)));
    }
  }
  return s;
}

// Records of `plies` legal moves from
// the start, the game not decided
// before the last: seeded games mixing
// greedy advance and random moves,
// keeping those that last.
absl::StatusOr<Scenario> AdjudicateScenario(const Answerer& answerer,
                                            const std::string& preset,
                                            int plies, int count,
                                            std::uint32_t seed,
                                            MoveScratch* scratch) {
  absl::StatusOr<Variant> variant = halma::PresetVariant(preset);
  if (!variant.ok()) return variant.status();
  Scenario s{absl::StrCat("adjudicate/", preset, "-", plies),
             absl::StrCat(kRules, "Adjudicate"),
             "",
             {}};
  int games = 0;
  for (std::vector<std::string>& moves : halma::bench::SeededRecords(
           *variant, seed, plies, count, scratch, &games)) {
    v1::AdjudicateRequest request;
    request.mutable_variant()->set_preset(preset);
    for (std::string& m : moves) request.add_moves(std::move(m));
    absl::StatusOr<Payload> payload = answerer.Adjudicate(request);
    if (!payload.ok()) return payload.status();
    v1::AdjudicateResponse response;
    response.ParseFromString(payload->response);
    if (response.moves_played() != plies || response.has_illegal_move()) {
      return absl::InternalError(absl::StrCat(s.name,
                                              ": a played game is not "
                                              "a legal record"));
    }
    s.payloads.push_back(*std::move(payload));
  }
  if (static_cast<int>(s.payloads.size()) < count) {
    return absl::InternalError(
        absl::StrCat(s.name, ": too few games last ", plies, " plies"));
  }
  s.note = absl::StrFormat(
      "%d-move records from the start, "
      "every move legal (full paths), "
      "the "
      "game not decided before the "
      "last: the first %d of %d seeded "
      "games "
      "(greedy advance, 10-40%% random "
      "moves) that lasted",
      plies, count, games);
  return s;
}

// The records of `unary` (an Adjudicate
// scenario) on AdjudicateStream: one
// stream of `records` records, the
// unary requests in turn, record i with
// id "rec-<i>". The request is the
// stream's framed messages, the answer
// the framed answers the server sends,
// in order.
absl::StatusOr<Scenario> AdjudicateStreamScenario(const Answerer& answerer,
                                                  const Scenario& unary,
                                                  int records) {
  constexpr absl::string_view kUnaryPrefix = "adjudicate/";
  if (!absl::StartsWith(unary.name, kUnaryPrefix) || unary.payloads.empty()) {
    return absl::InternalError(absl::StrCat(unary.name,
                                            ": not an Adjudicate "
                                            "scenario"));
  }
  Scenario s{
      absl::StrCat("adjudicate_stream/",
                   absl::string_view(unary.name).substr(kUnaryPrefix.size())),
      absl::StrCat(kRules, "AdjudicateStream"),
      "",
      {},
      records,
      unary.name};
  Payload stream;
  for (int i = 0; i < records; ++i) {
    const Payload& record = unary.payloads[i % unary.payloads.size()];
    v1::AdjudicateStreamRequest request;
    request.set_id(absl::StrFormat("rec-%03d", i));
    if (!request.mutable_record()->ParseFromString(record.request)) {
      return absl::InternalError(absl::StrCat(unary.name, ": bad request"));
    }
    absl::StatusOr<Payload> answered = answerer.StreamRecord(request);
    if (!answered.ok()) return answered.status();
    v1::AdjudicateStreamResponse response;
    response.ParseFromString(answered->response);
    // The same adjudication as the
    // unary call's, not an error.
    if (!response.has_result() ||
        response.result().SerializeAsString() != record.response) {
      return absl::InternalError(absl::StrCat(s.name, ": record ", i,
                                              " is not answered as "
                                              "Adjudicate answers it"));
    }
    stream.request += Frame(answered->request);
    stream.response += Frame(answered->response);
  }
  s.payloads.push_back(std::move(stream));
  s.note = absl::StrFormat(
      "one stream of %d records per "
      "call: the %d records of %s in "
      "turn "
      "(ids rec-000 ...), answered in "
      "order",
      records, static_cast<int>(unary.payloads.size()), unary.name);
  return s;
}

absl::StatusOr<std::vector<Scenario>> StandardScenarios() {
  const int distinct = absl::GetFlag(FLAGS_distinct);
  const int dense = absl::GetFlag(FLAGS_dense_positions);
  const int stream_records = absl::GetFlag(FLAGS_stream_records);
  const std::uint32_t seed = absl::GetFlag(FLAGS_seed);
  if (distinct < 1 || dense < 1 || stream_records < 1) {
    return absl::InvalidArgumentError(
        "--distinct, --dense_positions "
        "and --stream_records must be "
        "positive");
  }
  Answerer answerer;
  auto scratch = std::make_unique<MoveScratch>();
  std::mt19937 rng(seed);
  std::vector<Scenario> scenarios;
  auto add = [&scenarios](absl::StatusOr<Scenario> s) {
    if (!s.ok()) return s.status();
    scenarios.push_back(*std::move(s));
    return absl::OkStatus();
  };
  absl::Status status = add(HealthScenario(answerer));
  if (status.ok()) status = add(ListVariantsScenario(answerer));
  const std::vector<std::string>& presets = halma::PresetNames();
  for (const std::string& preset : presets) {
    if (status.ok()) status = add(LegalStartScenario(answerer, preset));
  }
  for (const std::string& preset : presets) {
    if (!status.ok()) break;
    absl::StatusOr<std::vector<std::string>> positions = ReadPositions(preset);
    if (!positions.ok()) return positions.status();
    status = add(LegalDenseScenario(answerer, preset, *positions, dense));
  }
  if (!status.ok()) return status;
  absl::StatusOr<Variant> variant = halma::PresetVariant(kValidatePreset);
  absl::StatusOr<std::vector<std::string>> positions =
      ReadPositions(kValidatePreset);
  if (!variant.ok()) return variant.status();
  if (!positions.ok()) return positions.status();
  status = add(ValidateShortScenario(answerer, *variant, *positions, distinct,
                                     &rng, scratch.get()));
  // The cheapest level: a search's cost
  // beside the rules' calls (a stronger
  // level costs its node budget,
  // docs/bot.md).
  if (status.ok()) {
    status = add(
        SuggestScenario(answerer, kValidatePreset, *positions, 1, distinct));
  }
  if (status.ok()) {
    status = add(ValidateLongScenario(answerer, *variant, *positions, distinct,
                                      scratch.get()));
  }
  if (status.ok()) {
    status = add(ValidateIllegalScenario(answerer, *variant, *positions,
                                         distinct, &rng));
  }
  if (status.ok()) {
    status = add(AdjudicateScenario(answerer, "classic-16x16", 300, distinct,
                                    seed, scratch.get()));
  }
  if (status.ok()) {
    status = add(AdjudicateScenario(answerer, "brainking-8x8", 60, distinct,
                                    seed + 1, scratch.get()));
  }
  if (!status.ok()) return status;
  // The same records on
  // AdjudicateStream, brainking first
  // (the cheaper). Copies: adding to
  // `scenarios` may move its elements.
  const Scenario classic = scenarios[scenarios.size() - 2];
  const Scenario brainking = scenarios[scenarios.size() - 1];
  status = add(AdjudicateStreamScenario(answerer, brainking, stream_records));
  if (status.ok()) {
    status = add(AdjudicateStreamScenario(answerer, classic, stream_records));
  }
  if (!status.ok()) return status;
  return scenarios;
}

// One request given as JSON, answered
// like the others.
absl::StatusOr<Scenario> AdHocScenario(const Answerer& answerer) {
  std::string method = absl::GetFlag(FLAGS_method);
  const std::string& json = absl::GetFlag(FLAGS_json);
  if (const size_t slash = method.rfind('/'); slash != std::string::npos) {
    method = method.substr(slash + 1);
  }
  Scenario s{absl::GetFlag(FLAGS_name), "", "ad hoc, from JSON", {}};
  auto parse = [&json](google::protobuf::Message* message) {
    const auto status =
        google::protobuf::util::JsonStringToMessage(json, message);
    if (status.ok()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("--json is not a ", message->GetDescriptor()->full_name(),
                     ": ", status.ToString()));
  };
  absl::StatusOr<Payload> payload;
  if (method == "ValidateMove") {
    v1::ValidateMoveRequest request;
    absl::Status status = parse(&request);
    payload = status.ok() ? answerer.Validate(request) : status;
  } else if (method == "LegalMoves") {
    v1::LegalMovesRequest request;
    absl::Status status = parse(&request);
    payload = status.ok() ? answerer.Legal(request) : status;
  } else if (method == "Adjudicate") {
    v1::AdjudicateRequest request;
    absl::Status status = parse(&request);
    payload = status.ok() ? answerer.Adjudicate(request) : status;
  } else if (method == "ListVariants") {
    v1::ListVariantsRequest request;
    absl::Status status = parse(&request);
    payload = status.ok() ? answerer.Variants(request) : status;
  } else if (method == "SuggestMove") {
    v1::SuggestMoveRequest request;
    absl::Status status = parse(&request);
    payload = status.ok() ? answerer.Suggest(request) : status;
  } else if (method == "Check") {
    grpc::health::v1::HealthCheckRequest request;
    absl::Status status = parse(&request);
    payload = status.ok() ? answerer.Health(request) : status;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("--method \"",
                                                   absl::GetFlag(FLAGS_method),
                                                   "\": expected "
                                                   "ValidateMove, LegalMoves, "
                                                   "Adjudicate, ListVariants, "
                                                   "SuggestMove or Check"));
  }
  s.method = method == "Check" ? std::string(kHealthCheck)
                               : absl::StrCat(kRules, method);
  absl::Status status = AddPayload(std::move(payload), &s);
  if (!status.ok()) return status;
  return s;
}

// --- output
// ----------------------------------------------------------------

bool WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// JSON string literal (the texts here
// are plain ASCII).
std::string Quote(absl::string_view text) {
  return absl::StrCat(
      "\"", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""}}), "\"");
}

absl::Status WriteScenarios(const std::string& dir,
                            const std::vector<Scenario>& scenarios) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot create ", dir, ": ", error.message()));
  }
  std::string manifest = absl::StrCat(
      "{\n  \"generator\": "
      "\"halma_service_payloads\",\n  "
      "\"seed\": ",
      absl::GetFlag(FLAGS_seed), ",\n  \"scenarios\": [");
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i];
    const std::string sub = absl::StrReplaceAll(s.name, {{"/", "_"}});
    fs::create_directories(fs::path(dir) / sub, error);
    if (error) return absl::InternalError(error.message());
    absl::StrAppend(&manifest, i == 0 ? "" : ",",
                    "\n    {\"name\": ", Quote(s.name),
                    ", \"method\": ", Quote(s.method),
                    ",\n     \"note\": ", Quote(s.note), ",\n     ");
    if (s.records_per_call > 0) {
      absl::StrAppend(&manifest,
                      "\"stream\": true, "
                      "\"records_per_call\": ",
                      s.records_per_call,
                      ", \"compare_with\": ", Quote(s.compare_with),
                      ",\n     ");
    }
    absl::StrAppend(&manifest, "\"requests\": [");
    for (size_t k = 0; k < s.payloads.size(); ++k) {
      const std::string request = absl::StrFormat("%s/req_%02d.bin", sub, k);
      const std::string response = absl::StrFormat("%s/resp_%02d.bin", sub, k);
      // A stream's payloads are framed
      // already, both ways.
      const bool stream = s.records_per_call > 0;
      if (!WriteFile(
              fs::path(dir) / request,
              stream ? s.payloads[k].request : Frame(s.payloads[k].request)) ||
          !WriteFile(fs::path(dir) / response, s.payloads[k].response)) {
        return absl::InternalError(absl::StrCat("cannot write in ", dir));
      }
      absl::StrAppend(&manifest, k == 0 ? "" : ",",
                      "\n       {\"request\": ", Quote(request),
                      ", \"response\": ", Quote(response),
                      ", \"request_bytes\": ", s.payloads[k].request.size(),
                      ", \"response_bytes\": ", s.payloads[k].response.size(),
                      "}");
    }
    absl::StrAppend(&manifest, "]}");
  }
  absl::StrAppend(&manifest, "\n  ]\n}\n");
  if (!WriteFile(fs::path(dir) / "manifest.json", manifest)) {
    return absl::InternalError(absl::StrCat("cannot write ", dir));
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "writes the service benchmark's request payloads and expected answers: "
      "--out=DIR [--distinct=16] [--dense_positions=16] "
      "[--stream_records=128], or one ad hoc "
      "request: --out=DIR --method=M --json=J [--name=N]");
  absl::ParseCommandLine(argc, argv);
  const std::string dir = absl::GetFlag(FLAGS_out);
  if (dir.empty()) {
    std::fprintf(stderr, "halma_service_payloads: --out=DIR is required\n");
    return 2;
  }
  absl::StatusOr<std::vector<Scenario>> scenarios;
  if (!absl::GetFlag(FLAGS_json).empty()) {
    Answerer answerer;
    absl::StatusOr<Scenario> floor = HealthScenario(answerer);
    absl::StatusOr<Scenario> adhoc = AdHocScenario(answerer);
    if (!floor.ok()) {
      scenarios = floor.status();
    } else if (!adhoc.ok()) {
      scenarios = adhoc.status();
    } else {
      scenarios = std::vector<Scenario>{*std::move(floor), *std::move(adhoc)};
    }
  } else {
    scenarios = StandardScenarios();
  }
  absl::Status status = scenarios.status();
  if (status.ok()) status = WriteScenarios(dir, *scenarios);
  if (!status.ok()) {
    std::fprintf(stderr, "halma_service_payloads: %s\n",
                 status.ToString().c_str());
    return 1;
  }
  size_t requests = 0;
  for (const Scenario& s : *scenarios) requests += s.payloads.size();
  std::printf("halma_service_payloads: %zu scenarios, %zu requests in %s\n",
              scenarios->size(), requests, dir.c_str());
  return 0;
}
