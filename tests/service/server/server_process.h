// The built halma_server as a child process on 127.0.0.1 with --port=0,
// for the process-level tests (tests/service/server/process_test.cc) and
// halmactl's (tests/client/halmactl_test.cc): starting and signalling it,
// a client library connection, the public record vectors, running a
// program with its output captured, and the fixture both tests share.
#ifndef HALMA_TESTS_SERVICE_SERVER_SERVER_PROCESS_H_
#define HALMA_TESTS_SERVICE_SERVER_SERVER_PROCESS_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma_client.h"
#include "nlohmann/json.hpp"
#include "tests/testdata.h"

extern char** environ;

namespace halma::process_testing {

namespace v1 = ::halma::v1;
using ::halma::client::ClientOptions;
using ::halma::client::HalmaClient;
using ::halma::client::HealthStatus;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

inline constexpr char kServerBinary[] = HALMA_SERVER_BINARY;
inline constexpr char kHalmactlBinary[] = HALMACTL_BINARY;
inline constexpr char kBrainkingStart[] =
    "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";
inline constexpr char kListeningPrefix[] = "halma_server listening on ";

inline std::string TempPath(const std::string& name) {
  static std::atomic<int> counter{0};
  return absl::StrCat(::testing::TempDir(), "/halma_process_test_", getpid(),
                      "_", counter++, "_", name);
}

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void WriteWholeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// An exit status as a number: the exit code, or 128 + signal.
inline int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

inline std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// halma_server as a child process, its stderr read by a thread.
class ServerProcess {
 public:
  // Starts the server on 127.0.0.1:0 with `flags` and waits for its
  // "listening" line. Fails the test (returns nullptr) otherwise.
  static std::unique_ptr<ServerProcess> Start(
      std::vector<std::string> flags = {}) {
    auto server = std::unique_ptr<ServerProcess>(new ServerProcess());
    std::vector<std::string> args = {kServerBinary, "--host=127.0.0.1",
                                     "--port=0", "--http_port=0"};
    args.insert(args.end(), flags.begin(), flags.end());
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2 failed";
      return nullptr;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    std::vector<char*> argv = Argv(args);
    const int rc = posix_spawn(&server->pid_, kServerBinary, &actions, nullptr,
                               argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
      close(fds[0]);
      ADD_FAILURE() << "cannot start " << kServerBinary << ": " << strerror(rc);
      return nullptr;
    }
    server->running_ = true;
    server->reader_ =
        std::thread([s = server.get(), fd = fds[0]] { s->ReadStderr(fd); });
    if (!server->WaitForPort(seconds(30))) {
      ADD_FAILURE() << "halma_server did not report its port; stderr:\n"
                    << server->StderrText();
      return nullptr;
    }
    return server;
  }

  ~ServerProcess() {
    if (running_) {
      kill(pid_, SIGKILL);
      int status;
      waitpid(pid_, &status, 0);
    }
    if (reader_.joinable()) reader_.join();
  }

  int port() const { return port_; }
  // The HTTP listener's port (0 when it is off).
  int http_port() const { return http_port_; }

  // The value of one series of GET /metrics, written as the exposition
  // writes it ("halma_rpc_calls_in_flight{method=\"...\",protocol=\"grpc\"}"),
  // or -1 when it is not there.
  double Metric(const std::string& series) const {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(http_port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string page;
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
      const std::string request =
          "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          "Connection: close\r\n\r\n";
      if (send(fd, request.data(), request.size(), 0) ==
          static_cast<ssize_t>(request.size())) {
        char buffer[8192];
        ssize_t n;
        while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) {
          page.append(buffer, n);
        }
      }
    }
    close(fd);
    const std::size_t at = page.find("\n" + series + " ");
    if (at == std::string::npos) return -1;
    double value = -1;
    absl::SimpleAtod(
        page.substr(at + series.size() + 2,
                    page.find('\n', at + 1) - (at + series.size() + 2)),
        &value);
    return value;
  }
  std::string target() const { return absl::StrCat("127.0.0.1:", port_); }

  void Signal(int sig) { kill(pid_, sig); }

  // The exit status (see DecodeWaitStatus) once the process has exited, or
  // nullopt if it still runs after `timeout`.
  std::optional<int> WaitForExit(milliseconds timeout) {
    const auto end = Clock::now() + timeout;
    while (running_) {
      int status;
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        running_ = false;
        exit_status_ = DecodeWaitStatus(status);
        break;
      }
      if (Clock::now() >= end) return std::nullopt;
      std::this_thread::sleep_for(milliseconds(5));
    }
    if (reader_.joinable()) reader_.join();
    return exit_status_;
  }

  std::string StderrText() {
    std::lock_guard<std::mutex> lock(mu_);
    return stderr_;
  }

 private:
  ServerProcess() = default;

  void ReadStderr(int fd) {
    char buffer[4096];
    for (;;) {
      const ssize_t n = read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      std::lock_guard<std::mutex> lock(mu_);
      if (n <= 0) {
        eof_ = true;
        cv_.notify_all();
        break;
      }
      stderr_.append(buffer, n);
      cv_.notify_all();
    }
    close(fd);
  }

  bool WaitForPort(milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return eof_ || ParsePortLocked(); });
    return port_ > 0;
  }

  // "halma_server listening on 127.0.0.1:41234 (...)" -> 41234.
  bool ParsePortLocked() {
    const size_t start = stderr_.find(kListeningPrefix);
    if (start == std::string::npos) return false;
    const size_t end =
        stderr_.find_first_of(" \n", start + sizeof(kListeningPrefix) - 1);
    if (end == std::string::npos) return false;
    const std::string address =
        stderr_.substr(start + sizeof(kListeningPrefix) - 1,
                       end - (start + sizeof(kListeningPrefix) - 1));
    const size_t colon = address.rfind(':');
    int port = 0;
    if (colon == std::string::npos ||
        !absl::SimpleAtoi(address.substr(colon + 1), &port) || port <= 0) {
      return false;
    }
    port_ = port;
    // "...; http 127.0.0.1:41235 (Connect protocol); ..." -> 41235.
    const std::string http_prefix = "; http 127.0.0.1:";
    const size_t http = stderr_.find(http_prefix, start);
    if (http != std::string::npos) {
      const size_t digits = http + http_prefix.size();
      absl::SimpleAtoi(
          stderr_.substr(digits, stderr_.find(' ', digits) - digits),
          &http_port_);
    }
    return true;
  }

  pid_t pid_ = -1;
  bool running_ = false;
  std::optional<int> exit_status_;
  int port_ = 0;
  int http_port_ = 0;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string stderr_;
  bool eof_ = false;
};

inline std::unique_ptr<HalmaClient> MakeClient(
    const std::string& target, milliseconds deadline = seconds(20)) {
  ClientOptions options;
  options.target = target;
  options.deadline = deadline;
  absl::StatusOr<std::unique_ptr<HalmaClient>> client =
      HalmaClient::Create(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

// Polls the health service until it answers SERVING.
inline bool WaitUntilServing(HalmaClient& client, milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    absl::StatusOr<HealthStatus> status = client.CheckHealth("");
    if (status.ok() && *status == HealthStatus::kServing) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

inline v1::Variant Preset(const std::string& name) {
  v1::Variant variant;
  variant.set_preset(name);
  return variant;
}

// ---------------------------------------------------------------------------
// The public vectors (testdata/vectors/records.jsonl).

struct RecordVector {
  nlohmann::json json;
  v1::AdjudicateRequest request;
};

inline std::vector<RecordVector> LoadRecordVectors() {
  std::vector<RecordVector> vectors;
  for (const nlohmann::json& line :
       halma::testdata::ReadJsonLines("vectors/records.jsonl")) {
    RecordVector v;
    v.json = line;
    const nlohmann::json& variant = v.json["variant"];
    if (variant.is_string()) {
      v.request.mutable_variant()->set_preset(variant.get<std::string>());
    } else {
      v1::VariantSpec* spec = v.request.mutable_variant()->mutable_custom();
      spec->set_board_size(variant["n"].get<int>());
      spec->set_seat_count(variant["seats"].get<int>());
      for (int row : variant["camp"]) spec->add_camp_rows(row);
      spec->set_home_exit_limit(variant["home_exit"].get<int>());
      spec->set_round_completion(variant["round_completion"].get<bool>());
      spec->set_target_lock(variant["target_lock"].get<bool>());
      spec->set_move_cap(variant["move_cap"].get<int>());
    }
    if (v.json.contains("from")) {
      v.request.set_start_position(v.json["from"].get<std::string>());
    }
    for (const auto& move : v.json["moves"]) {
      v.request.add_moves(move.get<std::string>());
    }
    vectors.push_back(std::move(v));
  }
  return vectors;
}

inline v1::Seat SeatFromLetter(const std::string& letter) {
  if (letter == "w") return v1::SEAT_W;
  if (letter == "r") return v1::SEAT_R;
  if (letter == "b") return v1::SEAT_B;
  if (letter == "g") return v1::SEAT_G;
  return v1::SEAT_UNSPECIFIED;
}

inline v1::DecidingRule RuleFromLabel(const std::string& label) {
  if (label == "target-filled") return v1::DECIDING_RULE_TARGET_FILLED;
  if (label == "home-exit") return v1::DECIDING_RULE_HOME_EXIT;
  if (label == "move-cap") return v1::DECIDING_RULE_MOVE_CAP;
  if (label == "all-passed") return v1::DECIDING_RULE_EVERYONE_STUCK;
  return v1::DECIDING_RULE_UNSPECIFIED;
}

// "destination-occupied" -> ILLEGAL_REASON_DESTINATION_OCCUPIED.
inline v1::IllegalReason ReasonFromLabel(std::string label) {
  std::transform(label.begin(), label.end(), label.begin(), [](char c) {
    return c == '-' ? '_' : static_cast<char>(std::toupper(c));
  });
  v1::IllegalReason reason = v1::ILLEGAL_REASON_UNSPECIFIED;
  v1::IllegalReason_Parse("ILLEGAL_REASON_" + label, &reason);
  return reason;
}

inline void ExpectStatusMatches(const nlohmann::json& expect,
                                const v1::GameStatus& status,
                                const std::string& where) {
  const std::string state = expect["status"].get<std::string>();
  if (state == "in_progress") {
    EXPECT_EQ(status.state(), v1::GameStatus::STATE_IN_PROGRESS) << where;
    if (expect.contains("to_move")) {
      EXPECT_EQ(status.to_move(),
                SeatFromLetter(expect["to_move"].get<std::string>()))
          << where;
    }
    if (expect.contains("rc_turn")) {
      EXPECT_EQ(status.round_completion_turn(), expect["rc_turn"].get<bool>())
          << where;
    }
    return;
  }
  EXPECT_EQ(status.state(), state == "win" ? v1::GameStatus::STATE_WIN
                                           : v1::GameStatus::STATE_DRAW)
      << where;
  std::vector<int> winners;
  for (const auto& w : expect["winners"]) {
    winners.push_back(SeatFromLetter(w.get<std::string>()));
  }
  EXPECT_EQ(std::vector<int>(status.winners().begin(), status.winners().end()),
            winners)
      << where;
  EXPECT_EQ(status.rule(), RuleFromLabel(expect["rule"].get<std::string>()))
      << where;
  EXPECT_EQ(status.ply(), expect["ply"].get<int>()) << where;
}

// The 68-ply brainking-8x8 game that b wins (the first record vector).
inline std::vector<std::string> Record68() {
  for (const RecordVector& v : LoadRecordVectors()) {
    if (v.request.moves_size() == 68 &&
        v.request.variant().preset() == "brainking-8x8") {
      return {v.request.moves().begin(), v.request.moves().end()};
    }
  }
  ADD_FAILURE() << "no 68-move brainking-8x8 record in the vectors";
  return {};
}

// ---------------------------------------------------------------------------
// Running a program.

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `program` with `args`; stdin from `stdin_path`; `env` entries
// ("NAME=value") are added to the environment, less HALMA_TARGET.
inline CommandResult RunProgram(const std::string& program,
                                std::vector<std::string> args,
                                const std::string& stdin_path = "/dev/null",
                                const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), program);
  const std::string out_path = TempPath("stdout");
  const std::string err_path = TempPath("stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY,
                                   0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!absl::StartsWith(*e, "HALMA_TARGET=")) environment.push_back(*e);
  }
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> argv = Argv(args);
  std::vector<char*> envp = Argv(environment);
  pid_t pid;
  CommandResult result;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr,
                             argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot run " << program << ": " << strerror(rc);
    return result;
  }
  int status;
  waitpid(pid, &status, 0);
  result.exit_code = DecodeWaitStatus(status);
  result.out = ReadWholeFile(out_path);
  result.err = ReadWholeFile(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return result;
}

inline CommandResult RunHalmactl(std::vector<std::string> args,
                                 const std::string& stdin_path = "/dev/null",
                                 const std::vector<std::string>& env = {}) {
  return RunProgram(kHalmactlBinary, std::move(args), stdin_path, env);
}

// A self-signed certificate for localhost, made with the openssl tool into
// two temporary files, for the TLS tests.
inline constexpr char kOpenssl[] = "/usr/bin/openssl";
inline bool HaveOpenssl() { return access(kOpenssl, X_OK) == 0; }
struct TestCertificate {
  std::string cert = TempPath("cert.pem");
  std::string key = TempPath("key.pem");
};
inline CommandResult MakeTestCertificate(const TestCertificate& files) {
  return RunProgram(
      kOpenssl, {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                 files.key, "-out", files.cert, "-days", "2", "-subj",
                 "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"});
}

// A test with the built server started, serving and connected: the
// fixture of process_test.cc and halmactl_test.cc. The server is stopped
// by SIGTERM after the test, which must see it exit with 0.
class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = ServerProcess::Start();
    ASSERT_NE(server_, nullptr);
    client_ = MakeClient(server_->target());
    ASSERT_NE(client_, nullptr);
    ASSERT_TRUE(WaitUntilServing(*client_, seconds(20)));
  }
  void TearDown() override {
    if (server_ == nullptr) return;
    server_->Signal(SIGTERM);
    EXPECT_EQ(server_->WaitForExit(seconds(20)), 0) << server_->StderrText();
  }

  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<HalmaClient> client_;
};

}  // namespace halma::process_testing

#endif  // HALMA_TESTS_SERVICE_SERVER_SERVER_PROCESS_H_
