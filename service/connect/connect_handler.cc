#include "service/connect/connect_handler.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "halma/notation.h"
#include "service/admission/limit_status.h"
#include "service/connect/legal_moves_json.h"
#include "service/core/request_bytes.h"

namespace halma::service {
namespace {

constexpr absl::string_view kServicePrefix = "/halma.v1.HalmaRules/";
// Answers depend on the request alone (the rules of a release never change
// under it), so shared caches may keep them; a day bounds how long an
// answer outlives an upgrade that fixes a rule.
constexpr absl::string_view kCacheableAnswer = "public, max-age=86400";

enum class Codec { kJson, kProto };

HttpResponse PlainText(int status, absl::string_view text) {
  HttpResponse response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::string(text);
  return response;
}

HttpResponse ErrorResponse(const absl::Status& status) {
  HttpResponse response;
  response.status = HttpStatusOfCode(status.code());
  response.content_type = "application/json";
  response.body = ConnectErrorBody(status);
  // A refusal's retry hint (limit_status.h), in whole seconds.
  if (std::optional<absl::Duration> retry = RetryAfterOf(status);
      retry.has_value()) {
    response.headers.emplace_back(
        "Retry-After",
        absl::StrCat(std::max<std::int64_t>(
            1, absl::ToInt64Seconds(absl::Ceil(*retry, absl::Seconds(1))))));
  }
  return response;
}

struct GetForm {
  std::string message;
  Codec codec = Codec::kJson;
};

// The GET form's query (percent-decoded by the HTTP server): connect=v1
// (optional), encoding=json|proto, message=..., base64=1 (message in
// base64url), compression=identity.
absl::StatusOr<GetForm> ParseGetQuery(const HttpRequest::Query& query,
                                      int max_message_bytes) {
  GetForm form;
  bool have_encoding = false;
  bool base64 = false;
  std::string message;
  for (const auto& [key, value] : query) {
    if (key == "message") {
      message = std::string(value);
    } else if (key == "encoding") {
      have_encoding = true;
      if (value == "json") {
        form.codec = Codec::kJson;
      } else if (value == "proto") {
        form.codec = Codec::kProto;
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "encoding: ", QuoteForError(value), ", expected json or proto"));
      }
    } else if (key == "base64") {
      if (value != "1" && value != "0" && !value.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "base64: ", QuoteForError(value), ", expected 1 or absent"));
      }
      base64 = value == "1";
    } else if (key == "connect") {
      if (value != "v1") {
        return absl::InvalidArgumentError(
            absl::StrCat("connect: ", QuoteForError(value), ", expected v1"));
      }
    } else if (key == "compression") {
      if (!value.empty() && value != "identity") {
        return absl::UnimplementedError(
            absl::StrCat("compression: ", QuoteForError(value),
                         ": not supported, expected identity"));
      }
    }
    // Other parameters (a cache buster, say) are ignored, as the protocol
    // allows.
  }
  if (!have_encoding) {
    return absl::InvalidArgumentError(
        "encoding: missing, expected encoding=json or encoding=proto");
  }
  if (base64) {
    std::string bytes;
    if (!absl::WebSafeBase64Unescape(message, &bytes) &&
        !absl::Base64Unescape(message, &bytes)) {
      return absl::InvalidArgumentError(
          "message: not valid base64url (base64=1)");
    }
    message = std::move(bytes);
  }
  if (message.size() > static_cast<std::size_t>(max_message_bytes)) {
    return WithLimit(
        absl::ResourceExhaustedError(absl::StrCat(
            "message: ", message.size(), " bytes, expected at most ",
            max_message_bytes, " (max_message_bytes)")),
        "max_message_bytes");
  }
  form.message = std::move(message);
  return form;
}

absl::Status ParseMessage(absl::string_view bytes, Codec codec,
                          google::protobuf::Message* message) {
  if (codec == Codec::kProto) return ParseRequest(bytes, message);
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  // protobuf 3.21's util has its own Status type.
  const auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(bytes.data(), bytes.size()), message,
      options);
  if (parsed.ok()) return absl::OkStatus();
  const auto text = parsed.message();
  return absl::InvalidArgumentError(absl::StrCat(
      "request: ", QuoteForError(absl::string_view(text.data(), text.size())),
      ", expected a ", message->GetDescriptor()->full_name(),
      " in protobuf's JSON mapping (camelCase or proto field names)"));
}

absl::Status WriteMessage(const google::protobuf::Message& message, Codec codec,
                          HttpResponse* response) {
  if (codec == Codec::kProto) {
    response->content_type = "application/proto";
    if (!message.SerializeToString(&response->body)) {
      return absl::InternalError("the answer could not be serialized");
    }
    return absl::OkStatus();
  }
  response->content_type = "application/json";
  google::protobuf::util::JsonPrintOptions options;
  if (!google::protobuf::util::MessageToJsonString(message, &response->body,
                                                   options)
           .ok()) {
    return absl::InternalError("the answer could not be written as JSON");
  }
  return absl::OkStatus();
}

// Parses, answers, writes: one RPC's conversion, observed.
template <typename Request, typename Response, typename Answer>
absl::Status Serve(absl::string_view bytes, Codec codec, ObservedCall& call,
                   HttpResponse* response, Answer answer) {
  Request request;
  Response answered;
  absl::Status status = ParseMessage(bytes, codec, &request);
  if (!status.ok()) return status;
  NoteRequest(call, request);
  status = answer(request, &answered);
  if (!status.ok()) return status;
  NoteAnswer(call, answered);
  return WriteMessage(answered, codec, response);
}

// LegalMoves has the largest answers by far: in protobuf they are the
// bytes the gRPC handler sends, as they are; in JSON they are written
// directly (legal_moves_json.h).
absl::Status ServeLegalMoves(const RulesCore& core, absl::string_view bytes,
                             Codec codec, ObservedCall& call,
                             HttpResponse* response) {
  v1::LegalMovesRequest request;
  absl::Status status = ParseMessage(bytes, codec, &request);
  if (!status.ok()) return status;
  NoteRequest(call, request);
  if (codec == Codec::kProto) {
    response->content_type = "application/proto";
    return core.EncodeLegalMoves(request, [response](std::size_t size) {
      response->body.resize(size);
      return response->body.data();
    });
  }
  // JSON straight from the encoded answer: no message is made.
  thread_local std::string encoded;
  status = core.EncodeLegalMoves(request, [](std::size_t size) {
    encoded.resize(size);
    return encoded.data();
  });
  if (!status.ok()) return status;
  response->content_type = "application/json";
  if (WriteLegalMovesJsonFromWire(encoded, &response->body)) {
    return absl::OkStatus();
  }
  v1::LegalMovesResponse answer;
  if (!answer.ParseFromString(encoded)) {
    return absl::InternalError("LegalMoves: the answer does not parse");
  }
  if (WriteLegalMovesJson(answer, &response->body)) return absl::OkStatus();
  return WriteMessage(answer, Codec::kJson, response);
}

// The method named by the path's last part, if it is one of HalmaRules'.
std::optional<RulesMethod> RulesMethodNamed(absl::string_view name) {
  for (int i = 0; i < kRulesMethodCount; ++i) {
    const auto method = static_cast<RulesMethod>(i);
    if (RulesMethodName(method) == name) return method;
  }
  return std::nullopt;
}

}  // namespace

absl::string_view ConnectCodeName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return "ok";
    case absl::StatusCode::kCancelled:
      return "canceled";
    case absl::StatusCode::kUnknown:
      return "unknown";
    case absl::StatusCode::kInvalidArgument:
      return "invalid_argument";
    case absl::StatusCode::kDeadlineExceeded:
      return "deadline_exceeded";
    case absl::StatusCode::kNotFound:
      return "not_found";
    case absl::StatusCode::kAlreadyExists:
      return "already_exists";
    case absl::StatusCode::kPermissionDenied:
      return "permission_denied";
    case absl::StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case absl::StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case absl::StatusCode::kAborted:
      return "aborted";
    case absl::StatusCode::kOutOfRange:
      return "out_of_range";
    case absl::StatusCode::kUnimplemented:
      return "unimplemented";
    case absl::StatusCode::kInternal:
      return "internal";
    case absl::StatusCode::kUnavailable:
      return "unavailable";
    case absl::StatusCode::kDataLoss:
      return "data_loss";
    case absl::StatusCode::kUnauthenticated:
      return "unauthenticated";
    default:
      return "unknown";
  }
}

int HttpStatusOfCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kUnimplemented:
      return code == absl::StatusCode::kNotFound ? 404 : 501;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    default:
      return 500;
  }
}

std::string ConnectErrorBody(const absl::Status& status) {
  // Built in this order (code first, as the protocol's examples have it);
  // protobuf writes the message as a JSON string, escaping included.
  google::protobuf::Value message;
  message.set_string_value(std::string(status.message()));
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  if (!google::protobuf::util::MessageToJsonString(message, &text, options)
           .ok()) {
    text = "\"\"";
  }
  return absl::StrCat(R"({"code":")", ConnectCodeName(status.code()),
                      R"(","message":)", text, "}");
}

ConnectHandler::ConnectHandler(const RulesCore* core, AdmissionGate* gate,
                               const CallObserver* observer, Options options)
    : core_(core),
      gate_(gate),
      observer_(observer),
      options_(std::move(options)) {}

HttpResponse ConnectHandler::RefuseTooLarge() const {
  const absl::Status refused =
      WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                    "request: larger than ", options_.max_body_bytes,
                    " bytes (max_message_bytes)")),
                "max_message_bytes");
  observer_->CountRefusal(refused);
  HttpResponse response = ErrorResponse(refused);
  response.headers.emplace_back("Connection", "close");
  return response;
}

HttpResponse ConnectHandler::Handle(
    const HttpRequest& request, absl::FunctionRef<bool()> client_gone) const {
  const bool get = request.method == "GET" || request.method == "HEAD";
  if (request.path == "/healthz" || request.path == "/readyz") {
    if (!get) {
      HttpResponse response = PlainText(405, "method not allowed\n");
      response.headers.emplace_back("Allow", "GET, HEAD");
      return response;
    }
    HttpResponse response;
    if (request.path == "/healthz") {
      response = PlainText(200, "ok\n");
    } else if (options_.ready && options_.ready()) {
      response = PlainText(200, "ready\n");
    } else {
      response = PlainText(503, "not ready: shutting down\n");
    }
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  }
  if (absl::StartsWith(request.path, kServicePrefix)) {
    return HandleRpc(request, request.path.substr(1), client_gone);
  }
  // Another /package.Service/Method: the protocol's "no such method".
  if (std::count(request.path.begin(), request.path.end(), '/') == 2 &&
      absl::StrContains(request.path, '.')) {
    return ErrorResponse(absl::UnimplementedError(absl::StrCat(
        "path: ", QuoteForError(request.path),
        ": no such service, expected /halma.v1.HalmaRules/<Method>")));
  }
  return PlainText(404, "not found\n");
}

HttpResponse ConnectHandler::HandleRpc(
    const HttpRequest& request, absl::string_view rpc,
    absl::FunctionRef<bool()> client_gone) const {
  const absl::string_view name = rpc.substr(kServicePrefix.size() - 1);
  const std::optional<RulesMethod> found = RulesMethodNamed(name);
  if (found == RulesMethod::kAdjudicateStream) {
    // Connect serves bidirectional streams over HTTP/2 only; this listener
    // speaks HTTP/1.1.
    return ErrorResponse(absl::UnimplementedError(
        "method: AdjudicateStream is a bidirectional stream, served over "
        "gRPC only (this listener speaks HTTP/1.1); expected "
        "ValidateMove, LegalMoves, Adjudicate, ListVariants, Perft or "
        "SuggestMove"));
  }
  if (!found.has_value()) {
    return ErrorResponse(absl::UnimplementedError(
        absl::StrCat("method: ", QuoteForError(name),
                     ": no such method, expected ValidateMove, LegalMoves, "
                     "Adjudicate, ListVariants, Perft or SuggestMove")));
  }
  const RulesMethod method = *found;
  const bool get = request.method == "GET";
  if (!get && request.method != "POST") {
    HttpResponse response = PlainText(405, "method not allowed\n");
    response.headers.emplace_back("Allow", "GET, POST");
    return response;
  }
  ObservedCall call(*observer_, metrics::Protocol::kConnect,
                    metrics::MethodOf(method));
  if (observer_->wants_peer()) {
    call.SetPeer(request.peer, absl::string_view(request.traceparent.data(),
                                                 request.traceparent.size()));
  }
  HttpResponse response;
  const absl::Status status =
      AnswerRpc(request, method, client_gone, call, &response);
  if (!status.ok()) {
    if (response.body.empty()) response = ErrorResponse(status);
    if (get) response.headers.emplace_back("Cache-Control", "no-store");
  } else if (get) {
    response.headers.emplace_back("Cache-Control", kCacheableAnswer);
  }
  call.AddResponseBytes(response.body.size());
  call.Finish(status);
  return response;
}

absl::Status ConnectHandler::AnswerRpc(const HttpRequest& request,
                                       RulesMethod method,
                                       absl::FunctionRef<bool()> client_gone,
                                       ObservedCall& call,
                                       HttpResponse* response) const {
  if (request.protocol_version.has_value() &&
      *request.protocol_version != "1") {
    return absl::InvalidArgumentError(absl::StrCat(
        "connect-protocol-version: ", QuoteForError(*request.protocol_version),
        ", expected 1"));
  }
  absl::Time deadline = absl::InfiniteFuture();
  if (request.timeout_ms.has_value()) {
    std::int64_t ms = 0;
    if (request.timeout_ms->size() > 10 ||
        !absl::SimpleAtoi(*request.timeout_ms, &ms) || ms < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "connect-timeout-ms: ", QuoteForError(*request.timeout_ms),
          ", expected a number of milliseconds (at most 10 digits)"));
    }
    deadline = absl::Now() + absl::Milliseconds(ms);
  }

  Codec codec = Codec::kJson;
  std::string get_message;
  absl::string_view bytes = request.body;
  if (request.method == "GET") {
    absl::StatusOr<GetForm> form =
        ParseGetQuery(request.query, options_.max_body_bytes);
    if (!form.ok()) return form.status();
    codec = form->codec;
    get_message = std::move(form->message);
    bytes = get_message;
  } else {
    if (!request.content_encoding.empty() &&
        request.content_encoding != "identity") {
      *response = ErrorResponse(absl::UnimplementedError(absl::StrCat(
          "content-encoding: ", QuoteForError(request.content_encoding),
          ": not supported, expected identity")));
      response->headers.emplace_back("Accept-Encoding", "identity");
      return absl::UnimplementedError("content-encoding");
    }
    const absl::string_view type = absl::StripAsciiWhitespace(
        request.content_type.substr(0, request.content_type.find(';')));
    if (absl::EqualsIgnoreCase(type, "application/json")) {
      codec = Codec::kJson;
    } else if (absl::EqualsIgnoreCase(type, "application/proto")) {
      codec = Codec::kProto;
    } else {
      *response = PlainText(
          415,
          absl::StrCat("content-type: ", QuoteForError(request.content_type),
                       ", expected application/json or "
                       "application/proto\n"));
      response->headers.emplace_back("Accept-Post",
                                     "application/json, application/proto");
      return absl::InvalidArgumentError("content-type");
    }
    if (bytes.size() > static_cast<std::size_t>(options_.max_body_bytes)) {
      return WithLimit(
          absl::ResourceExhaustedError(absl::StrCat(
              "request: ", bytes.size(), " bytes, expected at most ",
              options_.max_body_bytes, " (max_message_bytes)")),
          "max_message_bytes");
    }
  }
  call.AddRequestBytes(bytes.size());

  switch (method) {
    case RulesMethod::kValidateMove:
      return Serve<v1::ValidateMoveRequest, v1::ValidateMoveResponse>(
          bytes, codec, call, response, [this](const auto& in, auto* out) {
            return core_->ValidateMove(in, out);
          });
    case RulesMethod::kLegalMoves:
      return ServeLegalMoves(*core_, bytes, codec, call, response);
    case RulesMethod::kListVariants:
      return Serve<v1::ListVariantsRequest, v1::ListVariantsResponse>(
          bytes, codec, call, response, [this](const auto& in, auto* out) {
            return core_->ListVariants(in, out);
          });
    default:
      break;
  }
  // Expensive: a slot first, waiting for it on this thread (the
  // listener's own).
  const absl::Time entered = absl::Now();
  absl::StatusOr<AdmissionGate::Slot> slot =
      gate_->Wait({.method = RulesMethodName(method), .deadline = deadline});
  call.NoteQueueWait(slot.ok() ? slot->waited() : absl::Now() - entered);
  if (!slot.ok()) return slot.status();
  const Checkpoint checkpoint = gate_->MakeCheckpoint(
      RulesMethodName(method), GatedWork(method), deadline, client_gone);
  switch (method) {
    case RulesMethod::kAdjudicate:
      return Serve<v1::AdjudicateRequest, v1::AdjudicateResponse>(
          bytes, codec, call, response, [&](const auto& in, auto* out) {
            return core_->Adjudicate(in, out, checkpoint);
          });
    case RulesMethod::kPerft:
      return Serve<v1::PerftRequest, v1::PerftResponse>(
          bytes, codec, call, response, [&](const auto& in, auto* out) {
            return core_->Perft(in, out, checkpoint);
          });
    case RulesMethod::kSuggestMove:
      return Serve<v1::SuggestMoveRequest, v1::SuggestMoveResponse>(
          bytes, codec, call, response, [&](const auto& in, auto* out) {
            return core_->SuggestMove(in, out, checkpoint);
          });
    default:
      return absl::UnimplementedError(absl::StrCat(
          "method: ", RulesMethodName(method), " is not served over HTTP"));
  }
}

}  // namespace halma::service
