#include "service/connect/http_listener.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "halma/notation.h"

namespace halma::service {

namespace {

// One request's state, from its headers to its answer.
struct Call {
  std::string body;
  bool too_large = false;
  absl::Time started;
};

std::optional<absl::string_view> Header(MHD_Connection* connection,
                                        const char* name) {
  const char* value =
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
  if (value == nullptr) return std::nullopt;
  return absl::string_view(value);
}

MHD_Result AddQueryParameter(void* query, MHD_ValueKind /*kind*/,
                             const char* key, std::size_t key_size,
                             const char* value, std::size_t value_size) {
  static_cast<HttpRequest::Query*>(query)->emplace_back(
      absl::string_view(key, key_size),
      value == nullptr ? absl::string_view()
                       : absl::string_view(value, value_size));
  return MHD_YES;
}

MHD_Result Send(MHD_Connection* connection, const HttpResponse& answer,
                bool head) {
  MHD_Response* response = MHD_create_response_from_buffer(
      head ? 0 : answer.body.size(), const_cast<char*>(answer.body.data()),
      MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  if (!answer.content_type.empty()) {
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                            answer.content_type.c_str());
  }
  for (const auto& [name, value] : answer.headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  const MHD_Result queued =
      MHD_queue_response(connection, answer.status, response);
  MHD_destroy_response(response);
  return queued;
}

// "127.0.0.1:53412" or "[::1]:53412".
std::string Peer(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "";
  char host[INET6_ADDRSTRLEN] = "";
  if (info->client_addr->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(info->client_addr);
    inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
    return absl::StrCat(host, ":", ntohs(v4->sin_port));
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(info->client_addr);
  inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
  return absl::StrCat("[", host, "]:", ntohs(v6->sin6_port));
}

// libmicrohttpd reports its own errors (a failed accept, a malformed
// request line) here; the clients' mistakes are not worth a line each.
void Log(void* /*cls*/, const char* /*format*/, va_list /*args*/) {}

absl::StatusOr<std::pair<sockaddr_storage, bool>> ListenAddress(
    const std::string& host, int port) {
  sockaddr_storage address{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    return std::make_pair(address, false);
  }
  if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    return std::make_pair(address, true);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("http_host: ", QuoteForError(host),
                   ", expected an IPv4 or IPv6 address"));
}

}  // namespace

struct HttpListenerCallbacks {
  static void Connection(void* self, MHD_Connection* connection,
                         void** socket_context,
                         MHD_ConnectionNotificationCode what) {
    auto* listener = static_cast<HttpListener*>(self);
    std::lock_guard<std::mutex> lock(listener->mu_);
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
      auto* clock = new HttpListener::Clock();
      const MHD_ConnectionInfo* info = MHD_get_connection_info(
          connection, MHD_CONNECTION_INFO_CONNECTION_FD);
      clock->fd = info != nullptr ? info->connect_fd : -1;
      clock->deadline =
          absl::Now() + absl::Seconds(listener->options_.read_timeout_seconds);
      listener->clocks_.insert(clock);
      *socket_context = clock;
    } else {
      // Before libmicrohttpd closes the socket: the sweeper, which holds
      // the lock while it shuts sockets down, never touches a closed one.
      auto* clock = static_cast<HttpListener::Clock*>(*socket_context);
      listener->clocks_.erase(clock);
      delete clock;
      *socket_context = nullptr;
    }
  }

  static MHD_Result Access(void* self, MHD_Connection* connection,
                           const char* url, const char* method,
                           const char* /*version*/, const char* upload_data,
                           std::size_t* upload_data_size, void** state) {
    auto* listener = static_cast<HttpListener*>(self);
    auto* call = static_cast<Call*>(*state);
    if (call == nullptr) {
      // The headers are in; the body, if any, comes in later calls.
      call = new Call();
      call->started = absl::Now();
      *state = call;
      listener->SetDeadline(
          connection,
          call->started +
              absl::Seconds(listener->options_.read_timeout_seconds));
      std::optional<absl::string_view> length =
          Header(connection, MHD_HTTP_HEADER_CONTENT_LENGTH);
      std::uint64_t bytes = 0;
      if (length.has_value() && absl::SimpleAtoi(*length, &bytes) &&
          bytes >
              static_cast<std::uint64_t>(listener->options_.max_body_bytes)) {
        // Refused before a byte of the body is read; libmicrohttpd closes
        // the connection after the answer.
        call->too_large = true;
        return static_cast<MHD_Result>(
            listener->Answer(connection, call, url, method));
      } else if (bytes > 0) {
        call->body.reserve(static_cast<std::size_t>(bytes));
      }
      return MHD_YES;
    }
    if (*upload_data_size > 0) {
      if (!call->too_large &&
          call->body.size() + *upload_data_size >
              static_cast<std::size_t>(listener->options_.max_body_bytes)) {
        call->too_large = true;
        call->body = std::string();
      }
      if (!call->too_large) call->body.append(upload_data, *upload_data_size);
      *upload_data_size = 0;
      return MHD_YES;
    }
    listener->SetDeadline(connection, absl::InfiniteFuture());
    return static_cast<MHD_Result>(
        listener->Answer(connection, call, url, method));
  }

  static void Completed(void* self, MHD_Connection* connection, void** state,
                        MHD_RequestTerminationCode /*why*/) {
    auto* listener = static_cast<HttpListener*>(self);
    listener->SetDeadline(
        connection,
        absl::Now() + absl::Seconds(listener->options_.idle_timeout_seconds));
    delete static_cast<Call*>(*state);
    *state = nullptr;
  }
};

absl::StatusOr<std::unique_ptr<HttpListener>> HttpListener::Start(
    HttpListenerOptions options, const ConnectHandler* handler) {
  absl::StatusOr<std::pair<sockaddr_storage, bool>> address =
      ListenAddress(options.host, options.port);
  if (!address.ok()) return address.status();
  std::unique_ptr<HttpListener> listener(
      new HttpListener(std::move(options), handler));
  const HttpListenerOptions& o = listener->options_;
  unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
                       MHD_USE_ITC;  // ITC: needed to quiesce.
  if (address->second) flags |= MHD_USE_IPv6;
  listener->daemon_ = MHD_start_daemon(
      flags, 0, nullptr, nullptr,
      reinterpret_cast<MHD_AccessHandlerCallback>(
          &HttpListenerCallbacks::Access),
      listener.get(), MHD_OPTION_SOCK_ADDR,
      reinterpret_cast<sockaddr*>(&address->first), MHD_OPTION_THREAD_POOL_SIZE,
      static_cast<unsigned int>(o.threads), MHD_OPTION_CONNECTION_LIMIT,
      static_cast<unsigned int>(o.max_connections),
      MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned int>(o.idle_timeout_seconds),
      MHD_OPTION_CONNECTION_MEMORY_LIMIT,
      static_cast<std::size_t>(o.max_header_bytes), MHD_OPTION_NOTIFY_COMPLETED,
      reinterpret_cast<MHD_RequestCompletedCallback>(
          &HttpListenerCallbacks::Completed),
      listener.get(), MHD_OPTION_NOTIFY_CONNECTION,
      reinterpret_cast<MHD_NotifyConnectionCallback>(
          &HttpListenerCallbacks::Connection),
      listener.get(), MHD_OPTION_EXTERNAL_LOGGER, &Log, nullptr,
      MHD_OPTION_END);
  if (listener->daemon_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for HTTP on ", o.host, ":", o.port,
                     " (address in use, or not an address of this host?)"));
  }
  const MHD_DaemonInfo* info =
      MHD_get_daemon_info(listener->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  listener->port_ = info != nullptr ? info->port : o.port;
  listener->sweeper_ = std::thread([raw = listener.get()] { raw->Sweep(); });
  return listener;
}

HttpListener::~HttpListener() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (sweeper_.joinable()) sweeper_.join();
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
  if (quiesced_socket_ >= 0) close(quiesced_socket_);
}

std::int64_t HttpListener::timed_out_total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return timed_out_;
}

void HttpListener::SetDeadline(MHD_Connection* connection,
                               absl::Time deadline) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (info == nullptr || info->socket_context == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  static_cast<Clock*>(info->socket_context)->deadline = deadline;
}

void HttpListener::Sweep() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    stop_cv_.wait_for(lock, std::chrono::milliseconds(100));
    const absl::Time now = absl::Now();
    for (Clock* clock : clocks_) {
      if (clock->deadline < now && clock->fd >= 0) {
        shutdown(clock->fd, SHUT_RDWR);
        clock->deadline = absl::InfiniteFuture();
        ++timed_out_;
      }
    }
  }
}

void HttpListener::StopAccepting() {
  if (daemon_ == nullptr || quiesced_socket_ >= 0) return;
  // The socket is ours to close now, but only after MHD_stop_daemon: the
  // daemon's threads may still be using it (libmicrohttpd's manual).
  quiesced_socket_ = MHD_quiesce_daemon(daemon_);
}

int HttpListener::Answer(MHD_Connection* connection, void* state,
                         const char* url, const char* method) {
  auto* call = static_cast<Call*>(state);
  HttpRequest request;
  request.method = method;
  request.path = url;
  const bool head = request.method == "HEAD";
  HttpResponse answer;
  if (call->too_large) {
    answer = handler_->RefuseTooLarge();
  } else if (request.path == "/metrics" && options_.metrics) {
    answer.content_type = "text/plain; version=0.0.4; charset=utf-8";
    answer.body = options_.metrics();
  } else if (options_.playground != nullptr &&
             Playground::Serves(request.path)) {
    // --- The playground page (service/playground/): static bytes. ---
    PlaygroundResponse page =
        options_.playground->Answer(request.method, request.path);
    answer.status = page.status;
    answer.content_type = std::move(page.content_type);
    answer.headers = std::move(page.headers);
    answer.body = std::move(page.body);
  } else {
    MHD_get_connection_values_n(connection, MHD_GET_ARGUMENT_KIND,
                                &AddQueryParameter, &request.query);
    request.content_type =
        Header(connection, MHD_HTTP_HEADER_CONTENT_TYPE).value_or("");
    request.content_encoding =
        Header(connection, MHD_HTTP_HEADER_CONTENT_ENCODING).value_or("");
    request.protocol_version = Header(connection, "Connect-Protocol-Version");
    request.timeout_ms = Header(connection, "Connect-Timeout-Ms");
    request.body = call->body;
    if (options_.record_peer) {
      request.peer = Peer(connection);
      request.traceparent = Header(connection, "traceparent").value_or("");
    }
    answer = handler_->Handle(request, [] { return false; });
  }
  return Send(connection, answer, head);
}

}  // namespace halma::service
