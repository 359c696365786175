// halmactl conformance: runs the conformance suite (docs/conformance.md)
// against any server of halma.v1, over gRPC or over the Connect protocol's
// HTTP/JSON.
//
// Each case's request is read with protobuf's JSON parser into the request
// message of its method (found in the descriptors of halma.proto that this
// program is built with), sent, and the answer written back as proto3 JSON
// with every field (defaults included), which the case's expectation is
// compared with (conformance_suite.h). Cases run one after another: a
// server that replays one record at a time (max_concurrent_adjudications=1,
// as deploy/ runs it) answers every case, and the run takes a second or
// two.

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common.h"
#include "conformance_suite.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"

namespace halma::halmactl {
namespace {

namespace pb = ::google::protobuf;
using conformance::Case;
using conformance::ExpectKind;
using conformance::JsonValue;

constexpr char kDefaultSuite[] = "/usr/share/halma/conformance";
// Failures printed in full in the text report (--json lists every one).
constexpr int kShownFailures = 10;
// How much of a request or answer a text report shows.
constexpr size_t kShownBytes = 600;
// Calls made again after RESOURCE_EXHAUSTED (50 ms, then twice as long
// each time: 1.55 s in all).
constexpr int kBusyRetries = 5;

// What one call gave: an answer, or an error with its code name.
struct CallResult {
  bool ok = false;
  std::unique_ptr<pb::Message> response;
  std::string code;  // "INVALID_ARGUMENT"; for a transport failure too.
  std::string message;
};

std::unique_ptr<pb::Message> NewMessage(const pb::Descriptor* type) {
  return std::unique_ptr<pb::Message>(
      pb::MessageFactory::generated_factory()->GetPrototype(type)->New());
}

// The answer as the suite compares it: proto3 JSON, camelCase, every field
// with its default included.
JsonValue AnswerJson(const pb::Message& message) {
  pb::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string text;
  (void)pb::util::MessageToJsonString(message, &text, options);
  absl::StatusOr<JsonValue> value = conformance::ParseJson(text);
  return value.ok() ? *value : JsonValue();
}

class Transport {
 public:
  virtual ~Transport() = default;
  // Whether the server can be reached at all (before the run).
  virtual absl::Status Connect() = 0;
  virtual CallResult Call(const pb::MethodDescriptor* method,
                          const pb::Message& request) = 0;
};

// gRPC: a generic unary call of "/<service>/<method>" with the binary
// protobuf of the request, so every unary method of the descriptors works
// without a stub of its own.
class GrpcTransport : public Transport {
 public:
  GrpcTransport(client::HalmaClient* client, int deadline_ms)
      : client_(client), stub_(client->channel()), deadline_ms_(deadline_ms) {}

  absl::Status Connect() override {
    const int wait_ms = deadline_ms_ > 0 ? deadline_ms_ : 10000;
    if (client_->WaitForConnected(std::chrono::milliseconds(wait_ms))) {
      return absl::OkStatus();
    }
    return absl::UnavailableError(
        absl::StrCat("could not connect to ", client_->options().target,
                     " over gRPC in ", wait_ms, " ms"));
  }

  CallResult Call(const pb::MethodDescriptor* method,
                  const pb::Message& request) override {
    CallResult result;
    std::string bytes;
    request.SerializeToString(&bytes);
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request_buffer(&slice, 1);
    grpc::ByteBuffer response_buffer;
    grpc::ClientContext context;
    if (deadline_ms_ > 0) {
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::milliseconds(deadline_ms_));
    }
    std::mutex mu;
    std::condition_variable done_cv;
    bool done = false;
    grpc::Status status;
    stub_.UnaryCall(
        &context,
        absl::StrCat("/", method->service()->full_name(), "/", method->name()),
        grpc::StubOptions(), &request_buffer, &response_buffer,
        [&](grpc::Status s) {
          std::lock_guard<std::mutex> lock(mu);
          status = std::move(s);
          done = true;
          done_cv.notify_one();
        });
    {
      std::unique_lock<std::mutex> lock(mu);
      done_cv.wait(lock, [&] { return done; });
    }
    if (!status.ok()) {
      result.code =
          conformance::CodeNameOf(static_cast<int>(status.error_code()));
      result.message = status.error_message();
      return result;
    }
    std::vector<grpc::Slice> slices;
    std::string answer;
    if (response_buffer.Valid() && response_buffer.Dump(&slices).ok()) {
      for (const grpc::Slice& s : slices) {
        answer.append(reinterpret_cast<const char*>(s.begin()), s.size());
      }
    }
    result.response = NewMessage(method->output_type());
    if (!result.response->ParseFromString(answer)) {
      result.code = "INTERNAL";
      result.message = absl::StrCat("the answer is not a ",
                                    method->output_type()->full_name());
      return result;
    }
    result.ok = true;
    return result;
  }

 private:
  client::HalmaClient* client_;
  grpc::GenericStub stub_;
  int deadline_ms_;
};

// The Connect protocol's unary calls (connectrpc.com/docs/protocol): POST
// /<service>/<method> with the request in JSON; an error is a non-200
// status with {"code": "...", "message": "..."}. The HTTP client is
// libcurl (Debian's libcurl4-openssl-dev), not one of our own: a mature,
// widely used and maintained library, already in the project's dependencies
// (prometheus-cpp's), that brings keep-alive, chunked and sized bodies,
// TLS with the system's or a given CA, timeouts on connect and transfer,
// and no redirect followed unless asked, none of which a conformance runner
// should reimplement.
class ConnectTransport : public Transport {
 public:
  explicit ConnectTransport(const CommandLine& cl) : cl_(cl) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    curl_ = curl_easy_init();
    const bool tls =
        cl.tls || !cl.ca_cert.empty() || !cl.tls_server_name.empty();
    std::string authority = cl.target;
    if (!cl.tls_server_name.empty()) {
      // Connect to the target, but name (and check) the server as given.
      const size_t colon = cl.target.rfind(':');
      const std::string port =
          colon == std::string::npos ? "443" : cl.target.substr(colon + 1);
      authority = absl::StrCat(cl.tls_server_name, ":", port);
      connect_to_ = curl_slist_append(
          nullptr, absl::StrCat(cl.tls_server_name, ":", port, ":",
                                cl.target.substr(0, colon), ":", port)
                       .c_str());
    }
    base_url_ = absl::StrCat(tls ? "https://" : "http://", authority, "/");
    headers_ = curl_slist_append(headers_, "Content-Type: application/json");
    headers_ = curl_slist_append(headers_, "Connect-Protocol-Version: 1");
    // No "Expect: 100-continue" round trip before larger bodies.
    headers_ = curl_slist_append(headers_, "Expect:");
    if (cl.deadline_ms > 0) {
      headers_ = curl_slist_append(
          headers_,
          absl::StrCat("Connect-Timeout-Ms: ", cl.deadline_ms).c_str());
    }
  }
  ~ConnectTransport() override {
    if (curl_ != nullptr) curl_easy_cleanup(curl_);
    curl_slist_free_all(headers_);
    curl_slist_free_all(connect_to_);
    curl_global_cleanup();
  }

  absl::Status Connect() override {
    if (curl_ == nullptr) return absl::InternalError("libcurl: no handle");
    Prepare(base_url_);
    curl_easy_setopt(curl_, CURLOPT_CONNECT_ONLY, 1L);
    const CURLcode code = curl_easy_perform(curl_);
    curl_easy_setopt(curl_, CURLOPT_CONNECT_ONLY, 0L);
    if (code != CURLE_OK) {
      return absl::UnavailableError(
          absl::StrCat("could not connect to ", cl_.target,
                       " over HTTP (Connect protocol): ", Error(code)));
    }
    return absl::OkStatus();
  }

  CallResult Call(const pb::MethodDescriptor* method,
                  const pb::Message& request) override {
    CallResult result;
    std::string body;
    (void)pb::util::MessageToJsonString(request, &body);
    Prepare(absl::StrCat(base_url_, method->service()->full_name(), "/",
                         method->name()));
    std::string answer;
    curl_easy_setopt(curl_, CURLOPT_POST, 1L);
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &Append);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &answer);
    const CURLcode code = curl_easy_perform(curl_);
    if (code != CURLE_OK) {
      result.code = code == CURLE_OPERATION_TIMEDOUT ? "DEADLINE_EXCEEDED"
                                                     : "UNAVAILABLE";
      result.message = absl::StrCat("HTTP request failed: ", Error(code));
      return result;
    }
    long http_status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &http_status);
    if (http_status == 200) {
      result.response = NewMessage(method->output_type());
      pb::util::JsonParseOptions options;
      // A newer server may answer with fields this halmactl does not know.
      options.ignore_unknown_fields = true;
      const auto parsed =
          pb::util::JsonStringToMessage(answer, result.response.get(), options);
      if (!parsed.ok()) {
        result.code = "INTERNAL";
        result.message = absl::StrCat(
            "the answer is not a ", method->output_type()->full_name(),
            " in JSON: ", std::string(parsed.message()));
        return result;
      }
      result.ok = true;
      return result;
    }
    // The error body; without one, the code the protocol gives the HTTP
    // status.
    absl::StatusOr<JsonValue> error = conformance::ParseJson(answer);
    const JsonValue* code_value = nullptr;
    const JsonValue* message_value = nullptr;
    if (error.ok() && error->kind_case() == JsonValue::kStructValue) {
      const auto& fields = error->struct_value().fields();
      if (auto it = fields.find("code"); it != fields.end()) {
        code_value = &it->second;
      }
      if (auto it = fields.find("message"); it != fields.end()) {
        message_value = &it->second;
      }
    }
    if (code_value != nullptr &&
        code_value->kind_case() == JsonValue::kStringValue) {
      result.code =
          conformance::CodeNameFromConnect(code_value->string_value());
      if (message_value != nullptr &&
          message_value->kind_case() == JsonValue::kStringValue) {
        result.message = message_value->string_value();
      }
    } else {
      result.code = CodeOfHttpStatus(http_status);
      result.message =
          absl::StrCat("HTTP ", http_status, ": ", answer.substr(0, 200));
    }
    return result;
  }

 private:
  static size_t Append(char* data, size_t size, size_t count, void* out) {
    static_cast<std::string*>(out)->append(data, size * count);
    return size * count;
  }

  // connectrpc.com/docs/protocol: "HTTP to Error Code".
  static std::string CodeOfHttpStatus(long status) {
    switch (status) {
      case 400:
        return "INTERNAL";
      case 401:
        return "UNAUTHENTICATED";
      case 403:
        return "PERMISSION_DENIED";
      case 404:
        return "UNIMPLEMENTED";
      case 429:
      case 502:
      case 503:
      case 504:
        return "UNAVAILABLE";
      default:
        return "UNKNOWN";
    }
  }

  void Prepare(const std::string& url) {
    curl_easy_reset(curl_);
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, error_);
    error_[0] = '\0';
    if (cl_.deadline_ms > 0) {
      // The server's own deadline (Connect-Timeout-Ms) ends the call first;
      // this bounds a server that ignores it.
      curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS,
                       static_cast<long>(cl_.deadline_ms) + 2000L);
      curl_easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT_MS,
                       static_cast<long>(cl_.deadline_ms));
    }
    if (!cl_.ca_cert.empty()) {
      curl_easy_setopt(curl_, CURLOPT_CAINFO, cl_.ca_cert.c_str());
    }
    if (connect_to_ != nullptr) {
      curl_easy_setopt(curl_, CURLOPT_CONNECT_TO, connect_to_);
    }
  }

  std::string Error(CURLcode code) const {
    return error_[0] != '\0' ? std::string(error_)
                             : std::string(curl_easy_strerror(code));
  }

  const CommandLine& cl_;
  CURL* curl_ = nullptr;
  curl_slist* headers_ = nullptr;
  curl_slist* connect_to_ = nullptr;
  std::string base_url_;
  char error_[CURL_ERROR_SIZE] = {};
};

// What a case gave.
struct Outcome {
  bool passed = false;
  std::vector<std::string> differences;
  // The answer (proto3 JSON) or {"code": ..., "message": ...}.
  JsonValue got;
};

JsonValue StringValue(const std::string& text) {
  JsonValue value;
  value.set_string_value(text);
  return value;
}

JsonValue ErrorJson(const CallResult& result) {
  JsonValue value;
  auto& fields = *value.mutable_struct_value()->mutable_fields();
  fields["code"] = StringValue(result.code);
  fields["message"] = StringValue(result.message);
  return value;
}

// A call. RESOURCE_EXHAUSTED is the API's "busy, retry later" (Adjudicate
// calls beyond what the server replays at once, e.g. while other clients
// use a deployment under test): such a call is made again, a few times
// with a growing pause, unless the case expects that very code.
CallResult CallJson(Transport& transport, const pb::MethodDescriptor* method,
                    const std::string& request_json, bool retry_busy = true) {
  std::unique_ptr<pb::Message> request = NewMessage(method->input_type());
  // The suite was checked at load: the request parses.
  (void)pb::util::JsonStringToMessage(request_json, request.get());
  CallResult result = transport.Call(method, *request);
  auto pause = std::chrono::milliseconds(50);
  for (int retry = 0; retry < kBusyRetries && retry_busy && !result.ok &&
                      result.code == "RESOURCE_EXHAUSTED";
       ++retry) {
    std::this_thread::sleep_for(pause);
    pause *= 2;
    result = transport.Call(method, *request);
  }
  return result;
}

Outcome RunCase(const Case& c, Transport& transport) {
  Outcome out;
  CallResult result = CallJson(
      transport, c.method, c.request_json,
      !(c.kind == ExpectKind::kError && c.code == "RESOURCE_EXHAUSTED"));
  out.got = result.ok ? AnswerJson(*result.response) : ErrorJson(result);
  switch (c.kind) {
    case ExpectKind::kAnswer:
      if (!result.ok) {
        out.differences.push_back(absl::StrCat(
            "expected an answer, got ", result.code, ": ", result.message));
        break;
      }
      out.differences =
          conformance::Differences(c.fields, &out.got, c.unordered);
      break;
    case ExpectKind::kError:
      if (result.ok) {
        out.differences.push_back(
            absl::StrCat("expected the error ", c.code, ", got an answer"));
        break;
      }
      if (result.code != c.code) {
        out.differences.push_back(
            absl::StrCat("code: expected ", c.code, ", got ", result.code));
      }
      if (!c.field.empty() &&
          !conformance::NamesField(result.message, c.field)) {
        out.differences.push_back(absl::StrCat(
            "message: expected it to name the field ", c.field, " (\"", c.field,
            ": ...\"), got ",
            conformance::JsonText(StringValue(result.message), 300)));
      }
      for (const std::string& text : c.contains) {
        if (!absl::StrContains(result.message, text)) {
          out.differences.push_back(absl::StrCat(
              "message: expected it to contain ",
              conformance::JsonText(StringValue(text)), ", got ",
              conformance::JsonText(StringValue(result.message), 300)));
        }
      }
      break;
    case ExpectKind::kDeterministic: {
      if (!result.ok) {
        out.differences.push_back(absl::StrCat(
            "expected an answer, got ", result.code, ": ", result.message));
        break;
      }
      const std::string first = conformance::JsonText(out.got);
      for (int i = 1; i < c.calls && out.differences.empty(); ++i) {
        CallResult again = CallJson(transport, c.method, c.request_json);
        if (!again.ok) {
          out.differences.push_back(absl::StrCat(
              "call ", i + 1, ": ", again.code, ": ", again.message));
        } else if (conformance::JsonText(AnswerJson(*again.response)) !=
                   first) {
          const JsonValue other = AnswerJson(*again.response);
          out.differences.push_back(absl::StrCat(
              "call ", i + 1, " answered differently: ",
              absl::StrJoin(conformance::Differences(out.got, &other, {}),
                            "; ")));
        }
      }
      break;
    }
    case ExpectKind::kMember: {
      if (!result.ok) {
        out.differences.push_back(absl::StrCat(
            "expected an answer, got ", result.code, ": ", result.message));
        break;
      }
      CallResult pool_result =
          CallJson(transport, c.in_method, c.in_request_json);
      if (!pool_result.ok) {
        out.differences.push_back(
            absl::StrCat(c.in_rpc, ": expected an answer, got ",
                         pool_result.code, ": ", pool_result.message));
        break;
      }
      const JsonValue pool_answer = AnswerJson(*pool_result.response);
      std::vector<std::string> pool;
      for (const JsonValue* v : conformance::ValuesAt(pool_answer, c.in_path)) {
        pool.push_back(conformance::JsonText(*v));
      }
      const std::vector<const JsonValue*> values =
          conformance::ValuesAt(out.got, c.path);
      if (values.empty()) {
        out.differences.push_back(
            absl::StrCat(c.path, ": no value in the answer"));
      }
      for (const JsonValue* v : values) {
        const std::string text = conformance::JsonText(*v);
        if (std::find(pool.begin(), pool.end(), text) == pool.end()) {
          out.differences.push_back(
              absl::StrCat(c.path, ": ", conformance::JsonText(*v, 200),
                           " is not among the values of ", c.in_path, " of ",
                           c.in_rpc, "'s answer"));
        }
      }
      break;
    }
  }
  out.passed = out.differences.empty();
  return out;
}

struct Tally {
  int passed = 0;
  int failed = 0;
};

struct Failure {
  const Case* c;
  Outcome outcome;
};

std::string Indent(const std::string& text) {
  return absl::StrReplaceAll(text, {{"\n", "\n      "}});
}

void PrintTable(const char* title, const std::map<std::string, Tally>& rows) {
  size_t width = std::string(title).size();
  for (const auto& [name, tally] : rows) width = std::max(width, name.size());
  std::cout << absl::StrFormat("%-*s  %6s  %6s\n", width + 2, title, "passed",
                               "failed");
  for (const auto& [name, tally] : rows) {
    std::cout << absl::StrFormat("  %-*s  %6d  %6d\n", width, name,
                                 tally.passed, tally.failed);
  }
}

JsonValue NumberValue(double number) {
  JsonValue value;
  value.set_number_value(number);
  return value;
}

JsonValue TallyJson(const std::map<std::string, Tally>& rows) {
  JsonValue value;
  auto& fields = *value.mutable_struct_value()->mutable_fields();
  for (const auto& [name, tally] : rows) {
    auto& row = *fields[name].mutable_struct_value()->mutable_fields();
    row["passed"] = NumberValue(tally.passed);
    row["failed"] = NumberValue(tally.failed);
  }
  return value;
}

JsonValue RequestJson(const Case& c) {
  absl::StatusOr<JsonValue> value = conformance::ParseJson(c.request_json);
  return value.ok() ? *value : JsonValue();
}

}  // namespace

int CmdConformance(const CommandLine& cl, client::HalmaClient& client) {
  const std::string protocol = cl.protocol.value_or("grpc");
  if (protocol != "grpc" && protocol != "connect") {
    return UsageFailure(cl.command,
                        absl::StrCat("--protocol: \"", protocol,
                                     "\", expected grpc or connect"));
  }
  absl::StatusOr<conformance::Filter> filter =
      conformance::Filter::Parse(cl.filter.value_or(""));
  if (!filter.ok()) return UsageFailure(cl.command, filter.status().message());
  const std::string suite_dir = cl.suite.value_or(kDefaultSuite);
  absl::StatusOr<std::vector<Case>> cases = conformance::LoadSuite(suite_dir);
  if (!cases.ok()) {
    std::cerr << "halmactl: conformance: the suite is unreadable: "
              << cases.status().message() << "\n";
    return kExitUsage;
  }

  std::unique_ptr<Transport> transport;
  if (protocol == "grpc") {
    transport = std::make_unique<GrpcTransport>(&client, cl.deadline_ms);
  } else {
    transport = std::make_unique<ConnectTransport>(cl);
  }
  if (absl::Status connected = transport->Connect(); !connected.ok()) {
    std::cerr << "halmactl: conformance: " << connected.message() << "\n";
    return kExitRpcError;
  }

  const auto started = std::chrono::steady_clock::now();
  std::map<std::string, Tally> by_rpc, by_area;
  std::vector<Failure> failures;
  int passed = 0, failed = 0, skipped = 0;
  for (const Case& c : *cases) {
    const bool for_protocol =
        c.protocols.empty() || std::find(c.protocols.begin(), c.protocols.end(),
                                         protocol) != c.protocols.end();
    if (!filter->Selects(c)) continue;
    if (!for_protocol) {
      ++skipped;
      continue;
    }
    Outcome outcome = RunCase(c, *transport);
    Tally& rpc = by_rpc[c.rpc];
    (outcome.passed ? rpc.passed : rpc.failed)++;
    for (const std::string& area : c.areas) {
      (outcome.passed ? by_area[area].passed : by_area[area].failed)++;
    }
    if (outcome.passed) {
      ++passed;
    } else {
      ++failed;
      failures.push_back({&c, std::move(outcome)});
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();

  if (cl.json) {
    JsonValue report;
    auto& fields = *report.mutable_struct_value()->mutable_fields();
    fields["target"] = StringValue(cl.target);
    fields["protocol"] = StringValue(protocol);
    fields["suite"] = StringValue(suite_dir);
    fields["seconds"] = NumberValue(std::round(seconds * 1000) / 1000);
    fields["cases"] = NumberValue(passed + failed);
    fields["passed"] = NumberValue(passed);
    fields["failed"] = NumberValue(failed);
    fields["skipped"] = NumberValue(skipped);
    fields["by_rpc"] = TallyJson(by_rpc);
    fields["by_area"] = TallyJson(by_area);
    auto* list = fields["failures"].mutable_list_value();
    for (const Failure& f : failures) {
      auto& item =
          *list->add_values()->mutable_struct_value()->mutable_fields();
      item["id"] = StringValue(f.c->id);
      item["rpc"] = StringValue(f.c->rpc);
      item["source"] = StringValue(f.c->source);
      item["request"] = RequestJson(*f.c);
      item["expected"] = f.c->expect;
      item["got"] = f.outcome.got;
      auto* differences = item["differences"].mutable_list_value();
      for (const std::string& d : f.outcome.differences) {
        *differences->add_values() = StringValue(d);
      }
    }
    std::cout << conformance::JsonText(report) << "\n";
  } else {
    std::cout << absl::StrFormat(
        "halmactl conformance: %d %s of %s against %s over %s in %.2f s: "
        "%d passed, %d failed",
        passed + failed, passed + failed == 1 ? "case" : "cases", suite_dir,
        cl.target, protocol, seconds, passed, failed);
    if (skipped > 0) {
      std::cout << absl::StrFormat(", %d skipped (not for %s)", skipped,
                                   protocol);
    }
    std::cout << "\n\n";
    PrintTable("by RPC", by_rpc);
    std::cout << "\n";
    PrintTable("by area", by_area);
    int shown = 0;
    for (const Failure& f : failures) {
      if (shown++ == kShownFailures) {
        std::cout << "\n(" << failures.size() - kShownFailures
                  << " more failures: --json lists them all, --filter=id:... "
                     "runs one)\n";
        break;
      }
      std::cout << "\nFAIL " << f.c->id << " (" << f.c->source << "; "
                << f.c->rpc << "; areas: " << absl::StrJoin(f.c->areas, ", ")
                << ")\n";
      std::cout << "  request:  "
                << conformance::JsonText(RequestJson(*f.c), kShownBytes)
                << "\n";
      std::cout << "  expected: "
                << conformance::JsonText(f.c->expect, kShownBytes) << "\n";
      std::cout << "  got:      "
                << conformance::JsonText(f.outcome.got, kShownBytes) << "\n";
      std::cout << "  differences:\n";
      int lines = 0;
      for (const std::string& d : f.outcome.differences) {
        if (lines++ == 8) {
          std::cout << "    ... (" << f.outcome.differences.size() - 8
                    << " more)\n";
          break;
        }
        std::cout << "    " << Indent(d) << "\n";
      }
    }
  }
  return failed > 0 ? kExitNegative : kExitOk;
}

}  // namespace halma::halmactl
