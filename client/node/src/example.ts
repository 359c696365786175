// A worked example: plays a short game of brainking-8x8 against a
// halma-rules server and prints every answer, then counts the sequences of
// two plies (perft), asks for a move after b1-d3 (SuggestMove, level 4, three
// ranked candidates) and adjudicates three records on one AdjudicateStream call.
//
// Usage: node dist/example.js HOST:PORT [--ca CA.pem]
//   --ca: connect with TLS, trusting this PEM CA certificate.

import {
  GameStatus,
  GameStatus_State,
  HalmaClient,
  HalmaError,
  decidingRuleToJSON,
  healthCheckResponse_ServingStatusToJSON,
  illegalReasonToJSON,
  seatToJSON,
  StreamRecord,
} from "./index";

const VARIANT = { preset: "brainking-8x8" };
const PLIES = 6;

function seat(s: number): string {
  return seatToJSON(s).replace("SEAT_", "").toLowerCase();
}

function describe(status: GameStatus | undefined): string {
  if (status === undefined) {
    return "(no status)";
  }
  switch (status.state) {
    case GameStatus_State.STATE_IN_PROGRESS:
      return `${seat(status.toMove)} to move${status.mustPass ? " (must pass)" : ""}`;
    case GameStatus_State.STATE_WIN:
      return `${seat(status.winners[0])} wins (${decidingRuleToJSON(status.rule)}) at ply ${status.ply}`;
    case GameStatus_State.STATE_DRAW:
      return `draw between ${status.winners.map(seat).join(", ")} (${decidingRuleToJSON(status.rule)})`;
    default:
      return "unknown state";
  }
}

async function main(argv: string[]): Promise<number> {
  const args = argv.slice(2);
  const caIndex = args.indexOf("--ca");
  let caFile: string | undefined;
  if (caIndex >= 0) {
    caFile = args[caIndex + 1];
    args.splice(caIndex, 2);
  }
  if (args.length !== 1 || (caIndex >= 0 && caFile === undefined)) {
    console.error("usage: node dist/example.js HOST:PORT [--ca CA.pem]");
    return 2;
  }
  const client = new HalmaClient(args[0], {
    tls: caFile === undefined ? false : { caFile },
    defaultDeadlineMs: 5000,
  });
  try {
    const health = await client.checkHealth("halma.v1.HalmaRules");
    console.log(`health: ${healthCheckResponse_ServingStatusToJSON(health.status)}`);

    const { variants } = await client.listVariants();
    console.log(`variants (${variants.length}):`);
    for (const v of variants) {
      console.log(`  ${v.name}: ${v.spec?.boardSize}x${v.spec?.boardSize}, ${v.piecesPerSeat} pieces per seat, from ${v.source}`);
    }

    const fromA3 = await client.legalMoves({ variant: VARIANT, origin: "a3" });
    console.log(`legal moves from a3: ${fromA3.moves.map((m) => `${m.path} (${m.hops} hops)`).join(", ")}`);

    const good = await client.validateMove({ variant: VARIANT, move: "b1-d3" });
    console.log(`validate b1-d3: legal=${good.legal}, position after: ${good.positionAfter}`);
    const bad = await client.validateMove({ variant: VARIANT, move: "a1-b2" });
    console.log(`validate a1-b2: legal=${bad.legal}, ${illegalReasonToJSON(bad.reason)}: ${bad.message}`);

    // Play a few plies: each side takes its move with the most hops (the
    // first such one in the server's order), checked before it is played.
    const record: string[] = [];
    let position = "";
    for (let ply = 1; ply <= PLIES; ply++) {
      const legal = await client.legalMoves({ variant: VARIANT, position });
      if (legal.moves.length === 0) {
        console.log(`ply ${ply}: no moves, ${describe(legal.status)}`);
        break;
      }
      const best = legal.moves.reduce((a, b) => (b.hops > a.hops ? b : a));
      const checked = await client.validateMove({ variant: VARIANT, position, move: best.path });
      console.log(`ply ${ply}: ${seat(checked.mover)} plays ${checked.path} (of ${legal.count} legal moves)`);
      record.push(checked.path);
      position = checked.positionAfter;
    }

    const result = await client.adjudicate({ variant: VARIANT, moves: [...record, "a1-b2"] });
    console.log(`adjudicate ${[...record, "a1-b2"].join(" ")}:`);
    console.log(`  moves played: ${result.movesPlayed}, final position: ${result.finalPosition}`);
    console.log(`  move counts: ${result.moveCounts.map((c) => `${seat(c.seat)} ${c.moves}`).join(", ")}`);
    console.log(`  status: ${describe(result.status)}`);
    if (result.illegalMove) {
      const im = result.illegalMove;
      console.log(`  illegal move at ply ${im.ply}: ${im.move}: ${illegalReasonToJSON(im.reason)}: ${im.message}`);
    }

    const counts = await client.perft({ variant: VARIANT, depth: 2, splitByFirstMove: true });
    const first = counts.firstMoves[0];
    console.log(`perft depth 2 from the start: ${counts.nodes} sequences, ${counts.firstMoves.length} first moves (${first.move}: ${first.nodes})`);

    const hint = await client.suggestMove({ variant: VARIANT, moves: ["b1-d3"], level: 3, seed: 7n, candidates: 3 });
    console.log(`suggest after b1-d3 (level 4, seed 7): ${seat(hint.mover)} plays ${hint.move?.path}; best ${hint.candidates.length}: ${hint.candidates.map((c) => c.move?.path).join(", ")}`);

    console.log("adjudicateStream, three records on one call:");
    const records: StreamRecord[] = [
      ["played", { variant: VARIANT, moves: record }],
      ["bad", { variant: VARIANT, moves: [...record, "a1-b2"] }],
      ["malformed", { variant: VARIANT, moves: ["b1-z9"] }],
    ];
    for await (const each of client.adjudicateStream(records)) {
      if (each.error) {
        console.log(`  ${each.id}: error ${each.error.codeName}: ${each.error.message}`);
      } else if (each.response) {
        const im = each.response.illegalMove;
        console.log(`  ${each.id}: ${each.response.movesPlayed} moves played, ${im ? `illegal move at ply ${im.ply}` : describe(each.response.status)}`);
      }
    }

    try {
      await client.legalMoves({ variant: { preset: "brainking-9x9" } });
    } catch (e) {
      if (!(e instanceof HalmaError)) throw e;
      console.log(`an unknown preset: ${e.codeName}: ${e.details}`);
    }
    return 0;
  } catch (e) {
    console.error(e instanceof HalmaError ? `error: ${e.message}` : e);
    return 1;
  } finally {
    client.close();
  }
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
