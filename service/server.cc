#include "service/server.h"

#include <grpcpp/resource_quota.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpc/grpc.h"
#include "halma/flood_fill.h"
#include "halma/perft.h"
#include "service/convert.h"
#include "service/log/traceparent.h"
#include "service/metrics/interceptor.h"
#include "service/reflection/served_descriptor_set.h"

#ifndef HALMA_VERSION
#define HALMA_VERSION "unknown"
#endif

namespace halma::service {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     absl::string_view setting) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(setting, ": cannot read \"", path, "\""));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat(setting, ": error reading \"", path, "\""));
  }
  return text.str();
}

absl::Status CheckRange(absl::string_view setting, std::int64_t value,
                        std::int64_t low, std::int64_t high) {
  if (value < low || value > high) {
    return absl::InvalidArgumentError(
        absl::StrCat(setting, " ", value, ": expected ", low, " to ", high));
  }
  return absl::OkStatus();
}

std::string OnOff(bool on) { return on ? "on" : "off"; }

std::string Seconds(int seconds) {
  return seconds == 0 ? "off" : absl::StrCat(seconds, "s");
}

// Streams per backend connection when the front proxy is in use (it opens
// more connections as needed; gRPC's default is unlimited). Every client
// stream can fit on one connection (the proxy bounds their number), so a
// flood of streams does not leave dozens of idle backend connections and
// their buffers behind.
constexpr int kBackendStreamsPerConnection = 1 << 16;

int ConcurrentAdjudications(const ServerConfig& config) {
  if (config.max_concurrent_adjudications > 0) {
    return config.max_concurrent_adjudications;
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

const char* Version() { return HALMA_VERSION; }

std::string JoinHostPort(const std::string& host, int port) {
  if (absl::StrContains(host, ':') && !absl::StartsWith(host, "[")) {
    return absl::StrCat("[", host, "]:", port);
  }
  return absl::StrCat(host, ":", port);
}

absl::Status ValidateConfig(const ServerConfig& config) {
  if (config.host.empty()) {
    return absl::InvalidArgumentError("host: empty, expected an address");
  }
  constexpr int kMaxSeconds = 1000000;
  for (const absl::Status& status : {
           CheckRange("port", config.port, 0, 65535),
           CheckRange("max_message_bytes", config.max_message_bytes, 1,
                      std::numeric_limits<int>::max()),
           CheckRange("max_record_moves", config.max_record_moves, 1,
                      std::numeric_limits<int>::max()),
           CheckRange("max_memory_bytes", config.max_memory_bytes, 0,
                      std::numeric_limits<std::int64_t>::max()),
           CheckRange("grace_period_seconds", config.grace_period_seconds, 0,
                      kMaxSeconds),
           CheckRange("max_connection_age_seconds",
                      config.max_connection_age_seconds, 0, kMaxSeconds),
           CheckRange("max_connection_age_grace_seconds",
                      config.max_connection_age_grace_seconds, 0, kMaxSeconds),
           CheckRange("max_concurrent_streams", config.max_concurrent_streams,
                      1, 1 << 20),
           CheckRange("max_connections", config.max_connections, 1, 1 << 20),
           CheckRange("idle_timeout_seconds", config.idle_timeout_seconds, 1,
                      kMaxSeconds),
           CheckRange("handshake_timeout_seconds",
                      config.handshake_timeout_seconds, 1, kMaxSeconds),
           CheckRange("stream_read_timeout_seconds",
                      config.stream_read_timeout_seconds, 1, kMaxSeconds),
           CheckRange("max_metadata_bytes", config.max_metadata_bytes, 1024,
                      1 << 20),
           CheckRange("max_call_seconds", config.max_call_seconds, 1,
                      kMaxSeconds),
           CheckRange("max_perft_depth", config.max_perft_depth, 0,
                      kMaxPerftDepth),
           CheckRange("max_concurrent_adjudications",
                      config.max_concurrent_adjudications, 0, 1 << 16),
           CheckRange("shutdown_delay_seconds", config.shutdown_delay_seconds,
                      0, kMaxSeconds),
           CheckRange("backend_port", config.backend_port, 0, 65535),
           CheckRange("http_port", config.http_port, 0, 65535),
           CheckRange("http_threads", config.http_threads, 0, 1024),
       }) {
    if (!status.ok()) return status;
  }
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "tls_cert and tls_key: expected both (TLS) or neither (plaintext)");
  }
  return absl::OkStatus();
}

HalmaServer::HalmaServer(const ServerConfig& config)
    : config_(config),
      shutdown_delay_(absl::Seconds(config.shutdown_delay_seconds)) {}

absl::StatusOr<std::unique_ptr<HalmaServer>> HalmaServer::Start(
    const ServerConfig& config) {
  if (absl::Status status = ValidateConfig(config); !status.ok()) {
    return status;
  }
  std::shared_ptr<grpc::ServerCredentials> credentials =
      grpc::InsecureServerCredentials();
  if (!config.tls_cert.empty()) {
    absl::StatusOr<std::string> cert = ReadFile(config.tls_cert, "tls_cert");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadFile(config.tls_key, "tls_key");
    if (!key.ok()) return key.status();
    grpc::SslServerCredentialsOptions options;
    options.pem_key_cert_pairs.push_back({*key, *cert});
    credentials = grpc::SslServerCredentials(options);
  }

  const bool front = !config.front_proxy.empty();
  std::unique_ptr<HalmaServer> server(new HalmaServer(config));
  server->health_ = std::make_unique<HealthService>();
  metrics::MetricsOptions metrics_options{
      .version = Version(),
      .flood_fill_kernel = FloodFillKernelName(ActiveFloodFillKernel()),
      .preset_names = {},
  };
  for (const PresetTable::Entry& entry : PresetTable::Get().entries()) {
    metrics_options.preset_names.push_back(entry.variant.spec.name);
  }
  absl::StatusOr<std::unique_ptr<metrics::Metrics>> metrics =
      metrics::Metrics::Create(metrics_options);
  if (!metrics.ok()) return metrics.status();
  server->metrics_ = *std::move(metrics);
  server->rules_ = std::make_unique<HalmaRulesService>(RulesOptions{
      .max_record_moves = config.max_record_moves,
      .max_concurrent_adjudications = ConcurrentAdjudications(config),
      .max_call_duration = absl::Seconds(config.max_call_seconds),
      .max_perft_depth = config.max_perft_depth,
      .metrics = server->metrics_.get()});

  grpc::ServerBuilder builder;
  // Behind the front proxy gRPC listens on loopback only, in plaintext: the
  // proxy terminates TLS.
  const std::string grpc_address =
      front ? JoinHostPort("127.0.0.1", config.backend_port)
            : JoinHostPort(config.host, config.port);
  builder.AddListeningPort(
      grpc_address, front ? grpc::InsecureServerCredentials() : credentials,
      &server->grpc_port_);
  builder.RegisterService(server->rules_.get());
  // Every gRPC call is counted (method, code, latency, bytes, in flight)
  // by an interceptor, so the handlers stay as they are.
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      interceptors;
  Logger* access_log =
      config.access_log && config.logger != nullptr ? config.logger : nullptr;
  metrics::GrpcCallObserver observer;
  if (access_log != nullptr) {
    observer = [access_log](const metrics::GrpcCallRecord& call) {
      const std::optional<std::string> trace =
          TraceIdFromTraceparent(call.traceparent);
      const absl::string_view method = metrics::MethodName(call.method);
      const absl::string_view code = metrics::CodeName(call.code);
      access_log->Access(AccessRecord{
          .protocol = "grpc",
          .method = std::string_view(method.data(), method.size()),
          .code = std::string_view(code.data(), code.size()),
          .latency = call.latency,
          .peer = call.peer,
          .request_bytes = static_cast<std::int64_t>(call.request_bytes),
          .response_bytes = static_cast<std::int64_t>(call.response_bytes),
          .variant = {},
          .trace_id =
              trace.has_value() ? std::string_view(*trace) : std::string_view(),
      });
    };
  }
  interceptors.push_back(
      server->metrics_->NewInterceptorFactory(std::move(observer)));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.RegisterService(server->health_.get());
  if (config.reflection) {
    absl::StatusOr<std::unique_ptr<ReflectionFiles>> files =
        ReflectionFiles::Create(ServedDescriptorSet(),
                                {"halma.v1.HalmaRules", "grpc.health.v1.Health",
                                 "grpc.reflection.v1.ServerReflection",
                                 "grpc.reflection.v1alpha.ServerReflection"});
    if (!files.ok()) return files.status();
    std::shared_ptr<const ReflectionFiles> shared = *std::move(files);
    server->reflection_v1_ = std::make_unique<ReflectionV1Service>(shared);
    server->reflection_v1alpha_ =
        std::make_unique<ReflectionV1AlphaService>(shared);
    builder.RegisterService(server->reflection_v1_.get());
    builder.RegisterService(server->reflection_v1alpha_.get());
  }
  builder.SetMaxReceiveMessageSize(config.max_message_bytes);
  // A second server on the same port must fail, not share it silently.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Behind the proxy, one backend connection carries the streams of many
  // clients (the proxy opens more connections as needed), so the per-client
  // bound is the proxy's.
  builder.AddChannelArgument(
      GRPC_ARG_MAX_CONCURRENT_STREAMS,
      front ? kBackendStreamsPerConnection : config.max_concurrent_streams);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                             config.idle_timeout_seconds * 1000);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             config.handshake_timeout_seconds * 1000);
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             config.max_metadata_bytes);
  // Ping idle clients now and then, so that connections to peers that
  // vanished without a FIN are closed instead of held for hours.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60 * 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20 * 1000);
  // Behind the front proxy the clients' connections are the proxy's, and
  // it ages them (FrontProxyOptions::connection_age_seconds).
  if (config.max_connection_age_seconds > 0 && !front) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                               config.max_connection_age_seconds * 1000);
  }
  if (config.max_connection_age_grace_seconds > 0 && !front) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               config.max_connection_age_grace_seconds * 1000);
  }
  if (config.max_memory_bytes > 0) {
    grpc::ResourceQuota quota("halma_server");
    quota.Resize(static_cast<std::size_t>(config.max_memory_bytes));
    builder.SetResourceQuota(quota);
  }
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->grpc_port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", grpc_address,
                     " (address in use, or not an address of this host?)"));
  }
  server->port_ = server->grpc_port_;
  if (front) {
    absl::StatusOr<std::unique_ptr<FrontProxy>> proxy =
        FrontProxy::Start(FrontProxyOptions{
            .binary = config.front_proxy,
            .listen_host = config.host,
            .listen_port = config.port,
            .backend_port = server->grpc_port_,
            .tls_cert = config.tls_cert,
            .tls_key = config.tls_key,
            .max_connections = config.max_connections,
            .max_concurrent_streams = config.max_concurrent_streams,
            .idle_timeout_seconds = config.idle_timeout_seconds,
            .handshake_timeout_seconds = config.handshake_timeout_seconds,
            .stream_read_timeout_seconds = config.stream_read_timeout_seconds,
            .max_metadata_bytes = config.max_metadata_bytes,
            .backend_timeout_seconds = config.max_call_seconds + 5,
            .connection_age_seconds = config.max_connection_age_seconds,
            .connection_age_grace_seconds =
                config.max_connection_age_grace_seconds,
        });
    if (!proxy.ok()) return proxy.status();
    server->front_ = *std::move(proxy);
    server->port_ = server->front_->port();
  }
  server->health_->SetServingStatus("", true);
  if (config.http) {
    server->connect_ = std::make_unique<ConnectHandler>(
        server->rules_.get(), server->health_.get(), config.max_message_bytes);
    if (config.playground) {
      server->playground_ = std::make_unique<Playground>(PlaygroundOptions{
          .grpc_port = server->port_, .grpc_tls = !config.tls_cert.empty()});
    }
    const int cpus =
        std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    absl::StatusOr<std::unique_ptr<HttpListener>> http = HttpListener::Start(
        HttpListenerOptions{
            .host = config.host,
            .port = config.http_port,
            .max_connections = config.max_connections,
            .idle_timeout_seconds = config.idle_timeout_seconds,
            .read_timeout_seconds = config.stream_read_timeout_seconds,
            .max_body_bytes = config.max_message_bytes,
            .max_header_bytes = config.max_metadata_bytes,
            .threads = config.http_threads > 0 ? config.http_threads : 2 * cpus,
            .record_peer = access_log != nullptr,
            .metrics = [m = server->metrics_.get()] { return m->Exposition(); },
            .on_started =
                [m = server->metrics_.get()](const HttpRequest& request) {
                  m->CallStarted(metrics::Protocol::kConnect,
                                 metrics::MethodFromName(request.path));
                },
            .on_answered =
                [m = server->metrics_.get(), access_log](
                    const HttpRequest& request, const HttpResponse& response,
                    absl::Duration latency, bool handled) {
                  if (response.over_size_limit) {
                    m->RecordRejected(metrics::Limit::kMaxMessageBytes);
                  }
                  if (handled) {
                    m->CallFinished(metrics::Protocol::kConnect,
                                    metrics::MethodFromName(request.path));
                  }
                  if (response.rpc.empty()) return;
                  if (access_log != nullptr) {
                    const std::optional<std::string> trace =
                        TraceIdFromTraceparent(
                            std::string_view(request.traceparent.data(),
                                             request.traceparent.size()));
                    const absl::string_view code = metrics::CodeName(
                        static_cast<grpc::StatusCode>(response.code));
                    access_log->Access(AccessRecord{
                        .protocol = "connect",
                        .method = response.rpc,
                        .code = std::string_view(code.data(), code.size()),
                        .latency = latency,
                        .peer = request.peer,
                        .request_bytes =
                            static_cast<std::int64_t>(request.body.size()),
                        .response_bytes =
                            static_cast<std::int64_t>(response.body.size()),
                        .variant = response.variant,
                        .trace_id = trace.has_value() ? std::string_view(*trace)
                                                      : std::string_view(),
                    });
                  }
                  m->RecordCall(metrics::Protocol::kConnect,
                                metrics::MethodFromName(response.rpc),
                                response.code, latency, request.body.size(),
                                response.body.size());
                },
            .playground = server->playground_.get(),
        },
        server->connect_.get());
    if (!http.ok()) return http.status();
    server->http_ = *std::move(http);
  }
  server->health_->SetServingStatus(v1::HalmaRules::service_full_name(), true);
  return server;
}

HalmaServer::~HalmaServer() {
  shutdown_delay_ = absl::ZeroDuration();
  if (server_ != nullptr) Shutdown(absl::ZeroDuration());
}

std::string HalmaServer::ListeningLine() const {
  const std::string front =
      front_ == nullptr
          ? std::string("off")
          : absl::StrCat(config_.front_proxy, " -> 127.0.0.1:", grpc_port_);
  return absl::StrCat(
      "halma_server listening on ", address(), " (version ", Version(),
      "; tls ", OnOff(!config_.tls_cert.empty()), "; reflection ",
      OnOff(config_.reflection), "; front_proxy ", front,
      "; max_message_bytes ", config_.max_message_bytes, "; max_record_moves ",
      config_.max_record_moves, "; max_concurrent_adjudications ",
      rules_->options().max_concurrent_adjudications, "; max_call ",
      config_.max_call_seconds, "s; max_concurrent_streams ",
      config_.max_concurrent_streams, "; max_connections ",
      front_ == nullptr ? std::string("unlimited (no front proxy)")
                        : absl::StrCat(config_.max_connections),
      "; max_metadata_bytes ", config_.max_metadata_bytes, "; idle_timeout ",
      config_.idle_timeout_seconds, "s; handshake_timeout ",
      config_.handshake_timeout_seconds, "s; stream_read_timeout ",
      front_ == nullptr ? std::string("off (no front proxy)")
                        : Seconds(config_.stream_read_timeout_seconds),
      "; max_memory_bytes ", config_.max_memory_bytes, "; shutdown_delay ",
      config_.shutdown_delay_seconds, "s; grace_period ",
      config_.grace_period_seconds, "s; max_connection_age ",
      Seconds(config_.max_connection_age_seconds),
      "; max_connection_age_grace ",
      Seconds(config_.max_connection_age_grace_seconds), "; http ",
      http_ == nullptr ? std::string("off")
                       : absl::StrCat(JoinHostPort(config_.host, http_->port()),
                                      " (Connect protocol)"),
      "; flood_fill ", FloodFillKernelName(ActiveFloodFillKernel()), ")");
}

JsonLine StartupLine(const HalmaServer& server) {
  const ServerConfig& c = server.config();
  JsonLine line("info", "server.start");
  line.Add("message", server.ListeningLine());
  line.Add({
      {"version", Version()},
      {"host", c.host},
      {"port", server.port()},
      {"http", c.http},
      {"http_port", server.http_port()},
      {"tls", !c.tls_cert.empty()},
      {"reflection", c.reflection},
      {"front_proxy", c.front_proxy},
      {"access_log", c.access_log},
      {"max_message_bytes", c.max_message_bytes},
      {"max_record_moves", c.max_record_moves},
      {"max_concurrent_adjudications",
       server.rules_options().max_concurrent_adjudications},
      {"max_call_seconds", c.max_call_seconds},
      {"max_perft_depth", c.max_perft_depth},
      {"max_concurrent_streams", c.max_concurrent_streams},
      {"max_connections", c.max_connections},
      {"max_metadata_bytes", c.max_metadata_bytes},
      {"idle_timeout_seconds", c.idle_timeout_seconds},
      {"handshake_timeout_seconds", c.handshake_timeout_seconds},
      {"stream_read_timeout_seconds", c.stream_read_timeout_seconds},
      {"max_memory_bytes", c.max_memory_bytes},
      {"shutdown_delay_seconds", c.shutdown_delay_seconds},
      {"grace_period_seconds", c.grace_period_seconds},
      {"max_connection_age_seconds", c.max_connection_age_seconds},
      {"max_connection_age_grace_seconds", c.max_connection_age_grace_seconds},
      {"http_threads", c.http_threads},
      {"playground", server.playground_enabled()},
      {"flood_fill", FloodFillKernelName(ActiveFloodFillKernel())},
  });
  return line;
}

void HalmaServer::Shutdown(absl::Duration grace) {
  std::call_once(shutdown_once_, [&] {
    // 1. Health says NOT_SERVING (Watch streams are told) while everything
    //    is still served, for the shutdown delay: load balancers and
    //    readiness probes move traffic away before the listener closes.
    health_->SetServingStatus("", false);
    health_->SetServingStatus(v1::HalmaRules::service_full_name(), false);
    absl::SleepFor(shutdown_delay_);
    const absl::Time deadline = absl::Now() + grace;
    // 2. Watch streams get their last NOT_SERVING and end cleanly, so that
    //    they do not hold the drain; Check keeps answering NOT_SERVING.
    health_->Shutdown();
    //    AdjudicateStream calls answer the records they have received and
    //    end (UNAVAILABLE), for the same reason.
    rules_->EndStreams();
    health_->WaitForWatchersToEnd(
        std::min(deadline, absl::Now() + absl::Seconds(1)));
    // 3. The listeners close; calls whose request has arrived finish.
    if (http_ != nullptr) http_->StopAccepting();
    if (front_ != nullptr) DrainFront(deadline);
    // 4. gRPC stops listening and lets the calls it holds finish until the
    //    deadline. Behind the front proxy nothing new can arrive by now.
    server_->Shutdown(absl::ToChronoTime(deadline));
    // 5. HTTP calls still running get the same deadline; then the HTTP
    //    threads stop (closing what is left open: idle keep-alives).
    while (rules_->calls_in_progress() > 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    http_.reset();
  });
}

void HalmaServer::DrainFront(absl::Time deadline) {
  // The proxy closes its listener and sends GOAWAY; streams already open
  // go on, so every call whose request has arrived is answered. A stream
  // still uploading (or stalled) gets at most the stream read timeout: once
  // that has passed and no call is being answered, the proxy is stopped, so
  // that a slow client cannot hold the shutdown for the whole grace period.
  front_->BeginDrain();
  const absl::Time uploads_end = std::min(
      deadline,
      absl::Now() + absl::Seconds(config_.stream_read_timeout_seconds));
  while (!front_->WaitForExit(absl::Now() + absl::Milliseconds(20))) {
    const absl::Time now = absl::Now();
    if (now >= deadline ||
        (now >= uploads_end && rules_->calls_in_progress() == 0)) {
      break;
    }
  }
  front_->Stop();
}

}  // namespace halma::service
