// GNU libmicrohttpd 0.9.75 (libmicrohttpd-dev): event-driven, a pool of
// THREAD_POOL_SIZE internal threads, each with its own epoll set; idle
// connections cost no thread.
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "json_work.h"

namespace {

struct Request {
  std::string body;
  bool over = false;
};

MHD_Result Send(MHD_Connection* conn, unsigned status,
                const std::string& body) {
  MHD_Response* r = MHD_create_response_from_buffer(
      body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  MHD_Result ret = MHD_queue_response(conn, status, r);
  MHD_destroy_response(r);
  return ret;
}

MHD_Result Access(void* /*cls*/, MHD_Connection* conn, const char* url,
                  const char* method, const char* /*version*/,
                  const char* upload_data, size_t* upload_data_size,
                  void** req_cls) {
  auto* req = static_cast<Request*>(*req_cls);
  if (req == nullptr) {  // first call: the header has arrived, no body yet
    if (std::strcmp(method, "POST") != 0 ||
        std::strncmp(url, "/halma.v1.HalmaRules/", 21) != 0) {
      return Send(conn, 404, R"({"code":"not_found"})");
    }
    const char* cl = MHD_lookup_connection_value(
        conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl != nullptr && std::strtoull(cl, nullptr, 10) > bench::kMaxBody) {
      // A response queued before the body is read: MHD closes the
      // connection after it and never reads the body.
      return Send(conn, 413, R"({"code":"resource_exhausted"})");
    }
    *req_cls = new Request;
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    if (req->body.size() + *upload_data_size > bench::kMaxBody) {
      return MHD_NO;  // chunked body over the limit: close the connection
    }
    req->body.append(upload_data, *upload_data_size);
    *upload_data_size = 0;
    return MHD_YES;
  }
  std::string out;
  bool ok = bench::HandleJson(req->body, &out);
  return Send(conn, ok ? 200 : 400, out);
}

void Completed(void* /*cls*/, MHD_Connection* /*conn*/, void** req_cls,
               MHD_RequestTerminationCode /*toe*/) {
  delete static_cast<Request*>(*req_cls);
  *req_cls = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options o = bench::ParseArgs(argc, argv);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // library threads inherit it
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(o.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  MHD_Daemon* d = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG,
      static_cast<uint16_t>(o.port), nullptr, nullptr, &Access, nullptr,
      MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&addr),
      MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(o.threads),
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(o.timeout_s),
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(o.max_conns),
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, static_cast<unsigned>(o.max_conns),
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<size_t>(32 * 1024),
      MHD_OPTION_NOTIFY_COMPLETED, &Completed, nullptr, MHD_OPTION_END);
  if (d == nullptr) {
    std::fprintf(stderr, "microhttpd: MHD_start_daemon failed\n");
    return 1;
  }
  std::printf("listening %d\n", o.port);
  std::fflush(stdout);
  int sig = 0;
  sigwait(&set, &sig);
  MHD_stop_daemon(d);
  return 0;
}
