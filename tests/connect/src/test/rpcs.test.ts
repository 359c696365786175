// Every RPC of halma.v1.HalmaRules through the Connect protocol over
// HTTP/1.1: POST with JSON, POST with binary protobuf, and the GET form
// with each; the answers are docs/http.md's, checked field by field.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@connectrpc/connect";
import type { GameStatus, HalmaRules } from "../gen/halma/v1/halma_pb";
import { assertOneExchange, connectClient, modes, startServer, WireLog, type Server } from "../harness";
import { brainking8Start, GameStatus_State, IllegalReason, Seat, status, variants } from "../expected";

const brainking8 = { kind: { case: "preset" as const, value: "brainking-8x8" } };

function plainStatus(s: GameStatus | undefined) {
  assert.ok(s, "status is set");
  return {
    state: s.state,
    toMove: s.toMove,
    roundCompletionTurn: s.roundCompletionTurn,
    mustPass: s.mustPass,
    winners: [...s.winners],
    rule: s.rule,
    ply: s.ply,
    finished: [...s.finished],
    eliminated: [...s.eliminated],
  };
}

for (const mode of modes) {
  describe(`Connect over HTTP/1.1, ${mode.name}`, () => {
    let server: Server;
    let client: Client<typeof HalmaRules>;
    const wire = new WireLog();

    before(async () => {
      server = await startServer();
      client = connectClient(server.baseUrl, mode);
    });
    after(async () => {
      wire.close();
      await server?.stop();
    });

    test("ListVariants: every preset with all its parameters", async () => {
      wire.take();
      const res = await client.listVariants({});
      assertOneExchange(wire, mode, "ListVariants");
      assert.equal(res.$typeName, "halma.v1.ListVariantsResponse");
      assert.deepEqual(
        res.variants.map((v) => v.name),
        variants.map((v) => v.name),
      );
      res.variants.forEach((v, i) => {
        const want = variants[i];
        assert.ok(v.spec, `${want.name}: spec is set`);
        assert.deepEqual(
          {
            boardSize: v.spec.boardSize,
            seatCount: v.spec.seatCount,
            campRows: [...v.spec.campRows],
            homeExitLimit: v.spec.homeExitLimit,
            roundCompletion: v.spec.roundCompletion,
            targetLock: v.spec.targetLock,
            moveCap: v.spec.moveCap,
          },
          want.spec,
          `${want.name}: spec`,
        );
        assert.deepEqual([...v.seats], want.seats, `${want.name}: seats`);
        assert.equal(v.piecesPerSeat, want.piecesPerSeat, `${want.name}: piecesPerSeat`);
        assert.equal(v.startPosition, want.startPosition, `${want.name}: startPosition`);
        assert.equal(v.source, want.source, `${want.name}: source`);
      });
    });

    test("LegalMoves: the moves of a3 at the start of brainking-8x8", async () => {
      wire.take();
      const res = await client.legalMoves({ variant: brainking8, origin: "a3" });
      assertOneExchange(wire, mode, "LegalMoves");
      assert.equal(res.$typeName, "halma.v1.LegalMovesResponse");
      assert.deepEqual(
        res.moves.map((m) => ({ origin: m.origin, destination: m.destination, path: m.path, hops: m.hops })),
        [
          { origin: "a3", destination: "a5", path: "a3-a5", hops: 1 },
          { origin: "a3", destination: "b4", path: "a3-b4", hops: 0 },
          { origin: "a3", destination: "c3", path: "a3-c3", hops: 1 },
        ],
      );
      assert.equal(res.count, 3);
      assert.deepEqual(plainStatus(res.status), status(GameStatus_State.IN_PROGRESS, Seat.W));
      assert.equal(res.position, brainking8Start);
    });

    test("LegalMoves: all 24 moves of w at the start, in a given position", async () => {
      wire.take();
      const res = await client.legalMoves({ variant: brainking8, position: brainking8Start });
      assertOneExchange(wire, mode, "LegalMoves");
      assert.equal(res.count, 24);
      assert.equal(res.moves.length, 24);
      assert.deepEqual(
        res.moves.filter((m) => m.origin === "b1").map((m) => [m.path, m.hops]),
        [["b1-d3", 1]],
      );
      assert.deepEqual(plainStatus(res.status), status(GameStatus_State.IN_PROGRESS, Seat.W));
    });

    test("ValidateMove: b1-d3 is legal", async () => {
      wire.take();
      const res = await client.validateMove({ variant: brainking8, move: "b1-d3" });
      assertOneExchange(wire, mode, "ValidateMove");
      assert.equal(res.$typeName, "halma.v1.ValidateMoveResponse");
      assert.equal(res.legal, true);
      assert.equal(res.reason, IllegalReason.UNSPECIFIED);
      assert.equal(res.message, "");
      assert.equal(res.path, "b1-d3");
      assert.equal(res.hops, 1);
      assert.equal(res.positionAfter, "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0");
      assert.deepEqual(plainStatus(res.status), status(GameStatus_State.IN_PROGRESS, Seat.B));
      assert.equal(res.mover, Seat.W);
    });

    test("ValidateMove: a1-b2 is illegal, b2 is occupied", async () => {
      wire.take();
      const res = await client.validateMove({ variant: brainking8, move: "a1-b2" });
      assertOneExchange(wire, mode, "ValidateMove");
      assert.equal(res.legal, false);
      assert.equal(res.reason, IllegalReason.DESTINATION_OCCUPIED);
      assert.equal(res.message, "b2 is occupied");
      assert.equal(res.path, "");
      assert.equal(res.hops, 0);
      assert.equal(res.positionAfter, "");
      assert.deepEqual(plainStatus(res.status), status(GameStatus_State.IN_PROGRESS, Seat.W));
      assert.equal(res.mover, Seat.W);
    });

    test("Adjudicate: a record whose third move is illegal", async () => {
      wire.take();
      const res = await client.adjudicate({ variant: brainking8, moves: ["b1-d3", "h7-f5", "a1-b2"] });
      assertOneExchange(wire, mode, "Adjudicate");
      assert.equal(res.$typeName, "halma.v1.AdjudicateResponse");
      assert.deepEqual(plainStatus(res.status), status(GameStatus_State.IN_PROGRESS, Seat.W));
      assert.equal(res.finalPosition, "4bbbb/5bb1/6bb/5b1b/w7/ww1w4/www5/w1ww4 w 1,1");
      assert.equal(res.movesPlayed, 2);
      assert.deepEqual(
        res.moveCounts.map((c) => ({ seat: c.seat, moves: c.moves })),
        [
          { seat: Seat.W, moves: 1n },
          { seat: Seat.B, moves: 1n },
        ],
      );
      assert.equal(typeof res.moveCounts[0].moves, "bigint");
      assert.ok(res.illegalMove, "illegalMove is set");
      assert.equal(res.illegalMove.ply, 3);
      assert.equal(res.illegalMove.move, "a1-b2");
      assert.equal(res.illegalMove.reason, IllegalReason.DESTINATION_OCCUPIED);
      assert.equal(res.illegalMove.message, "b2 is occupied");
    });

    test("Adjudicate: 64-bit move counts (2^63 - 1) in a custom variant", async () => {
      wire.take();
      const res = await client.adjudicate({
        variant: { kind: { case: "custom", value: { boardSize: 8, seatCount: 2, campRows: [4, 3, 2, 1] } } },
        startPosition: "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 9223372036854775806,9223372036854775806",
        moves: ["b1-d3"],
      });
      assertOneExchange(wire, mode, "Adjudicate");
      assert.equal(res.movesPlayed, 1);
      assert.equal(res.illegalMove, undefined);
      assert.equal(res.finalPosition, "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 9223372036854775807,9223372036854775806");
      assert.deepEqual(
        res.moveCounts.map((c) => ({ seat: c.seat, moves: c.moves })),
        [
          { seat: Seat.W, moves: 9223372036854775807n },
          { seat: Seat.B, moves: 9223372036854775806n },
        ],
      );
      assert.deepEqual(plainStatus(res.status), status(GameStatus_State.IN_PROGRESS, Seat.B));
    });
  });
}
