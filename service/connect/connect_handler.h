// The Connect protocol (connectrpc.com/docs/protocol), unary calls, over
// any HTTP server: a request's method, path, headers and body in, the
// status, headers and body to answer with out.
//
// POST /halma.v1.HalmaRules/<Method> with application/json (protobuf's
// canonical JSON mapping) or application/proto, and the GET form of
// side-effect-free methods (?encoding=json&message=...). The answers come
// from HalmaRulesService, with the limits of the gRPC port; this layer only
// converts. Also GET /healthz and /readyz (plain text).
#ifndef HALMA_SERVICE_CONNECT_CONNECT_HANDLER_H_
#define HALMA_SERVICE_CONNECT_CONNECT_HANDLER_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "service/halma_rules_service.h"
#include "service/health.h"

namespace halma::service {

// What the HTTP server read. Views into the server's buffers, valid for
// the call to Handle.
struct HttpRequest {
  absl::string_view method;  // "GET", "POST", ...
  absl::string_view path;    // Without the query: "/halma.v1.HalmaRules/..."
  // The query's parameters, percent-decoded, in order.
  using Query = std::vector<std::pair<absl::string_view, absl::string_view>>;
  Query query;
  absl::string_view content_type;
  absl::string_view content_encoding;  // Empty or "identity" is supported.
  // The Connect-Protocol-Version and Connect-Timeout-Ms headers, when sent.
  std::optional<absl::string_view> protocol_version;
  std::optional<absl::string_view> timeout_ms;
  absl::string_view body;
  // For the access log (filled only when it is on): the client's address
  // and its W3C traceparent header.
  std::string peer;
  absl::string_view traceparent;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // For metrics and logs: the RPC ("halma.v1.HalmaRules/LegalMoves"), empty
  // for other paths, and how it ended.
  std::string rpc;
  absl::StatusCode code = absl::StatusCode::kOk;
  // The variant the request named (preset name, "custom"), for the access
  // log; empty for ListVariants and errors before parsing.
  std::string variant;
  // Set when a request over --max_message_bytes was refused.
  bool over_size_limit = false;
};

// The Connect error code name of a status code ("invalid_argument").
absl::string_view ConnectCodeName(absl::StatusCode code);
// The HTTP status the protocol gives an error code (400, 429, 504, ...).
int HttpStatusOfCode(absl::StatusCode code);
// The protocol's JSON error body for `status`.
std::string ConnectErrorBody(const absl::Status& status);

class ConnectHandler {
 public:
  // `max_body_bytes` bounds the message (the body, or the GET form's
  // message once decoded), as max_message_bytes does on the gRPC port.
  ConnectHandler(HalmaRulesService* rules, const HealthService* health,
                 int max_body_bytes);

  // Answers one request. `client_gone` says whether the client has closed
  // its connection (a long replay stops then).
  HttpResponse Handle(const HttpRequest& request,
                      absl::FunctionRef<bool()> client_gone) const;

 private:
  absl::Status ServeLegalMoves(absl::string_view bytes, int codec,
                               HttpResponse* response) const;
  HttpResponse HandleRpc(const HttpRequest& request, absl::string_view rpc,
                         absl::FunctionRef<bool()> client_gone) const;

  HalmaRulesService* rules_;
  const HealthService* health_;
  int max_body_bytes_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONNECT_CONNECT_HANDLER_H_
