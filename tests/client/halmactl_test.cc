// halmactl end to end against the built halma_server as a child process:
// its text and --json output and its exit codes, over plaintext and TLS.
#include <algorithm>

#include "tests/service/server/server_process.h"

namespace halma::process_testing {
namespace {

class HalmactlTest : public ProcessTest {
 protected:
  CommandResult Run(std::vector<std::string> args,
                    const std::string& stdin_path = "/dev/null") {
    args.insert(args.begin(), "--target=" + server_->target());
    return RunHalmactl(std::move(args), stdin_path);
  }
};

TEST_F(HalmactlTest, Variants) {
  CommandResult r = Run({"variants"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* name :
       {"brainking-8x8", "brainking-10x10", "iggamecenter-10x10",
        "classic-16x16", "classic-16x16-4p", kBrainkingStart}) {
    EXPECT_THAT(r.out, HasSubstr(name));
  }
  r = Run({"--json", "variants"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["variants"].size(), 5u);
  EXPECT_EQ(json["variants"][0]["name"], "brainking-8x8");
  EXPECT_EQ(json["variants"][0]["startPosition"], kBrainkingStart);
  EXPECT_EQ(json["variants"][0]["spec"]["homeExitLimit"], 30);
}

TEST_F(HalmactlTest, StartShowsTheBoard) {
  CommandResult r = Run({"start", "--variant=brainking-8x8"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(kBrainkingStart));
  EXPECT_THAT(r.out, HasSubstr("   8  . . . . b b b b\n"));
  EXPECT_THAT(r.out, HasSubstr("   1  w w w w . . . .\n"));
  EXPECT_THAT(r.out, HasSubstr("      a b c d e f g h\n"));
  EXPECT_THAT(r.out, HasSubstr("to move: w"));
  EXPECT_THAT(r.out, HasSubstr("Status: w to move"));
  EXPECT_THAT(r.out, HasSubstr("24 legal moves for w"));
  // The same variant given as a custom one.
  r = Run({"start", "--variant",
           "custom:N=8,seats=2,camp=4.3.2.1,home_exit=30,"
           "round_completion=false,target_lock=false,move_cap=0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(kBrainkingStart));
  // 16x16 boards have two-digit rank numbers.
  r = Run({"start", "--variant=classic-16x16-4p"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  16  r r r r . . . . . . . . b b b b\n"));
  EXPECT_THAT(r.out, HasSubstr("   1  w w w w . . . . . . . . g g g g\n"));
}

TEST_F(HalmactlTest, LegalJsonHas24MovesAtBrainkingStart) {
  CommandResult r = Run({"legal", "--variant=brainking-8x8", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["count"], 24);
  EXPECT_EQ(json["moves"].size(), 24u);
  EXPECT_EQ(json["position"], kBrainkingStart);
  EXPECT_EQ(json["status"]["state"], "STATE_IN_PROGRESS");
  EXPECT_EQ(json["status"]["toMove"], "SEAT_W");

  r = Run({"legal", "--variant=brainking-8x8", "--origin=b1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("for w from b1:"));
  EXPECT_THAT(r.out, HasSubstr("  b1:  jumps: b1-d3"));
}

TEST_F(HalmactlTest, ValidateExitCodes) {
  CommandResult r = Run({"validate", "--variant=brainking-8x8", "b1-d3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Legal move for w: b1-d3 (1 hop)"));
  EXPECT_THAT(r.out, HasSubstr("4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"));
  EXPECT_THAT(r.out, HasSubstr("Status: b to move"));

  r = Run({"validate", "--variant=brainking-8x8", "a1-b2"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("Illegal move a1-b2 for w: destination "
                               "occupied"));

  r = Run({"--json", "validate", "--variant=brainking-8x8",
           std::string("--position=") + kBrainkingStart, "a1-b2"});
  EXPECT_EQ(r.exit_code, 3);
  const nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["legal"], false);
  EXPECT_EQ(json["reason"], "ILLEGAL_REASON_DESTINATION_OCCUPIED");

  // Malformed: rejected by the server (INVALID_ARGUMENT), exit 1.
  r = Run({"validate", "--variant=brainking-8x8", "z9-a1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("INVALID_ARGUMENT"));
  // Usage errors: exit 2.
  EXPECT_EQ(Run({"validate", "--variant=brainking-8x8"}).exit_code, 2);
  EXPECT_EQ(Run({"validate", "b1-d3"}).exit_code, 2);
  EXPECT_EQ(Run({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(Run({"legal", "--variant=custom:N=8,camp=4.x"}).exit_code, 2);
  EXPECT_EQ(Run({"--help"}).exit_code, 0);
  EXPECT_EQ(Run({"validate", "--help"}).exit_code, 0);
}

TEST_F(HalmactlTest, AdjudicateFromFileAndStdin) {
  const std::vector<std::string> moves = Record68();
  ASSERT_EQ(moves.size(), 68u);
  const std::string path = TempPath("record.txt");
  // One move per line, with a comment and a line holding two moves.
  std::string text = "# brainking-8x8, b wins at ply 68\n";
  for (size_t i = 0; i < moves.size(); ++i) {
    absl::StrAppend(&text, moves[i], i % 10 == 3 ? " " : "\n");
  }
  WriteWholeFile(path, text);

  CommandResult r =
      Run({"adjudicate", "--variant=brainking-8x8", "--file=" + path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Moves played: 68 of 68"));
  EXPECT_THAT(r.out, HasSubstr("b wins (target filled) at ply 68"));

  r = Run({"--json", "adjudicate", "--variant=brainking-8x8", "--file", "-"},
          path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["movesPlayed"], 68);
  EXPECT_EQ(json["status"]["state"], "STATE_WIN");
  EXPECT_EQ(json["status"]["ply"], 68);
  EXPECT_EQ(json["status"]["winners"], nlohmann::json({"SEAT_B"}));

  // Moves as arguments; an illegal one is exit 3.
  r = Run({"adjudicate", "--variant=brainking-8x8", "b1-d3", "h7-f5", "a1-b2"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Illegal move at ply 3: a1-b2: destination "
                               "occupied"));
  EXPECT_THAT(r.out, HasSubstr("Moves played: 2 of 3"));

  EXPECT_EQ(Run({"adjudicate", "--variant=brainking-8x8",
                 "--file=/nonexistent/record.txt"})
                .exit_code,
            2);
  std::remove(path.c_str());
}

// suggest: the move of --json is one that `legal --json` lists, the text
// shows it with the candidates and the search, the same command answers
// the same, and errors name the field (exit 1) or the flag (exit 2).
TEST_F(HalmactlTest, SuggestTextAndJson) {
  const std::vector<std::string> ask = {
      "suggest",   "--variant=brainking-10x10",
      "--level=3", "--candidates=3",
      "--seed=4",  "b1-d3",
      "j9-h7"};
  std::vector<std::string> ask_json = ask;
  ask_json.push_back("--json");
  CommandResult r = Run(ask_json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json answer = nlohmann::json::parse(r.out);
  EXPECT_EQ(Run(ask_json).out, r.out);
  const std::string position = answer["position"];
  CommandResult legal = Run({"legal", "--variant=brainking-10x10",
                             "--position=" + position, "--json"});
  ASSERT_EQ(legal.exit_code, 0) << legal.err;
  const nlohmann::json moves = nlohmann::json::parse(legal.out)["moves"];
  ASSERT_EQ(answer["candidates"].size(), 3u);
  for (const nlohmann::json& candidate : answer["candidates"]) {
    EXPECT_NE(std::find(moves.begin(), moves.end(), candidate["move"]),
              moves.end())
        << candidate;
  }
  EXPECT_NE(std::find(moves.begin(), moves.end(), answer["move"]), moves.end());
  EXPECT_EQ(answer["level"], 3);

  r = Run(ask);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string path = answer["move"]["path"];
  EXPECT_THAT(r.out, HasSubstr("Position: " + position + "\n"));
  EXPECT_THAT(r.out, HasSubstr("Suggested move for w: " + path + "\n"));
  EXPECT_THAT(r.out, HasSubstr("Candidates:\n  1. "));
  EXPECT_THAT(r.out, HasSubstr("\n  3. "));
  EXPECT_THAT(r.out, HasSubstr("Line: w " + path));
  EXPECT_THAT(r.out, HasSubstr("Search: level 3, depth "));

  r = Run({"suggest", "--variant=brainking-10x10", "--level=9"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("INVALID_ARGUMENT: level: 9, expected 1 to 8"));
  r = Run({"suggest", "--variant=brainking-10x10", "--nodes=many"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--nodes"));
}

TEST_F(HalmactlTest, HealthAndTargetFromEnvironment) {
  CommandResult r = RunHalmactl({"health"}, "/dev/null",
                                {"HALMA_TARGET=" + server_->target()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("SERVING"));
  r = Run({"health", "--service=halma.v1.HalmaRules", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["status"], "SERVING");
}

TEST(HalmactlUnreachableTest, TransportErrorIsExitOne) {
  // Port 1 on loopback: nothing listens there in a test environment.
  CommandResult r =
      RunHalmactl({"--target=127.0.0.1:1", "--deadline_ms=5000", "variants"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("UNAVAILABLE"));
}

// TLS: a self-signed certificate made with the openssl tool.
TEST(HalmactlTlsTest, LegalOverTls) {
  if (!HaveOpenssl()) {
    GTEST_SKIP() << "no " << kOpenssl << " to make a test certificate";
  }
  const TestCertificate tls;
  CommandResult made = MakeTestCertificate(tls);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string& cert = tls.cert;
  const std::string& key = tls.key;
  auto server =
      ServerProcess::Start({"--tls_cert=" + cert, "--tls_key=" + key});
  ASSERT_NE(server, nullptr);
  CommandResult r;
  // Until it serves (the start-up line comes first).
  for (int attempt = 0; attempt < 100; ++attempt) {
    r = RunHalmactl({"--target=" + server->target(), "--ca_cert=" + cert,
                     "--tls_server_name=localhost", "--json", "legal",
                     "--variant=brainking-8x8"});
    if (r.exit_code == 0) break;
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["count"], 24);
  server->Signal(SIGTERM);
  EXPECT_EQ(server->WaitForExit(seconds(20)), 0) << server->StderrText();
  std::remove(cert.c_str());
  std::remove(key.c_str());
}

}  // namespace
}  // namespace halma::process_testing
