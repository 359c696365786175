// suggestMove against the real server: what the proto promises of
// SuggestMove, checked with the client's own calls. The move is legal
// (LegalMoves lists it exactly, ValidateMove plays it), the answer is a
// function of the request, the candidates are ranked, bad requests are
// INVALID_ARGUMENT naming the field, a search past its deadline ends
// DEADLINE_EXCEEDED (or answers the best move so far when asked). Not
// which move: that is the bot's to choose.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  DeepPartial,
  GameStatus_State,
  HalmaClient,
  HalmaError,
  Move,
  MoveScore_Kind,
  RetryEvent,
  Seat,
  status,
  StopReason,
  SuggestMoveRequest,
  SuggestMoveResponse,
  Variant,
} from "../index";
import { ServerProcess } from "./server";

const BRAINKING = { preset: "brainking-8x8" };
const AFTER_B1_D3 = "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0";
// A custom variant that is over after four moves (a move-cap draw).
const MOVE_CAP_2 = { custom: { boardSize: 8, seatCount: 2, campRows: [4, 3, 2, 1], moveCap: 2 } };
const CAPPED_GAME = ["b1-d3", "h7-f5", "c1-e1", "h8-h7"];
// The largest node budget any server accepts: no machine searches 10^12
// nodes within the deadlines below.
const ENDLESS = 1_000_000_000_000n;

const key = (m: Move | undefined) => (m ? `${m.origin}|${m.destination}|${m.path}|${m.hops}` : "none");

describe("suggestMove against halma_server", () => {
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

  // The move and every candidate are moves LegalMoves lists, as it lists
  // them; ValidateMove plays the move.
  async function checkLegal(variant: DeepPartial<Variant>, answer: SuggestMoveResponse, position: string) {
    const legal = await client.legalMoves({ variant, position });
    assert.equal(answer.position, legal.position);
    assert.equal(answer.mover, legal.status?.toMove);
    const listed = new Set(legal.moves.map(key));
    assert.ok(listed.has(key(answer.move)), `${key(answer.move)} is not among LegalMoves' moves`);
    for (const candidate of answer.candidates) assert.ok(listed.has(key(candidate.move)), key(candidate.move));
    const played = await client.validateMove({ variant, position: legal.position, move: answer.move!.path });
    assert.equal(played.legal, true, played.message);
    assert.equal(played.path, answer.move!.path);
    assert.equal(played.mover, answer.mover);
  }

  async function rejects(request: DeepPartial<SuggestMoveRequest>): Promise<string> {
    let details = "";
    const before = retries.length;
    await assert.rejects(client.suggestMove(request), (e: unknown) => {
      assert.ok(e instanceof HalmaError);
      assert.equal(e.code, status.INVALID_ARGUMENT);
      assert.equal(e.method, "halma.v1.HalmaRules/SuggestMove");
      assert.equal(e.attempts, 1);
      details = e.details;
      return true;
    });
    assert.equal(retries.length, before);
    return details;
  }

  test("the suggested move is legal: presets, a position, moves, four players, a custom variant", async () => {
    const cases: [DeepPartial<Variant>, string, string[], number][] = [
      [BRAINKING, "", [], 2],
      [BRAINKING, "", ["b1-d3"], 2],
      [BRAINKING, AFTER_B1_D3, ["h7-f5"], 2],
      [{ preset: "classic-16x16-4p" }, "", [], 4],
      [{ custom: { boardSize: 6, seatCount: 2, campRows: [3, 2, 1] } }, "", [], 2],
    ];
    for (const [variant, position, moves, seats] of cases) {
      for (const level of [1, 3]) {
        const answer = await client.suggestMove({ variant, position, moves, level, candidates: 3 });
        const replayed = await client.adjudicate({ variant, startPosition: position, moves });
        await checkLegal(variant, answer, replayed.finalPosition);
        assert.equal(answer.level, level);
        assert.ok(answer.nodes > 0n && answer.depth >= 1);
        assert.ok([StopReason.STOP_REASON_COMPLETED, StopReason.STOP_REASON_NODE_BUDGET].includes(answer.stopReason));
        assert.notEqual(answer.score?.kind, MoveScore_Kind.KIND_UNSPECIFIED);
        assert.deepEqual(
          answer.turnsNeeded.map((t) => t.seat),
          seats === 2 ? [Seat.SEAT_W, Seat.SEAT_B] : [Seat.SEAT_W, Seat.SEAT_R, Seat.SEAT_B, Seat.SEAT_G],
        );
        if (key(answer.move) === key(answer.candidates[0].move)) {
          assert.deepEqual(answer.principalVariation[0], {
            seat: answer.mover,
            move: `${answer.move!.origin}-${answer.move!.destination}`,
          });
        }
      }
    }
  });

  test("the same request gives the same answer, twice and on another server", async () => {
    const requests: DeepPartial<SuggestMoveRequest>[] = [
      { variant: BRAINKING, moves: ["b1-d3", "h7-f5"], level: 2, seed: 7n, candidates: 4 },
      { variant: BRAINKING, position: AFTER_B1_D3, level: 1, seed: 12345678901234567890n },
      { variant: { preset: "classic-16x16" }, level: 3, seed: 1n, candidates: 2 },
      { variant: { preset: "classic-16x16-4p" }, maxNodes: 20000n, seed: 3n },
    ];
    const first: SuggestMoveResponse[] = [];
    for (const request of requests) first.push(await client.suggestMove(request));
    for (let i = 0; i < requests.length; i++) assert.deepEqual(await client.suggestMove(requests[i]), first[i]);
    const other = await ServerProcess.start(["--max_suggest_nodes=5000000", "--max_concurrent_adjudications=1"]);
    const elsewhere = new HalmaClient(other.target);
    try {
      for (let i = 0; i < requests.length; i++) assert.deepEqual(await elsewhere.suggestMove(requests[i]), first[i]);
    } finally {
      elsewhere.close();
      assert.equal(await other.stop(), 0);
    }
  });

  test("candidates are ranked best first, distinct and legal; the move is one of them", async () => {
    for (const level of [1, 4]) {
      const answer = await client.suggestMove({ variant: BRAINKING, moves: ["b1-d3"], level, seed: 9n, candidates: 6 });
      assert.equal(answer.candidates.length, 6);
      const moves = answer.candidates.map((c) => key(c.move));
      assert.equal(new Set(moves).size, 6);
      const values = answer.candidates.map((c) => c.score!.value);
      assert.deepEqual(values, [...values].sort((a, b) => b - a));
      const chosen = moves.indexOf(key(answer.move));
      assert.ok(chosen >= 0);
      assert.deepEqual(answer.candidates[chosen].score, answer.score);
      if (level === 4) assert.equal(chosen, 0); // Level 4 plays its best move.
      await checkLegal(BRAINKING, answer, AFTER_B1_D3);
    }
    // The move does not depend on the number of candidates asked for.
    const one = await client.suggestMove({ variant: BRAINKING, moves: ["b1-d3"], level: 4, seed: 5n });
    const five = await client.suggestMove({ variant: BRAINKING, moves: ["b1-d3"], level: 4, seed: 5n, candidates: 5 });
    assert.equal(key(five.move), key(one.move));
    assert.equal(one.candidates.length, 1);
    // A position with fewer moves than asked for gives each of them once.
    const tiny = { custom: { boardSize: 4, seatCount: 2, campRows: [2, 1] } };
    const legal = await client.legalMoves({ variant: tiny });
    assert.ok(legal.count > 1 && legal.count < 16);
    const all = await client.suggestMove({ variant: tiny, level: 1, candidates: 16 });
    assert.deepEqual(all.candidates.map((c) => key(c.move)).sort(), legal.moves.map(key).sort());
  });

  test("a finished game is INVALID_ARGUMENT naming moves or position, not retried", async () => {
    const over = await client.adjudicate({ variant: MOVE_CAP_2, moves: CAPPED_GAME });
    assert.equal(over.status?.state, GameStatus_State.STATE_DRAW);
    const byMoves = await rejects({ variant: MOVE_CAP_2, moves: CAPPED_GAME, level: 1 });
    assert.match(byMoves, /^moves: the game is over \(.*expected a game in progress$/);
    const byPosition = await rejects({ variant: MOVE_CAP_2, position: over.finalPosition });
    assert.match(byPosition, /^position: the game is over \(/);
  });

  test("a bad level, budget or candidate count is INVALID_ARGUMENT naming the field", async () => {
    assert.match(await rejects({ variant: BRAINKING, level: 9 }), /^level: 9, expected 1 to 8/);
    assert.match(await rejects({ variant: BRAINKING, level: -1 }), /^level: -1, expected 1 to 8/);
    assert.match(await rejects({ variant: BRAINKING, level: 3, maxNodes: 1000n }), /^level: 3 given together with max_nodes/);
    assert.match(await rejects({ variant: BRAINKING, candidates: 17 }), /^candidates: 17, expected 1 to 16/);
    assert.match(
      await rejects({ variant: BRAINKING, maxNodes: ENDLESS }),
      new RegExp(`^max_nodes: ${ENDLESS} is more than this server's limit .*max_suggest_nodes`),
    );
    assert.match(
      await rejects({ variant: BRAINKING, moves: ["b1-d3", "h7-f5", "a1-b2"] }),
      /^moves\[2\] \(ply 3\): move "a1-b2" is illegal/,
    );
  });

  describe("deadlines", () => {
    let slow: ServerProcess;
    before(async () => {
      // Any node budget; every call stopped after 1 s.
      slow = await ServerProcess.start([`--max_suggest_nodes=${ENDLESS}`, "--max_call_seconds=1"]);
    });
    after(async () => {
      assert.equal(await slow?.stop(), 0);
    });

    test("a search past the call's deadline ends DEADLINE_EXCEEDED, once; the server goes on", async () => {
      const seen: RetryEvent[] = [];
      const local = new HalmaClient(slow.target, { onRetry: (e) => seen.push(e) });
      try {
        const started = performance.now();
        await assert.rejects(
          local.suggestMove({ variant: { preset: "classic-16x16" }, maxNodes: ENDLESS }, { deadlineMs: 300 }),
          { code: status.DEADLINE_EXCEEDED, attempts: 1 },
        );
        assert.ok(performance.now() - started < 5000);
        assert.deepEqual(seen, []);
        const answer = await local.suggestMove({ variant: BRAINKING, level: 1 }, { deadlineMs: 10_000 });
        assert.ok(answer.move?.path);
      } finally {
        local.close();
      }
    });

    test("bestSoFar: the server's max_call_seconds stops the search, the answer is the best move so far", async () => {
      const local = new HalmaClient(slow.target, { defaultDeadlineMs: 30_000 });
      try {
        const variant = { preset: "classic-16x16" };
        const answer = await local.suggestMove({ variant, maxNodes: ENDLESS, bestSoFar: true, candidates: 2 });
        assert.equal(answer.stopReason, StopReason.STOP_REASON_INTERRUPTED);
        assert.notEqual(answer.stopMessage, "");
        const legal = await local.legalMoves({ variant });
        assert.ok(legal.moves.map(key).includes(key(answer.move)));
        await assert.rejects(local.suggestMove({ variant, maxNodes: ENDLESS }), { code: status.DEADLINE_EXCEEDED });
      } finally {
        local.close();
      }
    });
  });

  test("no retry happened in this suite", () => {
    assert.deepEqual(retries, []);
  });
});
