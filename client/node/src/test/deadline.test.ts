// Deadlines: a replay that outlasts the call's deadline ends with
// DEADLINE_EXCEEDED at once and is not retried.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { HalmaClient, HalmaError, RetryEvent, status } from "../index";
import { ServerProcess } from "./server";

const SLOW_FLAGS = ["--max_record_moves=2000000", "--max_message_bytes=67108864", "--max_call_seconds=60"];
const CYCLE = ["a1-e5", "j10-f6", "e5-a1", "f6-j10"];
const SLOW_REQUEST = {
  variant: { preset: "iggamecenter-10x10" },
  startPosition: "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 0,0",
  moves: Array.from({ length: 2_000_000 }, (_, i) => CYCLE[i % CYCLE.length]),
};

describe("deadlines", () => {
  let server: ServerProcess;
  const retries: RetryEvent[] = [];
  // How long the whole replay takes here, encoding included (the first
  // test measures it), printed beside the time a call cut short by its
  // deadline took; never compared: encoding and sending 2,000,000 moves can
  // take most of either on a loaded machine. DEADLINE_EXCEEDED on a record
  // the server answers in full without a deadline is the evidence.
  let wholeReplayMs = 0;

  before(async () => {
    server = await ServerProcess.start(SLOW_FLAGS);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  test("the slow record replays in full without a tight deadline", async () => {
    const client = new HalmaClient(server.target, { defaultDeadlineMs: 30_000 });
    try {
      const started = performance.now();
      const answer = await client.adjudicate(SLOW_REQUEST);
      wholeReplayMs = performance.now() - started;
      assert.equal(answer.movesPlayed, 2_000_000);
      assert.equal(answer.illegalMove, undefined);
    } finally {
      client.close();
    }
  });

  test("a 100 ms per-call deadline ends the replay with DEADLINE_EXCEEDED, once", async (t) => {
    const client = new HalmaClient(server.target, { onRetry: (e) => retries.push(e) });
    try {
      const started = performance.now();
      await assert.rejects(client.adjudicate(SLOW_REQUEST, { deadlineMs: 100 }), (e: unknown) => {
        assert.ok(e instanceof HalmaError);
        assert.equal(e.code, status.DEADLINE_EXCEEDED);
        assert.equal(e.attempts, 1);
        return true;
      });
      const elapsed = performance.now() - started;
      t.diagnostic(`took ${elapsed.toFixed(0)} ms, the whole replay ${wholeReplayMs.toFixed(0)} ms`);
      assert.deepEqual(retries, []);
    } finally {
      client.close();
    }
  });

  test("a perft that outlasts its deadline ends with DEADLINE_EXCEEDED, once", async () => {
    const client = new HalmaClient(server.target, { onRetry: (e) => retries.push(e) });
    try {
      const started = performance.now();
      // Depth 8 from the start of classic-16x16 is some 10^14 sequences
      // (depth 6 alone takes a CPU minute, docs/perft.md): no machine counts
      // them within the deadline.
      await assert.rejects(client.perft({ variant: { preset: "classic-16x16" }, depth: 8 }, { deadlineMs: 200 }), {
        code: status.DEADLINE_EXCEEDED,
        attempts: 1,
      });
      assert.ok(performance.now() - started < 5000);
      assert.deepEqual(retries, []);
      // The channel and the server go on answering.
      assert.equal((await client.perft({ variant: { preset: "brainking-8x8" }, depth: 1 }, { deadlineMs: 5000 })).nodes, 24n);
    } finally {
      client.close();
    }
  });

  test("the client's default deadline applies when the call sets none", async (t) => {
    const client = new HalmaClient(server.target, { defaultDeadlineMs: 100, onRetry: (e) => retries.push(e) });
    try {
      const started = performance.now();
      await assert.rejects(client.adjudicate(SLOW_REQUEST), { code: status.DEADLINE_EXCEEDED, attempts: 1 });
      const elapsed = performance.now() - started;
      t.diagnostic(`took ${elapsed.toFixed(0)} ms, the whole replay ${wholeReplayMs.toFixed(0)} ms`);
      assert.deepEqual(retries, []);
      // The server is still fine for the next call on the same channel.
      const { variants } = await client.listVariants({ deadlineMs: 5000 });
      assert.equal(variants.length, 5);
    } finally {
      client.close();
    }
  });
});
