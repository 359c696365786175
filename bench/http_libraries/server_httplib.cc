// cpp-httplib 0.11.4 (libcpp-httplib-dev, built as a shared library): the
// listener thread accepts and hands each connection to a thread pool; a
// worker serves that connection until it closes (thread per connection).
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "json_work.h"

int main(int argc, char** argv) {
  bench::Options o = bench::ParseArgs(argc, argv);
  httplib::Server server;
  const int threads = o.threads;
  server.new_task_queue = [threads] {
    return new httplib::ThreadPool(threads);
  };
  server.set_read_timeout(o.timeout_s, 0);
  server.set_write_timeout(o.timeout_s, 0);
  server.set_keep_alive_timeout(o.timeout_s);
  // keep_alive_max_count stays at its default (5 requests a connection): with
  // a worker held per connection it is what rotates waiting connections.
  // Default off: then each answer waits 40 ms for a delayed ACK (Nagle).
  server.set_tcp_nodelay(true);
  server.set_payload_max_length(bench::kMaxBody);  // backstop (chunked)

  // A declared length over the limit is refused before the body is read
  // (the pre-routing handler runs after the header); payload_max_length
  // refuses longer chunked bodies.
  server.set_pre_routing_handler([](const httplib::Request& req,
                                    httplib::Response& res) {
    if (req.get_header_value<uint64_t>("Content-Length") > bench::kMaxBody) {
      res.status = 413;
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.Post("/halma.v1.HalmaRules/.*",
              [](const httplib::Request& req, httplib::Response& res) {
                std::string out;
                if (!bench::HandleJson(req.body, &out)) res.status = 400;
                res.set_content(out, "application/json");
              });

  // SIGTERM/SIGINT set a flag that a watcher thread turns into stop(): some
  // thread of the library runs with no signal mask, so sigwait is not safe.
  static std::atomic<bool> stop{false};
  struct sigaction sa {};
  sa.sa_handler = [](int) { stop.store(true); };
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::thread stopper([&server] {
    while (!stop.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server.stop();
  });
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  if (!server.bind_to_port("127.0.0.1", o.port)) {
    std::fprintf(stderr, "httplib: bind failed\n");
    std::_Exit(1);
  }
  std::printf("listening %d\n", o.port);
  std::fflush(stdout);
  server.listen_after_bind();
  stopper.join();
  return 0;
}
