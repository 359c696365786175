// halmactl: a command-line client of the halma.v1.HalmaRules service.
//
//   halmactl [global flags] COMMAND [flags] [args]
//
// Run `halmactl --help` or `halmactl help COMMAND` for the details. This
// file holds the help texts and the dispatch table; each subcommand is in
// its own file (common.h declares them).

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common.h"
#include "halma_client.h"

namespace halma::halmactl {

const char kMainUsage[] =
    R"(halmactl: a command-line client of the Halma rules service (halma.v1).

Usage: halmactl [global flags] COMMAND [flags] [arguments]

Commands:
  variants     list the named variants and their parameters
  start        show a variant's start position, board and status
  legal        list the legal moves of a position, grouped by origin
  validate     check one move of the side to move
  adjudicate   replay a game record and report the result (--batch: many)
  perft        count the move sequences of a depth from a position
  suggest      suggest a move (the computer's), with ranked hints
  health       ask the server's health service whether it is serving
  conformance  run the conformance suite against a server (gRPC or HTTP/JSON)
  help         show this text, or `help COMMAND` for one command

Global flags (before or after the command):
  --target=HOST:PORT  the server (default: $HALMA_TARGET, else localhost:50051)
  --tls               use TLS (the system's root certificates unless --ca_cert)
  --ca_cert=FILE      trust the PEM root certificates in FILE (implies --tls)
  --tls_server_name=NAME
                      expect this name in the server certificate
  --deadline_ms=MS    per-call deadline in milliseconds (default 10000; 0 = none)
  --json              print the service's response as JSON (proto3 JSON
                      mapping, every field shown) instead of text
  -h, --help          show help

Variants (--variant): a preset name from `halmactl variants`, e.g.
  brainking-8x8, brainking-10x10, iggamecenter-10x10, classic-16x16,
  classic-16x16-4p; or a custom variant:
    custom:N=8,seats=2,camp=4.3.2.1,home_exit=0,round_completion=false,target_lock=false,move_cap=0
  N and camp are required; camp rows are separated by '.'; the others
  default to seats=2, home_exit=0, round_completion=false,
  target_lock=false, move_cap=0. Booleans: true/false, on/off, yes/no, 1/0.

Notation: squares "a1".."p16"; moves "b2-c3" (step), "c3-e5-g7" (hops),
"c3-g7" (any jump chain), "pass"; positions
"4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0" (board ranks N..1, side to move,
moves made per seat).

Exit codes:
  0  success
  1  RPC or transport error (server unreachable, deadline exceeded, or the
     server rejected the request, e.g. INVALID_ARGUMENT for a malformed
     position, move or variant)
  2  usage error (bad command line, unreadable file)
  3  a negative answer: `validate` found the move illegal, `adjudicate` found
     an illegal move in the record (--batch: a record illegal or malformed),
     `health` found the server not serving, `conformance` found a case
     that failed
)";

namespace {

constexpr char kVariantsUsage[] = R"(Usage: halmactl variants

Lists the named variants with their board size, seats, camp rows, rules and
start positions. With --json: the ListVariantsResponse.
)";

constexpr char kStartUsage[] = R"(Usage: halmactl start --variant=V

Shows the start position of variant V (a preset or custom:...), its board,
its status and the number of legal moves. With --json: the
LegalMovesResponse for the start position.
)";

constexpr char kLegalUsage[] =
    R"(Usage: halmactl legal --variant=V [--position=P] [--origin=SQ]

Lists every legal move of the side to move in position P (default: the
variant's start), grouped by origin: steps as their destination, jumps as
their fewest-hop path. --origin limits the list to the piece on SQ.
With --json: the LegalMovesResponse.
)";

constexpr char kValidateUsage[] =
    R"(Usage: halmactl validate --variant=V [--position=P] MOVE

Checks MOVE ("b2-c3", "c3-e5-g7", "c3-g7" or "pass") for the side to move in
position P (default: the variant's start). A legal move prints its
normalised path, the position after it, the board and the status; an
illegal one prints why.
Exit code: 0 when the move is legal, 3 when it is illegal, 1 when the
request was rejected (malformed move, position or variant) or failed.
With --json: the ValidateMoveResponse.
)";

constexpr char kAdjudicateUsage[] =
    R"(Usage: halmactl adjudicate --variant=V [--position=P] MOVE...
       halmactl adjudicate --variant=V [--position=P] --file=F
       halmactl adjudicate --record=F [--text-out]
       halmactl adjudicate --batch=F [--text-out] [--streams=N] [--window=W]
                           [--retries=R]

Replays a game record from position P (default: the variant's start) and
reports the result: who won or drew, by which rule and at which ply, or the
game still in progress, and the first illegal move if there is one. The
moves are the arguments, or are read from file F (whitespace-separated, one
or more per line, '#' starts a comment; F = "-" reads standard input).
Exit code: 0 when every move was legal, 3 when the record has an illegal
move, 1 when the request was rejected or failed.
With --json: the AdjudicateResponse.

--record=F reads one record in the record text format (docs/record-format.md;
its tags give the variant and the start) and also prints the result token
and, when the record states one, whether it agrees. --text-out prints the
record in canonical text form with the adjudicated result token instead.

--batch=F adjudicates every record of F ("-" = standard input) over
AdjudicateStream calls: --streams streams (default 8) on one channel with
round_robin load balancing, so a target that names several servers
(dns:///headless-service:50051, ipv4:10.0.0.1:50051,10.0.0.2:50051) spreads
the records over all of them; at most --window records (default 32) in
flight on each. F holds JSON lines or records in the text format (told
apart by the first character that is not white space: '{' for JSON). A JSON
line is an AdjudicateStreamRequest ({"id": "g1", "record": {...}}) or an
AdjudicateRequest ({"variant": {...}, "moves": [...]}, or
{"recordText": "..."}), in the proto3 JSON mapping; blank lines are
skipped. A record's id is its own, else its line number (JSON) or its
number in the file (text, from 1).
Output, in input order, one JSON line per record:
  {"id":"1","result":{...AdjudicateResponse...}}
  {"id":"2","error":{"code":"INVALID_ARGUMENT","message":"..."}}
or, with --text-out, each adjudicated record in canonical text form with its
result token (errors then go to stderr only). A stream that fails
(UNAVAILABLE when a server shuts down) or leaves a record unanswered for
--deadline_ms has its unanswered records sent again on another stream, each
record at most --retries more times (default 5). --deadline_ms also bounds
the wait for the first connection.
On a terminal, stderr shows a progress line; at the end a summary.
Exit code: 0 when every record was adjudicated and legal, 3 when any record
is illegal or malformed, 1 when any record could not be adjudicated for
another reason (server unreachable, retries exhausted).
)";

constexpr char kPerftUsage[] =
    R"(Usage: halmactl perft --variant=V [--position=P] --depth=D [--split]

Counts the distinct move sequences of D plies from position P (default: the
variant's start): depth 0 counts 1, depth 1 the legal moves (a seat that
must pass has one move, "pass"; a finished game none). --split also lists
each first move ("origin-destination" or "pass") with its count, in the
order `legal` lists them. The server bounds the depth and the time; raise
--deadline_ms for deep counts. With --json: the PerftResponse.
)";

constexpr char kSuggestUsage[] =
    R"(Usage: halmactl suggest --variant=V [--position=P] [MOVE...]
                        [--level=L | --nodes=N [--depth=D]] [--time_ms=T]
                        [--seed=S] [--candidates=K] [--best_so_far]

Suggests a move for the side to move of position P (default: the variant's
start), or of the position after the MOVEs played from it: the move, its
score, the best K moves (--candidates, 1 to 16; default 1) with theirs, the
line of play expected, the turns each seat still needs, and the search's
depth and nodes. The search is a level (--level, 1 to 8; default 7) or an
explicit budget (--nodes, optionally --depth plies); either answers the same
on every server and run for the same --seed (default 0). --time_ms also
stops the search after T milliseconds (not reproducible). --best_so_far:
when --deadline_ms or the server's limit ends the search, print the best
move found so far instead of failing. Scores: "+1.48 turns ahead" (an
estimate), or a forced "win in N moves", "loss in N moves", "draw in N
moves" (N counts the mover's own moves). With --json: the
SuggestMoveResponse.
)";

constexpr char kHealthUsage[] = R"(Usage: halmactl health [--service=NAME]

Calls the standard grpc.health.v1.Health/Check for NAME (default "": the
whole server; "halma.v1.HalmaRules": the rules service) and prints the
serving status. Exit code: 0 when SERVING, 3 otherwise, 1 on RPC errors.
With --json: {"service": NAME, "status": "SERVING"}.
)";

constexpr char kConformanceUsage[] =
    R"(Usage: halmactl conformance --target=HOST:PORT [--suite=DIR]
                            [--protocol=grpc|connect] [--filter=TERMS] [--json]

Runs the conformance suite (docs/conformance.md) against the server at
--target, one case after another, and reports which cases pass: a summary
per RPC and per area, then the first failures with the request, the
expected and the received answer and their differences. It uses nothing
but the halma.v1 API, so it checks any implementation of it.

--suite=DIR      the suite: every *.jsonl file of DIR (default
                 /usr/share/halma/conformance, where the container image
                 has it; in a checkout: conformance/suite)
--protocol=grpc  gRPC (default): --target is the gRPC port, and --tls,
                 --ca_cert, --tls_server_name apply as for every command
--protocol=connect
                 the Connect protocol's HTTP/JSON: POST /halma.v1.HalmaRules/
                 <Method> with JSON bodies; --target is the HTTP port
                 (halma_server's --http_port, 8080 by default), https with
                 --tls
--filter=TERMS   only some cases: comma-separated rpc:NAME (LegalMoves or
                 halma.v1.HalmaRules/LegalMoves), area:NAME, id:PREFIX or a
                 part of an id; a leading '-' excludes, e.g.
                 --filter=-area:limits skips the cases that assume the
                 server's default limits
--json           print one JSON object: the counts, per RPC and area, and
                 every failure with its request, expectation, answer and
                 differences
--deadline_ms    bounds each call (default 10000)

Exit code: 0 when every case passed, 3 when a case failed, 1 when the
server could not be reached, 2 for a usage error or an unreadable suite.
)";

constexpr char kHelpUsage[] = R"(Usage: halmactl help [COMMAND]
)";

int Run(int argc, char** argv) {
  absl::StatusOr<CommandLine> parsed = ParseCommandLine(argc, argv);
  if (!parsed.ok()) return UsageFailure("", parsed.status().message());
  CommandLine& cl = *parsed;

  if (cl.help || cl.command.empty()) {
    if (!cl.command.empty()) {
      const Command* command = FindCommand(cl.command);
      if (command == nullptr) {
        return UsageFailure("",
                            absl::StrCat("unknown command '", cl.command, "'"));
      }
      std::cout << command->usage;
      return kExitOk;
    }
    if (!cl.help) {  // No command: the usage on stderr, exit 2.
      std::cerr << kMainUsage;
      return kExitUsage;
    }
    std::cout << kMainUsage;
    return kExitOk;
  }
  const Command* command = FindCommand(cl.command);
  if (command == nullptr || command->run == nullptr) {
    return UsageFailure("", absl::StrCat("unknown command '", cl.command, "'"));
  }
  if (command->needs_variant && !cl.variant) {
    return UsageFailure(
        cl.command,
        absl::StrCat(cl.command,
                     " needs --variant (a preset such as brainking-8x8, see "
                     "'halmactl variants', or custom:N=...,camp=...)"));
  }
  if (!command->takes_args && !cl.args.empty()) {
    return UsageFailure(cl.command,
                        absl::StrCat("unexpected argument '", cl.args[0], "'"));
  }

  client::ClientOptions options;
  options.target = cl.target;
  options.tls = cl.tls || !cl.ca_cert.empty() || !cl.tls_server_name.empty();
  options.root_cert_file = cl.ca_cert;
  options.tls_server_name = cl.tls_server_name;
  options.deadline = std::chrono::milliseconds(cl.deadline_ms);
  // Batches spread their streams over every address of the target.
  if (cl.batch) options.service_config_json = client::kRoundRobinServiceConfig;
  absl::StatusOr<std::unique_ptr<client::HalmaClient>> client =
      client::HalmaClient::Create(options);
  if (!client.ok()) return UsageFailure("", client.status().message());
  return command->run(cl, **client);
}

}  // namespace

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"variants", kVariantsUsage, false, false, CmdVariants},
      {"start", kStartUsage, true, false, CmdStart},
      {"legal", kLegalUsage, true, false, CmdLegal},
      {"validate", kValidateUsage, true, true, CmdValidate},
      // --variant is checked by the command: --record and --batch need none.
      {"adjudicate", kAdjudicateUsage, false, true, CmdAdjudicate},
      {"perft", kPerftUsage, true, false, CmdPerft},
      {"suggest", kSuggestUsage, true, true, CmdSuggest},
      {"health", kHealthUsage, false, false, CmdHealth},
      {"conformance", kConformanceUsage, false, false, CmdConformance},
      {"help", kHelpUsage, false, false, nullptr},
  };
  return *commands;
}

const Command* FindCommand(absl::string_view name) {
  for (const Command& command : Commands()) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

}  // namespace halma::halmactl

int main(int argc, char** argv) { return halma::halmactl::Run(argc, argv); }
