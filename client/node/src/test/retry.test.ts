// Retries: UNAVAILABLE only, with exponential backoff and a bounded number
// of attempts, within the call's deadline.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { HalmaClient, HalmaError, RetryEvent, status } from "../index";
import { freePort, ServerProcess } from "./server";

describe("retries", () => {
  test("UNAVAILABLE is retried up to maxAttempts with growing waits", async () => {
    const port = await freePort(); // Nothing listens there.
    const events: RetryEvent[] = [];
    const client = new HalmaClient(`127.0.0.1:${port}`, {
      retry: { maxAttempts: 4, initialBackoffMs: 40, maxBackoffMs: 1000, multiplier: 2, jitter: 0 },
      onRetry: (e) => events.push(e),
    });
    try {
      const started = performance.now();
      await assert.rejects(client.listVariants(), (e: unknown) => {
        assert.ok(e instanceof HalmaError);
        assert.equal(e.code, status.UNAVAILABLE);
        assert.equal(e.attempts, 4);
        return true;
      });
      const elapsed = performance.now() - started;
      assert.deepEqual(
        events.map((e) => [e.attempt, e.delayMs, e.method, e.error.code]),
        [
          [1, 40, "halma.v1.HalmaRules/ListVariants", status.UNAVAILABLE],
          [2, 80, "halma.v1.HalmaRules/ListVariants", status.UNAVAILABLE],
          [3, 160, "halma.v1.HalmaRules/ListVariants", status.UNAVAILABLE],
        ],
      );
      assert.ok(elapsed >= 280, `waited only ${elapsed.toFixed(0)} ms`);
      assert.ok(elapsed < 5000, `took ${elapsed.toFixed(0)} ms`);
    } finally {
      client.close();
    }
  });

  test("maxAttempts 1 turns retries off", async () => {
    const port = await freePort();
    const events: RetryEvent[] = [];
    const client = new HalmaClient(`127.0.0.1:${port}`, { retry: { maxAttempts: 1 }, onRetry: (e) => events.push(e) });
    try {
      await assert.rejects(client.checkHealth(), { code: status.UNAVAILABLE, attempts: 1 });
      assert.deepEqual(events, []);
    } finally {
      client.close();
    }
  });

  test("retries stop when the next wait would pass the deadline", async () => {
    const port = await freePort();
    const events: RetryEvent[] = [];
    const client = new HalmaClient(`127.0.0.1:${port}`, {
      retry: { maxAttempts: 10, initialBackoffMs: 100, maxBackoffMs: 5000, multiplier: 4, jitter: 0 },
      onRetry: (e) => events.push(e),
    });
    try {
      const started = performance.now();
      // Waits of 100 and 400 ms fit in 1000 ms; the next one (1600 ms) does not.
      await assert.rejects(client.checkHealth("", { deadlineMs: 1000 }), { code: status.UNAVAILABLE, attempts: 3 });
      assert.deepEqual(
        events.map((e) => e.delayMs),
        [100, 400],
      );
      assert.ok(performance.now() - started < 1000);
    } finally {
      client.close();
    }
  });

  test("a server that starts late is reached by retrying", async () => {
    const port = await freePort();
    const events: RetryEvent[] = [];
    const client = new HalmaClient(`127.0.0.1:${port}`, {
      retry: { maxAttempts: 10, initialBackoffMs: 100, maxBackoffMs: 400 },
      onRetry: (e) => events.push(e),
    });
    let server: ServerProcess | undefined;
    const starting = new Promise<ServerProcess>((resolve, reject) => {
      setTimeout(() => ServerProcess.start([], port).then(resolve, reject), 500);
    });
    try {
      const answer = await client.legalMoves({ variant: { preset: "brainking-8x8" }, origin: "a3" });
      assert.deepEqual(
        answer.moves.map((m) => m.path),
        ["a3-a5", "a3-b4", "a3-c3"],
      );
      assert.ok(events.length >= 1, "no retry happened");
      assert.ok(events.every((e) => e.error.code === status.UNAVAILABLE));
    } finally {
      client.close();
      server = await starting;
      assert.equal(await server.stop(), 0);
    }
  });

  test("INVALID_ARGUMENT is never retried", async () => {
    const server = await ServerProcess.start();
    const events: RetryEvent[] = [];
    const client = new HalmaClient(server.target, {
      retry: { maxAttempts: 5, initialBackoffMs: 10 },
      onRetry: (e) => events.push(e),
    });
    try {
      await assert.rejects(client.adjudicate({ variant: { preset: "brainking-8x8" }, moves: ["zz"] }), (e: unknown) => {
        assert.ok(e instanceof HalmaError);
        assert.equal(e.code, status.INVALID_ARGUMENT);
        assert.equal(e.attempts, 1);
        assert.match(e.details, /^moves\[0\] \(ply 1\): move "zz": /);
        return true;
      });
      assert.deepEqual(events, []);
    } finally {
      client.close();
      assert.equal(await server.stop(), 0);
    }
  });

  test("a call cancelled through its AbortSignal is CANCELLED, not retried", async () => {
    const port = await freePort();
    const events: RetryEvent[] = [];
    const client = new HalmaClient(`127.0.0.1:${port}`, {
      retry: { maxAttempts: 10, initialBackoffMs: 200, jitter: 0 },
      onRetry: (e) => events.push(e),
    });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = performance.now();
      await assert.rejects(client.listVariants({ signal: controller.signal }), { code: status.CANCELLED });
      assert.ok(performance.now() - started < 1000);
      assert.ok(events.length <= 1);
    } finally {
      client.close();
    }
  });

  test("close() during a retry wait ends the call with CANCELLED", async () => {
    const port = await freePort();
    const client = new HalmaClient(`127.0.0.1:${port}`, {
      retry: { maxAttempts: 10, initialBackoffMs: 200, jitter: 0 },
      onRetry: () => client.close(),
    });
    await assert.rejects(client.listVariants(), { code: status.CANCELLED, details: "the client is closed", attempts: 1 });
    await assert.rejects(client.checkHealth(), { code: status.CANCELLED, attempts: 0 });
  });
});
