// halma_server: the Halma rules gRPC service.
//
// Signals: SIGTERM and SIGINT are blocked in every thread (the mask is set
// before gRPC starts any) and a dedicated thread takes them with sigwait, so
// nothing runs in a signal handler and the process also stops cleanly as
// PID 1 in a container, where default signal actions do not apply. The
// first signal starts a graceful shutdown (health NOT_SERVING, in-flight
// calls get the grace period) and the process exits 0; a second one during
// the grace period exits at once with status 1.
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "service/config/settings_flags.h"
#include "service/log/json_line.h"
#include "service/log/logger.h"
#include "service/server/server.h"
#include "service/server/startup_lines.h"

// jemalloc's settings, read at its start-up (MALLOC_CONF in the environment
// still overrides them): a background thread purges memory that has been
// free for a second, so RSS comes back down soon after a burst.
extern "C" {
// NOLINTNEXTLINE: the name is jemalloc's.
const char* malloc_conf =
    "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}

namespace {

// Every line on stderr is one JSON object (service/log): the server's own
// lines here, the access log and library messages through the same logger.
// Leaked on purpose: protobuf's log handler and the signal thread may use
// it until the process exits.
halma::service::Logger& TheLogger() {
  static auto* logger = new halma::service::Logger();
  return *logger;
}

sigset_t ShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// A no-op handler: the signals stay blocked and are taken by sigwait, but a
// handler other than SIG_DFL guarantees the kernel queues them even for
// PID 1 (blocked signals are queued anyway; this is belt and braces).
void IgnoreSignal(int) {}

// Waits for shutdown signals on its own thread until Stop().
class SignalWatcher {
 public:
  SignalWatcher() : thread_([this] { Run(); }) {}
  ~SignalWatcher() {
    stop_.store(true);
    thread_.join();
  }

  // Blocks until the first SIGTERM or SIGINT (returns its number) or until
  // `timeout` has passed (returns 0).
  int WaitForShutdownSignal(absl::Duration timeout) {
    if (!first_.WaitForNotificationWithTimeout(timeout)) return 0;
    return signal_.load();
  }

 private:
  void Run() {
    const sigset_t set = ShutdownSignals();
    int count = 0;
    while (!stop_.load()) {
      // A timed wait, so that the thread notices Stop().
      const timespec timeout = {0, 200 * 1000 * 1000};
      const int sig = sigtimedwait(&set, nullptr, &timeout);
      if (sig < 0) continue;  // EAGAIN (timeout) or EINTR.
      if (++count == 1) {
        signal_.store(sig);
        first_.Notify();
      } else {
        TheLogger().Error(
            "server.second_signal",
            {{"signal", strsignal(sig)},
             {"message",
              absl::StrCat("halma_server: second signal (", strsignal(sig),
                           ") during shutdown, exiting now")}});
        _exit(1);
      }
    }
  }

  std::atomic<bool> stop_{false};
  std::atomic<int> signal_{0};
  absl::Notification first_;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists: every thread created later inherits the mask.
  const sigset_t signals = ShutdownSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  struct sigaction action = {};
  action.sa_handler = IgnoreSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  // Debian's Abseil is built with its debug checks, so every absl::Mutex
  // lock and unlock (gRPC 1.51 locks them on every call) feeds the
  // deadlock detector's graph (GraphCycles::GetId alone 2-3 % of the
  // server's CPU on Health/Check); a release build of Abseil has it off.
  // The tests' in-process servers keep it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  halma::service::RouteProtobufLogsTo(&TheLogger());
  std::vector<char*> rest;
  absl::StatusOr<halma::service::Settings> settings =
      halma::service::ParseServerFlags(argc, argv, &rest);
  if (!settings.ok()) {
    TheLogger().Error("config.error",
                      {{"message", absl::StrCat("halma_server: ",
                                                settings.status().message())}});
    return 2;
  }
  if (!rest.empty()) {
    TheLogger().Error(
        "config.error",
        {{"message", absl::StrCat("halma_server: unexpected arguments: ",
                                  absl::StrJoin(rest, " "), " (see --help)")}});
    return 2;
  }
  halma::service::ServerConfig config;
  static_cast<halma::service::Settings&>(config) = *settings;
  config.logger = &TheLogger();
  TheLogger().set_access_log(config.access_log);

  SignalWatcher watcher;
  absl::StatusOr<std::unique_ptr<halma::service::HalmaServer>> server =
      halma::service::StartServer(config);
  if (!server.ok()) {
    TheLogger().Error("server.start_failed",
                      {{"message", absl::StrCat("halma_server: ",
                                                server.status().message())}});
    return 1;
  }
  // The start-up line: the human-readable summary (which tools and tests
  // read for the ports) and every setting as its own field.
  TheLogger().Write(halma::service::StartupLine((*server)->settings(),
                                                (*server)->startup_facts()));

  int sig = 0;
  while ((sig = watcher.WaitForShutdownSignal(absl::Milliseconds(200))) == 0) {
    // The front proxy is the port clients reach: without it the server is
    // useless, so it exits and lets its supervisor (Kubernetes) restart it.
    halma::service::FrontProxy* front = (*server)->front_proxy();
    if (front != nullptr && front->Exited()) {
      TheLogger().Error(
          "front_proxy.exited",
          {{"wait_status", front->exit_status()},
           {"message",
            absl::StrCat("halma_server: the front proxy exited (wait status ",
                         front->exit_status(), "), stopping")}});
      (*server)->Shutdown(absl::ZeroDuration());
      return 1;
    }
  }
  TheLogger().Info(
      "server.shutdown",
      {{"signal", strsignal(sig)},
       {"shutdown_delay_seconds", config.shutdown_delay_seconds},
       {"grace_period_seconds", config.grace_period_seconds},
       {"message",
        absl::StrCat("halma_server: ", strsignal(sig),
                     ", shutting down (NOT_SERVING for ",
                     config.shutdown_delay_seconds, "s, then grace period ",
                     config.grace_period_seconds, "s)")}});
  const absl::Time shutdown_started = absl::Now();
  (*server)->Shutdown();
  (*server)->Wait();
  TheLogger().FlushDropped();
  TheLogger().Info("server.stopped",
                   {{"shutdown_seconds",
                     absl::ToDoubleSeconds(absl::Now() - shutdown_started)},
                    {"message", "halma_server: stopped"}});
  return 0;
}
