#include "service/server/server.h"

#include <grpcpp/resource_quota.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpc/grpc.h"
#include "halma/flood_fill.h"
#include "service/config/version.h"
#include "service/core/presets.h"
#include "service/grpc/interceptor.h"
#include "service/reflection/served_descriptor_set.h"

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

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(
    const Settings& settings) {
  if (settings.tls_cert.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::string> cert = ReadFile(settings.tls_cert, "tls_cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadFile(settings.tls_key, "tls_key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(options);
}

int Cpus() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// Streams per backend connection when the front proxy is in use (it opens
// more connections as needed; gRPC's default is unlimited). Every client
// stream can fit on one connection (the proxy bounds their number), so a
// flood of streams does not leave dozens of idle backend connections and
// their buffers behind.
constexpr int kBackendStreamsPerConnection = 1 << 16;

}  // namespace

std::string JoinHostPort(const std::string& host, int port) {
  if (absl::StrContains(host, ':') && !absl::StartsWith(host, "[")) {
    return absl::StrCat("[", host, "]:", port);
  }
  return absl::StrCat(host, ":", port);
}

HalmaServer::HalmaServer(const ServerConfig& config)
    : config_(config),
      settings_(config),
      shutdown_delay_(absl::Seconds(config.shutdown_delay_seconds)) {}

absl::StatusOr<std::unique_ptr<HalmaServer>> HalmaServer::Start(
    const ServerConfig& config) {
  if (absl::Status status = ValidateSettings(config); !status.ok()) {
    return status;
  }
  std::unique_ptr<HalmaServer> server(new HalmaServer(config));
  server->ResolveDefaults();
  for (absl::Status (HalmaServer::*step)() :
       {&HalmaServer::BuildRules, &HalmaServer::StartGrpc,
        &HalmaServer::StartFrontProxy, &HalmaServer::StartHttp}) {
    if (absl::Status status = (server.get()->*step)(); !status.ok()) {
      return status;
    }
  }
  server->StartServing();
  return server;
}

// Settings whose 0 means "from the machine".
void HalmaServer::ResolveDefaults() {
  if (settings_.max_concurrent_adjudications == 0) {
    settings_.max_concurrent_adjudications = Cpus();
  }
  if (settings_.http_threads == 0) settings_.http_threads = 2 * Cpus();
}

// The middle: metrics and the access log (the call observer), the rules
// core and the admission gate.
absl::Status HalmaServer::BuildRules() {
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
  metrics_ = *std::move(metrics);
  observer_ = std::make_unique<CallObserver>(
      metrics_.get(), settings_.access_log ? config_.logger : nullptr);
  core_ = std::make_unique<RulesCore>(
      RulesOptions{.max_record_moves = settings_.max_record_moves,
                   .max_perft_depth = settings_.max_perft_depth,
                   .max_suggest_nodes = settings_.max_suggest_nodes,
                   .max_suggest_time_ms = settings_.max_suggest_time_ms,
                   // One search workspace per slot of the gate.
                   .suggest_workspaces = settings_.max_concurrent_adjudications,
                   .suggest_table_bits = settings_.suggest_table_bits});
  gate_ = std::make_unique<AdmissionGate>(AdmissionLimits{
      .slots = settings_.max_concurrent_adjudications,
      .max_queue_length = settings_.max_queue_length,
      .max_queue_wait = absl::Milliseconds(settings_.max_queue_wait_ms),
      .max_call = absl::Seconds(settings_.max_call_seconds),
      .checkpoint_hook = config_.checkpoint_hook,
  });
  return absl::OkStatus();
}

// The gRPC edge: HalmaRules, Health and reflection, observed, with gRPC's
// own limits; behind the front proxy on loopback, in plaintext (the proxy
// terminates TLS).
absl::Status HalmaServer::StartGrpc() {
  const bool front = !settings_.front_proxy.empty();
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      Credentials(settings_);
  if (!credentials.ok()) return credentials.status();
  health_ = std::make_unique<HealthService>();
  rules_service_ = std::make_unique<RulesService>(*core_, *gate_, *observer_);

  grpc::ServerBuilder builder;
  const std::string address =
      front ? JoinHostPort("127.0.0.1", settings_.backend_port)
            : JoinHostPort(settings_.host, settings_.port);
  builder.AddListeningPort(
      address, front ? grpc::InsecureServerCredentials() : *credentials,
      &grpc_port_);
  builder.RegisterService(rules_service_.get());
  builder.RegisterService(health_.get());
  if (settings_.reflection) {
    absl::StatusOr<std::unique_ptr<ReflectionFiles>> files =
        ReflectionFiles::Create(ServedDescriptorSet(),
                                {"halma.v1.HalmaRules", "grpc.health.v1.Health",
                                 "grpc.reflection.v1.ServerReflection",
                                 "grpc.reflection.v1alpha.ServerReflection"});
    if (!files.ok()) return files.status();
    std::shared_ptr<const ReflectionFiles> shared = *std::move(files);
    reflection_v1_ = std::make_unique<ReflectionV1Service>(shared);
    reflection_v1alpha_ = std::make_unique<ReflectionV1AlphaService>(shared);
    builder.RegisterService(reflection_v1_.get());
    builder.RegisterService(reflection_v1alpha_.get());
  }
  // HalmaRules' calls observe themselves; the interceptor observes the
  // others (Health, reflection, unknown methods).
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      interceptors;
  interceptors.push_back(
      std::make_unique<ObservingInterceptorFactory>(observer_.get()));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));

  builder.SetMaxReceiveMessageSize(settings_.max_message_bytes);
  // A second server on the same port must fail, not share it silently.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Behind the proxy, one backend connection carries the streams of many
  // clients (the proxy opens more connections as needed), so the per-client
  // bound is the proxy's.
  builder.AddChannelArgument(
      GRPC_ARG_MAX_CONCURRENT_STREAMS,
      front ? kBackendStreamsPerConnection : settings_.max_concurrent_streams);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                             settings_.idle_timeout_seconds * 1000);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             settings_.handshake_timeout_seconds * 1000);
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             settings_.max_metadata_bytes);
  // Ping idle clients now and then, so that connections to peers that
  // vanished without a FIN are closed instead of held for hours.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60 * 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20 * 1000);
  // Behind the front proxy the clients' connections are the proxy's, and
  // it ages them (FrontProxyOptions::connection_age_seconds).
  if (settings_.max_connection_age_seconds > 0 && !front) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                               settings_.max_connection_age_seconds * 1000);
  }
  if (settings_.max_connection_age_grace_seconds > 0 && !front) {
    builder.AddChannelArgument(
        GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
        settings_.max_connection_age_grace_seconds * 1000);
  }
  if (settings_.max_memory_bytes > 0) {
    grpc::ResourceQuota quota("halma_server");
    quota.Resize(static_cast<std::size_t>(settings_.max_memory_bytes));
    builder.SetResourceQuota(quota);
  }
  grpc_ = builder.BuildAndStart();
  if (grpc_ == nullptr || grpc_port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", address,
                     " (address in use, or not an address of this host?)"));
  }
  if (front) {
    settings_.backend_port = grpc_port_;
  } else {
    settings_.port = grpc_port_;
  }
  return absl::OkStatus();
}

// nghttpx in front of gRPC, where clients connect (docs/security.md).
absl::Status HalmaServer::StartFrontProxy() {
  if (settings_.front_proxy.empty()) return absl::OkStatus();
  // The backend answers a call within its wait for a slot and its maximum
  // call time.
  const int backend_seconds =
      settings_.max_call_seconds +
      static_cast<int>((settings_.max_queue_wait_ms + 999) / 1000) + 5;
  absl::StatusOr<std::unique_ptr<FrontProxy>> proxy =
      FrontProxy::Start(FrontProxyOptions{
          .binary = settings_.front_proxy,
          .listen_host = settings_.host,
          .listen_port = settings_.port,
          .backend_port = grpc_port_,
          .tls_cert = settings_.tls_cert,
          .tls_key = settings_.tls_key,
          .max_connections = settings_.max_connections,
          .max_concurrent_streams = settings_.max_concurrent_streams,
          .idle_timeout_seconds = settings_.idle_timeout_seconds,
          .handshake_timeout_seconds = settings_.handshake_timeout_seconds,
          .stream_read_timeout_seconds = settings_.stream_read_timeout_seconds,
          .max_metadata_bytes = settings_.max_metadata_bytes,
          .backend_timeout_seconds = backend_seconds,
          .connection_age_seconds = settings_.max_connection_age_seconds,
          .connection_age_grace_seconds =
              settings_.max_connection_age_grace_seconds,
      });
  if (!proxy.ok()) return proxy.status();
  front_ = *std::move(proxy);
  settings_.port = front_->port();
  return absl::OkStatus();
}

// The HTTP/JSON edge: the Connect protocol, health, /metrics and the
// playground page.
absl::Status HalmaServer::StartHttp() {
  if (!settings_.http) return absl::OkStatus();
  connect_ = std::make_unique<ConnectHandler>(
      core_.get(), gate_.get(), observer_.get(),
      ConnectHandler::Options{
          .max_body_bytes = settings_.max_message_bytes,
          .ready =
              [health = health_.get()] {
                return health->GetServingStatus("") ==
                       grpc::health::v1::HealthCheckResponse::SERVING;
              },
      });
  if (settings_.playground) {
    playground_ = std::make_unique<Playground>(PlaygroundOptions{
        .grpc_port = settings_.port, .grpc_tls = !settings_.tls_cert.empty()});
  }
  absl::StatusOr<std::unique_ptr<HttpListener>> http = HttpListener::Start(
      HttpListenerOptions{
          .host = settings_.host,
          .port = settings_.http_port,
          .max_connections = settings_.max_connections,
          .idle_timeout_seconds = settings_.idle_timeout_seconds,
          .read_timeout_seconds = settings_.stream_read_timeout_seconds,
          .max_body_bytes = settings_.max_message_bytes,
          .max_header_bytes = settings_.max_metadata_bytes,
          .threads = settings_.http_threads,
          .record_peer = observer_->wants_peer(),
          .metrics = [m = metrics_.get()] { return m->Exposition(); },
          .playground = playground_.get(),
      },
      connect_.get());
  if (!http.ok()) return http.status();
  http_ = *std::move(http);
  settings_.http_port = http_->port();
  return absl::OkStatus();
}

void HalmaServer::StartServing() {
  health_->SetServingStatus("", true);
  health_->SetServingStatus(v1::HalmaRules::service_full_name(), true);
}

HalmaServer::~HalmaServer() {
  shutdown_delay_ = absl::ZeroDuration();
  if (grpc_ != nullptr) Shutdown(absl::ZeroDuration());
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
    rules_service_->EndStreams();
    health_->WaitForWatchersToEnd(
        std::min(deadline, absl::Now() + absl::Seconds(1)));
    // 3. The listeners close; calls whose request has arrived finish, the
    //    ones waiting for a slot of the admission gate included.
    if (http_ != nullptr) http_->StopAccepting();
    if (front_ != nullptr) DrainFront(deadline);
    // 4. At the deadline every expensive call still running stops at its
    //    next checkpoint, and those still waiting for a slot are refused.
    //    (gRPC cancels its calls then too, but delivers that on its
    //    callback threads, which a long replay may be holding.)
    std::mutex stop_mu;
    std::condition_variable stop_cv;
    bool drained = false;
    std::thread stopper([&] {
      std::unique_lock<std::mutex> lock(stop_mu);
      if (!stop_cv.wait_for(lock,
                            absl::ToChronoNanoseconds(std::max(
                                absl::ZeroDuration(), deadline - absl::Now())),
                            [&] { return drained; })) {
        gate_->StopAll();
      }
    });
    // 5. gRPC stops listening and lets the calls it holds finish until the
    //    deadline. Behind the front proxy nothing new can arrive by now.
    grpc_->Shutdown(absl::ToChronoTime(deadline));
    // 6. HTTP calls still running get the same deadline; then the HTTP
    //    threads stop (closing what is left open: idle keep-alives).
    while (calls_in_progress() > 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    {
      std::lock_guard<std::mutex> lock(stop_mu);
      drained = true;
    }
    stop_cv.notify_all();
    stopper.join();
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
      absl::Now() + absl::Seconds(settings_.stream_read_timeout_seconds));
  while (!front_->WaitForExit(absl::Now() + absl::Milliseconds(20))) {
    const absl::Time now = absl::Now();
    if (now >= deadline || (now >= uploads_end && calls_in_progress() == 0)) {
      break;
    }
  }
  front_->Stop();
}

}  // namespace halma::service
