#include "service/server/front_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace halma::service {
namespace {

// nghttpx takes "*" for every address; "::" alone would be IPv6 only.
std::string FrontendHost(const std::string& host) {
  if (host == "::" || host == "[::]") return "*";
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

// Where to connect to see whether the proxy listens.
std::string ProbeHost(const std::string& host) {
  if (host == "0.0.0.0" || host == "::" || host == "[::]" || host == "*") {
    return "127.0.0.1";
  }
  return FrontendHost(host);
}

bool FillAddress(const std::string& host, int port, sockaddr_storage* addr,
                 socklen_t* length) {
  auto* v4 = reinterpret_cast<sockaddr_in*>(addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(addr);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    *length = sizeof(sockaddr_in);
    return true;
  }
  if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    *length = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

// A port that is free on `host` now (nghttpx cannot report the port it
// picked for 0). Another process could take it before nghttpx binds; the
// start-up then fails and says so.
absl::StatusOr<int> FreePort(const std::string& host) {
  sockaddr_storage addr = {};
  socklen_t length = 0;
  if (!FillAddress(ProbeHost(host), 0, &addr, &length)) {
    return absl::InvalidArgumentError(
        absl::StrCat("host \"", host, "\": port 0 with the front proxy needs ",
                     "a numeric address"));
  }
  const int fd = socket(addr.ss_family, SOCK_STREAM, 0);
  if (fd < 0) return absl::UnavailableError("socket() failed");
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), length) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
    port = addr.ss_family == AF_INET
               ? ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port)
               : ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  }
  close(fd);
  if (port == 0) return absl::UnavailableError("no free port");
  return port;
}

bool Accepts(const std::string& host, int port) {
  sockaddr_storage addr = {};
  socklen_t length = 0;
  if (!FillAddress(ProbeHost(host), port, &addr, &length)) return false;
  const int fd = socket(addr.ss_family, SOCK_STREAM, 0);
  if (fd < 0) return false;
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), length) == 0;
  close(fd);
  return ok;
}

std::string Seconds(int seconds) { return absl::StrCat(seconds, "s"); }

}  // namespace

std::vector<std::string> FrontProxyArguments(const FrontProxyOptions& o) {
  const bool tls = !o.tls_cert.empty() && !o.tls_key.empty();
  std::vector<std::string> args = {
      o.binary,
      // Every setting is on this command line; no system config file.
      "--conf=/dev/null",
      absl::StrCat("--frontend=", FrontendHost(o.listen_host), ",",
                   o.listen_port, tls ? "" : ";no-tls"),
      absl::StrCat("--backend=127.0.0.1,", o.backend_port, ";;proto=h2"),
      "--workers=1",
      absl::StrCat("--worker-frontend-connections=", o.max_connections),
      absl::StrCat("--frontend-http2-max-concurrent-streams=",
                   o.max_concurrent_streams),
      // A connection that reads nothing for this long is closed.
      absl::StrCat("--frontend-http2-read-timeout=",
                   Seconds(o.idle_timeout_seconds)),
      // Until the HTTP/2 preface has arrived the connection is read as
      // HTTP/1, under this timeout; then SETTINGS must be acknowledged.
      absl::StrCat("--frontend-read-timeout=",
                   Seconds(o.handshake_timeout_seconds)),
      absl::StrCat("--frontend-http2-settings-timeout=",
                   Seconds(o.handshake_timeout_seconds)),
      absl::StrCat("--stream-read-timeout=",
                   Seconds(o.stream_read_timeout_seconds)),
      absl::StrCat("--stream-write-timeout=",
                   Seconds(o.backend_timeout_seconds)),
      absl::StrCat("--request-header-field-buffer=", o.max_metadata_bytes),
      "--max-request-header-fields=64",
      absl::StrCat("--backend-read-timeout=",
                   Seconds(o.backend_timeout_seconds)),
      "--backend-connect-timeout=5s",
      "--no-server-push",
      "--no-via",
      "--no-ocsp",
      "--errorlog-file=/dev/stderr",
      "--log-level=WARN",
      // Connection ageing reloads nghttpx: its old worker sends GOAWAY to
      // every client and may finish calls in flight for this long.
      absl::StrCat("--worker-process-grace-shutdown-period=",
                   Seconds(o.connection_age_grace_seconds)),
  };
  if (tls) {
    args.push_back(o.tls_key);
    args.push_back(o.tls_cert);
  }
  return args;
}

absl::StatusOr<std::unique_ptr<FrontProxy>> FrontProxy::Start(
    FrontProxyOptions options) {
  if (options.listen_port == 0) {
    absl::StatusOr<int> port = FreePort(options.listen_host);
    if (!port.ok()) return port.status();
    options.listen_port = *port;
  }
  std::unique_ptr<FrontProxy> proxy(new FrontProxy(options));
  const std::vector<std::string> args = FrontProxyArguments(options);
  std::vector<char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  // nghttpx allocates with jemalloc too. Its worker is a forked process, in
  // which jemalloc's background purging thread does not run, so freed pages
  // would only be returned as the allocator happens to be used again
  // (measured: a flood of streams left 7 MiB behind for good). Purging at
  // once on free returns them, unless MALLOC_CONF says otherwise.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  if (getenv("MALLOC_CONF") == nullptr) {
    env_strings.push_back("MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0");
  }
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::UnavailableError("front proxy: fork() failed");
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec. halma_server
    // blocks SIGTERM and SIGINT in every thread; nghttpx needs them.
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, nullptr);
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  proxy->pid_ = pid;
  proxy->reaper_ = std::thread([p = proxy.get()] {
    int status = 0;
    while (waitpid(p->pid_, &status, 0) < 0 && errno == EINTR) {
    }
    p->exit_status_ = status;
    p->exited_.Notify();
  });

  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (!Accepts(options.listen_host, options.listen_port)) {
    if (proxy->WaitForExit(absl::Now() + absl::Milliseconds(20))) {
      return absl::UnavailableError(absl::StrCat(
          "front proxy ", options.binary, " exited at start-up (status ",
          proxy->exit_status(), "): ", absl::StrJoin(args, " ")));
    }
    if (absl::Now() > give_up) {
      return absl::UnavailableError(
          absl::StrCat("front proxy did not listen on port ",
                       options.listen_port, " within 10 s"));
    }
  }
  if (options.connection_age_seconds > 0) {
    // nghttpx has no maximum connection age of its own; a reload (SIGHUP)
    // starts a new worker on the same listener and has the old one send
    // GOAWAY and finish, which is the same thing for every connection at
    // once.
    proxy->ager_ = std::thread([p = proxy.get()] {
      const absl::Duration age =
          absl::Seconds(p->options_.connection_age_seconds);
      while (!p->stop_ageing_.WaitForNotificationWithTimeout(age)) {
        if (p->Exited()) return;
        kill(p->pid_, SIGHUP);
        p->ages_.fetch_add(1);
      }
    });
  }
  return proxy;
}

void FrontProxy::BeginDrain() {
  StopAgeing();
  if (!Exited()) kill(pid_, SIGQUIT);
}

void FrontProxy::StopAgeing() {
  if (!stop_ageing_.HasBeenNotified()) stop_ageing_.Notify();
  if (ager_.joinable()) ager_.join();
}

void FrontProxy::Stop() {
  StopAgeing();
  if (!Exited()) {
    kill(pid_, SIGTERM);
    if (!WaitForExit(absl::Now() + absl::Seconds(2))) {
      kill(pid_, SIGKILL);
      exited_.WaitForNotification();
    }
  }
}

FrontProxy::~FrontProxy() {
  if (pid_ > 0) Stop();
  if (reaper_.joinable()) reaper_.join();
}

}  // namespace halma::service
