// The HTTP/1.1 listener of the Connect protocol, on GNU libmicrohttpd
// (Debian's libmicrohttpd-dev; docs/http-library-choice.md says why): its
// epoll threads read requests within the listener's bounds and hand each
// one, whole, to ConnectHandler; GET /metrics is served from `metrics`.
#ifndef HALMA_SERVICE_CONNECT_HTTP_LISTENER_H_
#define HALMA_SERVICE_CONNECT_HTTP_LISTENER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "service/connect/connect_handler.h"
#include "service/playground/playground.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace halma::service {

struct HttpListenerOptions {
  std::string host = "0.0.0.0";
  int port = 8080;  // 0 picks a free port.
  // Connections open at once; more are refused at accept.
  int max_connections = 256;
  // A keep-alive connection must send its next request (whole) within this
  // long of its last answer; libmicrohttpd also closes a connection that
  // sends or receives nothing for this long.
  int idle_timeout_seconds = 30;
  // A request's headers must have arrived within this long of the
  // connection's start, and its body within this long of its headers:
  // a client sending a byte now and then (slowloris) is cut off.
  int read_timeout_seconds = 5;
  // Largest request body (or GET message); larger ones get
  // resource_exhausted without the body being stored.
  int max_body_bytes = 65536;
  // Memory per connection for the request line and headers (libmicrohttpd
  // answers 431 beyond it).
  int max_header_bytes = 16384;
  // Threads that read requests and run the handlers.
  int threads = 4;
  // Fill HttpRequest::peer and ::traceparent (for the access log).
  bool record_peer = false;
  // The Prometheus exposition for GET /metrics; unset: 404.
  std::function<std::string()> metrics;
  // The playground page (GET / and /playground/<asset>); null: 404 there.
  // Must outlive the listener.
  const Playground* playground = nullptr;
};

class HttpListener {
 public:
  // Binds and starts the threads. UNAVAILABLE when the address cannot be
  // bound; INVALID_ARGUMENT for a host that is not an address.
  static absl::StatusOr<std::unique_ptr<HttpListener>> Start(
      HttpListenerOptions options, const ConnectHandler* handler);

  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;
  // Stops at once: open connections are closed.
  ~HttpListener();

  int port() const { return port_; }
  // Connections cut off for not sending their request in time.
  std::int64_t timed_out_total() const;
  // Stops accepting connections; those open are still served.
  void StopAccepting();

 private:
  HttpListener(HttpListenerOptions options, const ConnectHandler* handler)
      : options_(std::move(options)), handler_(handler) {}

  // The C callbacks of libmicrohttpd (http_listener.cc).
  friend struct HttpListenerCallbacks;
  // Answers a request whose body is in (`call`: its state).
  int Answer(MHD_Connection* connection, void* call, const char* url,
             const char* method);

  // A connection's deadline for its request (InfiniteFuture while the
  // handler runs). Past it, the sweeper shuts the socket down, and
  // libmicrohttpd then closes the connection.
  struct Clock {
    int fd = -1;
    absl::Time deadline;
  };
  void SetDeadline(MHD_Connection* connection, absl::Time deadline);
  void Sweep();

  const HttpListenerOptions options_;
  const ConnectHandler* const handler_;
  MHD_Daemon* daemon_ = nullptr;
  int port_ = 0;
  int quiesced_socket_ = -1;  // Returned by MHD_quiesce_daemon.

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;       // Guarded by mu_.
  std::set<Clock*> clocks_;     // Guarded by mu_.
  std::int64_t timed_out_ = 0;  // Guarded by mu_.
  std::thread sweeper_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONNECT_HTTP_LISTENER_H_
