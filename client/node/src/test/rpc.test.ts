// Every RPC against the real server: answers field by field, an illegal
// move, INVALID_ARGUMENT with its message and no retry.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  DecidingRule,
  DeepPartial,
  GameStatus_State,
  HalmaClient,
  HalmaError,
  HealthCheckResponse_ServingStatus,
  IllegalReason,
  RetryEvent,
  Seat,
  status,
  Variant,
} from "../index";
import { ServerProcess } from "./server";

const START_8X8 = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";
const BRAINKING = { preset: "brainking-8x8" };

describe("HalmaClient against halma_server", () => {
  let server: ServerProcess;
  let client: HalmaClient;
  const retries: RetryEvent[] = [];

  before(async () => {
    server = await ServerProcess.start();
    client = new HalmaClient(server.target, { onRetry: (e) => retries.push(e) });
  });

  after(async () => {
    client?.close();
    assert.equal(await server?.stop(), 0);
  });

  test("checkHealth: the server and the rules service are SERVING", async () => {
    assert.deepEqual(await client.checkHealth(), { status: HealthCheckResponse_ServingStatus.SERVING });
    const rules = await client.checkHealth("halma.v1.HalmaRules");
    assert.equal(rules.status, HealthCheckResponse_ServingStatus.SERVING);
  });

  test("checkHealth of an unknown service is NOT_FOUND", async () => {
    await assert.rejects(client.checkHealth("no.such.Service"), (e: unknown) => {
      assert.ok(e instanceof HalmaError);
      assert.equal(e.code, status.NOT_FOUND);
      assert.equal(e.attempts, 1);
      return true;
    });
  });

  test("listVariants: the five presets in order, brainking-8x8 in full", async () => {
    const { variants } = await client.listVariants();
    assert.deepEqual(
      variants.map((v) => v.name),
      ["brainking-8x8", "brainking-10x10", "iggamecenter-10x10", "classic-16x16", "classic-16x16-4p"],
    );
    assert.deepEqual(variants[0], {
      name: "brainking-8x8",
      spec: {
        boardSize: 8,
        seatCount: 2,
        campRows: [4, 3, 2, 1],
        homeExitLimit: 30,
        roundCompletion: false,
        targetLock: false,
        moveCap: 0,
      },
      seats: [Seat.SEAT_W, Seat.SEAT_B],
      piecesPerSeat: 10,
      startPosition: START_8X8,
      source: "BrainKing Halma 8x8",
    });
    assert.deepEqual(variants[4].seats, [Seat.SEAT_W, Seat.SEAT_R, Seat.SEAT_B, Seat.SEAT_G]);
  });

  test("legalMoves from a3 at the start: a3-a5, a3-b4, a3-c3", async () => {
    const answer = await client.legalMoves({ variant: BRAINKING, origin: "a3" });
    assert.deepEqual(answer.moves, [
      { origin: "a3", destination: "a5", path: "a3-a5", hops: 1 },
      { origin: "a3", destination: "b4", path: "a3-b4", hops: 0 },
      { origin: "a3", destination: "c3", path: "a3-c3", hops: 1 },
    ]);
    assert.equal(answer.count, 3);
    assert.equal(answer.position, START_8X8);
    assert.equal(answer.status?.state, GameStatus_State.STATE_IN_PROGRESS);
    assert.equal(answer.status?.toMove, Seat.SEAT_W);
  });

  test("legalMoves of the whole start position: 24 moves", async () => {
    const answer = await client.legalMoves({ variant: BRAINKING, position: START_8X8 });
    assert.equal(answer.count, 24);
    assert.equal(answer.moves.length, 24);
  });

  test("validateMove b1-d3: legal, with the position after it", async () => {
    const answer = await client.validateMove({ variant: BRAINKING, move: "b1-d3" });
    assert.equal(answer.legal, true);
    assert.equal(answer.reason, IllegalReason.ILLEGAL_REASON_UNSPECIFIED);
    assert.equal(answer.message, "");
    assert.equal(answer.path, "b1-d3");
    assert.equal(answer.hops, 1);
    assert.equal(answer.positionAfter, "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0");
    assert.equal(answer.status?.state, GameStatus_State.STATE_IN_PROGRESS);
    assert.equal(answer.status?.toMove, Seat.SEAT_B);
    assert.equal(answer.mover, Seat.SEAT_W);
  });

  test("validateMove a1-b2: an illegal move is an answer with reason and message", async () => {
    const answer = await client.validateMove({ variant: BRAINKING, move: "a1-b2" });
    assert.equal(answer.legal, false);
    assert.equal(answer.reason, IllegalReason.ILLEGAL_REASON_DESTINATION_OCCUPIED);
    assert.equal(answer.message, "b2 is occupied");
    assert.equal(answer.positionAfter, "");
    assert.equal(answer.status?.toMove, Seat.SEAT_W);
  });

  test("adjudicate: the first illegal move of a record, at ply 3", async () => {
    const answer = await client.adjudicate({ variant: BRAINKING, moves: ["b1-d3", "h7-f5", "a1-b2"] });
    assert.equal(answer.movesPlayed, 2);
    assert.equal(answer.finalPosition, "4bbbb/5bb1/6bb/5b1b/w7/ww1w4/www5/w1ww4 w 1,1");
    assert.deepEqual(answer.moveCounts, [
      { seat: Seat.SEAT_W, moves: 1n },
      { seat: Seat.SEAT_B, moves: 1n },
    ]);
    assert.equal(answer.status?.state, GameStatus_State.STATE_IN_PROGRESS);
    assert.deepEqual(answer.illegalMove, {
      ply: 3,
      move: "a1-b2",
      reason: IllegalReason.ILLEGAL_REASON_DESTINATION_OCCUPIED,
      message: "b2 is occupied",
    });
  });

  test("adjudicate a custom variant to a move-cap draw", async () => {
    const answer = await client.adjudicate({
      variant: { custom: { boardSize: 8, seatCount: 2, campRows: [4, 3, 2, 1], moveCap: 2 } },
      moves: ["b1-d3", "h7-f5", "c1-e1", "h8-h7"],
    });
    assert.equal(answer.movesPlayed, 4);
    assert.equal(answer.illegalMove, undefined);
    assert.equal(answer.status?.state, GameStatus_State.STATE_DRAW);
    assert.equal(answer.status?.rule, DecidingRule.DECIDING_RULE_MOVE_CAP);
    assert.equal(answer.status?.ply, 4);
    assert.deepEqual(answer.status?.winners, [Seat.SEAT_W, Seat.SEAT_B]);
  });

  test("adjudicate: 64-bit move counts come back exactly as bigint", async () => {
    const big = 2n ** 62n;
    // A custom 8x8 variant without brainking's home-exit rule (which would
    // have ended this game long ago).
    const answer = await client.adjudicate({
      variant: { custom: { boardSize: 8, seatCount: 2, campRows: [4, 3, 2, 1] } },
      startPosition: `4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w ${big},${big}`,
      moves: ["b1-d3"],
    });
    assert.deepEqual(
      answer.moveCounts.map((c) => c.moves),
      [big + 1n, big],
    );
  });

  test("an unknown preset is INVALID_ARGUMENT with the server's message, not retried", async () => {
    const before = retries.length;
    await assert.rejects(client.legalMoves({ variant: { preset: "brainking-9x9" } }), (e: unknown) => {
      assert.ok(e instanceof HalmaError);
      assert.ok(e instanceof Error);
      assert.equal(e.name, "HalmaError");
      assert.equal(e.code, status.INVALID_ARGUMENT);
      assert.equal(e.codeName, "INVALID_ARGUMENT");
      assert.equal(e.method, "halma.v1.HalmaRules/LegalMoves");
      assert.match(e.details, /^variant\.preset: variant "brainking-9x9": no such preset, expected one of /);
      assert.match(e.message, /^halma\.v1\.HalmaRules\/LegalMoves: INVALID_ARGUMENT: variant\.preset: /);
      assert.equal(e.attempts, 1);
      return true;
    });
    assert.equal(retries.length, before);
  });

  test("a malformed move is INVALID_ARGUMENT naming the field", async () => {
    await assert.rejects(client.validateMove({ variant: BRAINKING, move: "zz" }), (e: unknown) => {
      assert.ok(e instanceof HalmaError);
      assert.equal(e.code, status.INVALID_ARGUMENT);
      assert.match(e.details, /^move: /);
      return true;
    });
  });

  test("perft depth 1 counts the legal moves; depth 0 is 1", async () => {
    const after = "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0";
    const cases: [DeepPartial<Variant>, string][] = [
      [BRAINKING, ""],
      [BRAINKING, after],
      [{ preset: "classic-16x16-4p" }, ""],
      [{ custom: { boardSize: 6, seatCount: 2, campRows: [3, 2, 1] } }, ""],
    ];
    for (const [variant, position] of cases) {
      const legal = await client.legalMoves({ variant, position });
      assert.ok(legal.count > 0);
      const counted = await client.perft({ variant, position, depth: 1 });
      assert.equal(counted.nodes, BigInt(legal.count));
      assert.deepEqual(counted.firstMoves, []);
      assert.equal((await client.perft({ variant, position, depth: 0 })).nodes, 1n);
    }
  });

  test("perft depth 2 split by first move: LegalMoves' order, counts that sum up", async () => {
    const position = "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0";
    const answer = await client.perft({ variant: BRAINKING, position, depth: 2, splitByFirstMove: true });
    const legal = await client.legalMoves({ variant: BRAINKING, position });
    assert.deepEqual(
      answer.firstMoves.map((f) => f.move),
      legal.moves.map((m) => `${m.origin}-${m.destination}`),
    );
    assert.equal(
      answer.firstMoves.reduce((sum, f) => sum + f.nodes, 0n),
      answer.nodes,
    );
    // Each first move's count is the number of replies in the position it leads to.
    for (let i = 0; i < legal.moves.length; i++) {
      const after = await client.validateMove({ variant: BRAINKING, position, move: legal.moves[i].path });
      const replies = await client.legalMoves({ variant: BRAINKING, position: after.positionAfter });
      assert.equal(answer.firstMoves[i].nodes, BigInt(replies.count), answer.firstMoves[i].move);
    }
  });

  test("perft deeper than the server's --max_perft_depth is INVALID_ARGUMENT naming the field", async () => {
    await assert.rejects(client.perft({ variant: BRAINKING, depth: 9 }), (e: unknown) => {
      assert.ok(e instanceof HalmaError);
      assert.equal(e.code, status.INVALID_ARGUMENT);
      assert.equal(e.method, "halma.v1.HalmaRules/Perft");
      assert.equal(e.details, "depth: 9, expected 0 to 8 (this server's max_perft_depth)");
      assert.equal(e.attempts, 1);
      return true;
    });
    await assert.rejects(client.perft({ variant: BRAINKING, depth: -1 }), { details: /^depth: -1, expected 0 to 8/ });
    const shallow = await ServerProcess.start(["--max_perft_depth=2"]);
    const local = new HalmaClient(shallow.target);
    try {
      assert.equal((await local.perft({ variant: BRAINKING, depth: 2 })).nodes, (await client.perft({ variant: BRAINKING, depth: 2 })).nodes);
      await assert.rejects(local.perft({ variant: BRAINKING, depth: 3 }), {
        code: status.INVALID_ARGUMENT,
        details: "depth: 3, expected 0 to 2 (this server's max_perft_depth)",
      });
    } finally {
      local.close();
      assert.equal(await shallow.stop(), 0);
    }
  });

  test("perft of a malformed position is INVALID_ARGUMENT naming the field", async () => {
    await assert.rejects(client.perft({ variant: BRAINKING, position: "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0", depth: 1 }), {
      code: status.INVALID_ARGUMENT,
      details: 'position: position "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0": rank 8 "4bbbbb" holds more than 8 squares, expected 8',
    });
  });

  test("no retry happened in this suite", () => {
    assert.deepEqual(retries, []);
  });
});
