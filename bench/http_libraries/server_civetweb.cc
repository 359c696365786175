// civetweb 1.15 (libcivetweb-dev): a listener thread accepts into a queue and
// num_threads workers each serve one connection at a time.
#include <civetweb.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include "json_work.h"

namespace {

int Handle(mg_connection* conn, void* /*cbdata*/) {
  const mg_request_info* ri = mg_get_request_info(conn);
  if (std::string_view(ri->request_method) != "POST") {
    mg_send_http_error(conn, 405, "POST only");
    return 405;
  }
  // content_length is -1 for chunked bodies: then mg_read's cap bounds it.
  if (ri->content_length > static_cast<long long>(bench::kMaxBody)) {
    mg_disable_connection_keep_alive(conn);  // the body stays unread
    mg_send_http_error(conn, 413, "body over 64 KiB");
    return 413;
  }
  std::string body;
  body.resize(bench::kMaxBody + 1);
  std::size_t got = 0;
  while (got < body.size()) {
    int n = mg_read(conn, body.data() + got, body.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > bench::kMaxBody) {
    mg_disable_connection_keep_alive(conn);
    mg_send_http_error(conn, 413, "body over 64 KiB");
    return 413;
  }
  body.resize(got);
  std::string out;
  if (!bench::HandleJson(body, &out)) {
    mg_send_http_error(conn, 400, "%s", out.c_str());
    return 400;
  }
  mg_send_http_ok(conn, "application/json", static_cast<long long>(out.size()));
  mg_write(conn, out.data(), out.size());
  return 200;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options o = bench::ParseArgs(argc, argv);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // library threads inherit it
  std::string ports = "127.0.0.1:" + std::to_string(o.port);
  std::string threads = std::to_string(o.threads);
  std::string timeout_ms = std::to_string(o.timeout_s * 1000);
  // connection_queue: accepted sockets waiting for a free worker (1.15).
  std::string queue = std::to_string(o.max_conns);
  const char* options[] = {
      "listening_ports", ports.c_str(), "num_threads", threads.c_str(),
      "enable_keep_alive", "yes", "keep_alive_timeout_ms", timeout_ms.c_str(),
      "request_timeout_ms", timeout_ms.c_str(), "connection_queue",
      queue.c_str(), "max_request_size", "16384",
      // Without it each answer (header and body are two writes) waits 40 ms
      // for the client's delayed ACK (Nagle).
      "tcp_nodelay", "1", nullptr};
  mg_init_library(0);
  mg_callbacks callbacks{};
  mg_context* ctx = mg_start(&callbacks, nullptr, options);
  if (ctx == nullptr) {
    std::fprintf(stderr, "civetweb: mg_start failed\n");
    return 1;
  }
  mg_set_request_handler(ctx, "/halma.v1.HalmaRules/", Handle, nullptr);
  std::printf("listening %d\n", o.port);
  std::fflush(stdout);
  int sig = 0;
  sigwait(&set, &sig);
  mg_stop(ctx);
  mg_exit_library();
  return 0;
}
