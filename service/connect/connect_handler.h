// The Connect protocol (connectrpc.com/docs/protocol), unary calls, over
// any HTTP server: a request's method, path, headers and body in, the
// status, headers and body to answer with out.
//
// POST /halma.v1.HalmaRules/<Method> with application/json (protobuf's
// canonical JSON mapping) or application/proto, and the GET form of
// side-effect-free methods (?encoding=json&message=...). The answers come
// from the rules core, expensive ones through the admission gate, with the
// limits of the gRPC port; this layer only converts, and observes each
// call (call_observer.h). Also GET /healthz and /readyz (plain text).
#ifndef HALMA_SERVICE_CONNECT_CONNECT_HANDLER_H_
#define HALMA_SERVICE_CONNECT_CONNECT_HANDLER_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "service/admission/admission_gate.h"
#include "service/core/rules_core.h"
#include "service/core/rules_methods.h"
#include "service/observe/call_observer.h"

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
};

// The Connect error code name of a status code ("invalid_argument").
absl::string_view ConnectCodeName(absl::StatusCode code);
// The HTTP status the protocol gives an error code (400, 429, 504, ...).
int HttpStatusOfCode(absl::StatusCode code);
// The protocol's JSON error body for `status`.
std::string ConnectErrorBody(const absl::Status& status);

class ConnectHandler {
 public:
  struct Options {
    // Bounds the message (the body, or the GET form's message once
    // decoded), as max_message_bytes does on the gRPC port.
    int max_body_bytes = setting_default::max_message_bytes;
    // Whether the server is ready (/readyz): false from the start of a
    // shutdown.
    std::function<bool()> ready;
  };
  // `core`, `gate` and `observer` must outlive the handler.
  ConnectHandler(const RulesCore* core, AdmissionGate* gate,
                 const CallObserver* observer, Options options);

  // Answers one request. `client_gone` says whether the client has closed
  // its connection (a long replay stops then). An expensive call waits for
  // a slot of the admission gate on the calling thread.
  HttpResponse Handle(const HttpRequest& request,
                      absl::FunctionRef<bool()> client_gone) const;

  // The answer to a request whose body is over max_body_bytes, refused
  // before it is read; counted as refused by max_message_bytes.
  HttpResponse RefuseTooLarge() const;

 private:
  HttpResponse HandleRpc(const HttpRequest& request, absl::string_view rpc,
                         absl::FunctionRef<bool()> client_gone) const;
  // The answer into `response`; an error leaves it empty unless the error
  // has an answer of its own form (415, an unsupported encoding).
  absl::Status AnswerRpc(const HttpRequest& request, RulesMethod method,
                         absl::FunctionRef<bool()> client_gone,
                         ObservedCall& call, HttpResponse* response) const;

  const RulesCore* const core_;
  AdmissionGate* const gate_;
  const CallObserver* const observer_;
  const Options options_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONNECT_CONNECT_HANDLER_H_
