// Boost.Beast 1.74 (libboost-dev, header-only): asio io_context run by N
// threads, a strand per connection. Beast gives the parser and its limits;
// timeouts and the connection limit are this file's own code.
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>  // boost 1.74 asio/awaitable.hpp needs std::exchange in C++20
#include <vector>

#include "json_work.h"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::atomic<int> g_connections{0};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::chrono::seconds timeout)
      : stream_(std::move(socket)), timeout_(timeout) {}
  ~Session() { g_connections.fetch_sub(1); }

  void Start() {
    asio::dispatch(stream_.get_executor(),
                   [self = shared_from_this()] { self->Read(); });
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(bench::kMaxBody);  // checked against Content-Length
    // One deadline for idle time + header + body: slow clients are cut off
    // after timeout_ however they trickle.
    stream_.expires_after(timeout_);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) {
          self->OnRead(ec);
        });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      Reply(http::status::payload_too_large, R"({"code":"resource_exhausted"})",
            false);
      return;
    }
    if (ec) {  // end_of_stream, timeout, bad request, header_limit...
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      return;
    }
    auto& req = parser_->get();
    if (req.method() != http::verb::post ||
        req.target().substr(0, 21) != "/halma.v1.HalmaRules/") {
      Reply(http::status::not_found, R"({"code":"not_found"})",
            req.keep_alive());
      return;
    }
    std::string out;
    bool ok = bench::HandleJson(req.body(), &out);
    Reply(ok ? http::status::ok : http::status::bad_request, std::move(out),
          req.keep_alive());
  }

  void Reply(http::status status, std::string body, bool keep_alive) {
    auto res = std::make_shared<http::response<http::string_body>>(status, 11);
    res->set(http::field::content_type, "application/json");
    res->keep_alive(keep_alive);
    res->body() = std::move(body);
    res->prepare_payload();
    stream_.expires_after(timeout_);
    http::async_write(
        stream_, *res,
        [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
          if (ec || !res->keep_alive()) {
            self->stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
            return;
          }
          self->Read();
        });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::chrono::seconds timeout_;
};

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(asio::io_context& ioc, tcp::endpoint ep, const bench::Options& o)
      : ioc_(ioc), acceptor_(asio::make_strand(ioc)), o_(o) {
    acceptor_.open(ep.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  }
  void Accept() {
    acceptor_.async_accept(
        asio::make_strand(ioc_),
        [self = shared_from_this()](beast::error_code ec, tcp::socket s) {
          if (!ec) self->OnAccept(std::move(s));
          self->Accept();
        });
  }

 private:
  void OnAccept(tcp::socket s) {
    // The connection limit is hand-written: over it, close at once.
    if (g_connections.fetch_add(1) >= o_.max_conns) {
      g_connections.fetch_sub(1);
      beast::error_code ec;
      s.close(ec);
      return;
    }
    std::make_shared<Session>(std::move(s), std::chrono::seconds(o_.timeout_s))
        ->Start();
  }
  asio::io_context& ioc_;
  tcp::acceptor acceptor_;
  bench::Options o_;
};

}  // namespace

int main(int argc, char** argv) {
  bench::Options o = bench::ParseArgs(argc, argv);
  asio::io_context ioc(o.threads);
  auto ep = tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                          static_cast<unsigned short>(o.port));
  std::make_shared<Listener>(ioc, ep, o)->Accept();
  asio::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&ioc](beast::error_code, int) { ioc.stop(); });
  std::printf("listening %d\n", o.port);
  std::fflush(stdout);
  std::vector<std::thread> threads;
  for (int i = 1; i < o.threads; ++i)
    threads.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& t : threads) t.join();
  return 0;
}
