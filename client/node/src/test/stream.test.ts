// adjudicateStream against the real server: answers in order and equal to
// unary Adjudicate's, per-record errors, the window, cancellation, the
// deadline, and a server shut down mid-stream.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import {
  AdjudicateRequest,
  AdjudicateStreamRequest,
  DeepPartial,
  HalmaClient,
  HalmaError,
  HalmaStreamError,
  RetryEvent,
  StreamRecord,
  StreamResult,
  status,
} from "../index";
import { freePort, REPO, ServerProcess } from "./server";

const BRAINKING = { preset: "brainking-8x8" };
const STREAM = { method: "halma.v1.HalmaRules/AdjudicateStream", protocol: "grpc" };

interface Vector {
  variant: string | { n: number; seats: number; camp: number[]; home_exit?: number; round_completion?: boolean; target_lock?: boolean; move_cap?: number };
  from?: string;
  moves: string[];
}

/** The game records of testdata/vectors/records.jsonl as requests. */
function games(): DeepPartial<AdjudicateRequest>[] {
  const lines = readFileSync(path.join(REPO, "testdata/vectors/records.jsonl"), "utf8").split("\n");
  return lines
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const v = JSON.parse(line) as Vector;
      const variant =
        typeof v.variant === "string"
          ? { preset: v.variant }
          : {
              custom: {
                boardSize: v.variant.n,
                seatCount: v.variant.seats,
                campRows: v.variant.camp,
                homeExitLimit: v.variant.home_exit ?? 0,
                roundCompletion: v.variant.round_completion ?? false,
                targetLock: v.variant.target_lock ?? false,
                moveCap: v.variant.move_cap ?? 0,
              },
            };
      return { variant, startPosition: v.from ?? "", moves: v.moves };
    });
}

/** A small seeded generator (mulberry32), for the same records every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` records built from the test vectors: whole games, games cut
 * short, games with a move made illegal, malformed ones (an unknown preset,
 * a move off the board, a bad start position), each with an id.
 */
function mixedRecords(count: number, seed: number): AdjudicateStreamRequest[] {
  const base = games();
  const next = random(seed);
  const pick = (n: number) => Math.floor(next() * n);
  const records: AdjudicateStreamRequest[] = [];
  for (let i = 0; i < count; i++) {
    const game = base[pick(base.length)];
    const record: DeepPartial<AdjudicateRequest> = { ...game };
    let moves = [...(game.moves as string[])];
    const kind = next();
    if (kind < 0.05) {
      record.variant = { preset: "brainking-9x9" };
    } else if (kind < 0.1) {
      moves.splice(pick(moves.length + 1), 0, "z9-a1");
    } else if (kind < 0.15) {
      record.startPosition = "not a position";
    } else if (kind < 0.35 && moves.length > 0) {
      // The same move again, one ply later: its origin is empty by then.
      const at = pick(moves.length);
      moves.splice(at + 1, 0, moves[at]);
    } else if (kind >= 0.55) {
      moves = moves.slice(0, pick(moves.length + 1));
    }
    record.moves = moves;
    records.push(AdjudicateStreamRequest.fromPartial({ id: `game-${seed}-${i}`, record }));
  }
  return records;
}

/** Every result is what unary Adjudicate answers for its record, in order; returns the kinds seen. */
async function checkLikeUnary(client: HalmaClient, records: AdjudicateStreamRequest[], results: StreamResult[]) {
  assert.deepEqual(
    results.map((r) => r.id),
    records.map((r) => r.id),
  );
  const kinds = { legal: 0, illegal: 0, error: 0 };
  for (let i = 0; i < records.length; i++) {
    const result = results[i];
    try {
      const answer = await client.adjudicate(records[i].record ?? {});
      assert.equal(result.error, undefined, records[i].id);
      assert.deepEqual(result.response, answer, records[i].id);
      kinds[answer.illegalMove === undefined ? "legal" : "illegal"] += 1;
    } catch (e) {
      if (!(e instanceof HalmaError)) throw e;
      assert.equal(result.response, undefined, records[i].id);
      assert.deepEqual(result.error, { code: e.code, codeName: e.codeName, message: e.details }, records[i].id);
      kinds.error += 1;
    }
  }
  return kinds;
}

/** An endless input that counts the records taken from it. */
class Counted implements Iterable<StreamRecord> {
  taken = 0;
  *[Symbol.iterator](): Iterator<StreamRecord> {
    for (let i = 0; ; i++) {
      this.taken += 1;
      yield [`r${i}`, { variant: BRAINKING, moves: ["b1-d3", "h7-f5"].slice(0, i % 3) }];
    }
  }
}

async function waitFor(condition: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

/** AdjudicateStream calls the server has open now. */
function openStreams(server: ServerProcess): Promise<number> {
  return server.metric("halma_rpc_calls_in_flight", STREAM);
}

async function collect(call: AsyncIterable<StreamResult>): Promise<StreamResult[]> {
  const results: StreamResult[] = [];
  for await (const result of call) results.push(result);
  return results;
}

describe("adjudicateStream", () => {
  let server: ServerProcess;
  let client: HalmaClient;

  before(async () => {
    server = await ServerProcess.start();
    client = new HalmaClient(server.target, { defaultDeadlineMs: 60_000 });
  });

  after(async () => {
    client?.close();
    assert.equal(await server?.stop(), 0);
  });

  test("400 mixed records are answered in order, as unary Adjudicate answers them", async () => {
    const records = mixedRecords(400, 1);
    const call = client.adjudicateStream(records);
    const results = await collect(call);
    const kinds = await checkLikeUnary(client, records, results);
    assert.ok(kinds.legal >= 20 && kinds.illegal >= 20 && kinds.error >= 20, JSON.stringify(kinds));
    assert.equal(call.answered, 400);
    assert.equal(call.attempts, 1);
  });

  test("a malformed record is an error for it alone; the stream goes on", async () => {
    const good = { variant: BRAINKING, moves: ["b1-d3", "h7-f5", "a1-b2"] };
    const results = await collect(
      client.adjudicateStream([
        ["one", good],
        { id: "two", record: { variant: { preset: "brainking-9x9" } } },
        ["three", good],
      ]),
    );
    assert.deepEqual(
      results.map((r) => r.id),
      ["one", "two", "three"],
    );
    assert.equal(results[0].response?.illegalMove?.ply, 3);
    assert.equal(results[0].response?.illegalMove?.message, "b2 is occupied");
    assert.equal(results[1].response, undefined);
    assert.equal(results[1].error?.code, status.INVALID_ARGUMENT);
    assert.equal(results[1].error?.codeName, "INVALID_ARGUMENT");
    assert.match(results[1].error?.message ?? "", /^variant\.preset: variant "brainking-9x9": no such preset, expected one of /);
    assert.deepEqual(results[2].response, results[0].response);
  });

  test("an id longer than 256 bytes is an error for its record, reported under the id given", async () => {
    const longId = "x".repeat(300);
    const results = await collect(client.adjudicateStream([[longId, { variant: BRAINKING }], ["", { variant: BRAINKING }]]));
    assert.deepEqual(
      results.map((r) => r.id),
      [longId, ""],
    );
    assert.equal(results[0].error?.message, "id: 300 bytes, more than the 256 an id may have");
    assert.equal(results[1].response?.movesPlayed, 0);
  });

  test("an async input works; one that throws is thrown after the records before it", async () => {
    async function* input(): AsyncGenerator<StreamRecord> {
      yield ["a", { variant: BRAINKING, moves: ["b1-d3"] }];
      await new Promise((resolve) => setTimeout(resolve, 10));
      yield ["b", { variant: BRAINKING }];
      throw new Error("the input broke");
    }
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const result of client.adjudicateStream(input())) seen.push(result.id);
      })(),
      /the input broke/,
    );
    assert.deepEqual(seen, ["a", "b"]);
    const bad = [["a", { variant: BRAINKING }], 42] as unknown as StreamRecord[];
    await assert.rejects(collect(client.adjudicateStream(bad)), { name: "TypeError", message: /^record 1: / });
    assert.deepEqual(await collect(client.adjudicateStream([])), []);
  });

  test("the input is read at most a window ahead of the results", async () => {
    const source = new Counted();
    const call = client.adjudicateStream(source, { window: 8 });
    let n = 0;
    for await (const result of call) {
      assert.equal(result.id, `r${n}`);
      if (++n === 100) break;
    }
    assert.ok(source.taken >= 100 && source.taken <= 108, `took ${source.taken}`);
    assert.throws(() => client.adjudicateStream(source, { window: 0 }), RangeError);
  });

  test("the window holds while nobody reads results", async () => {
    const source = new Counted();
    const call = client.adjudicateStream(source, { window: 8 });
    for (let i = 0; i < 100; i++) {
      assert.equal((await call.next()).value?.id, `r${i}`);
    }
    assert.ok(source.taken <= 108, `took ${source.taken}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(source.taken <= 108, `took ${source.taken} while nobody read`);
    assert.equal((await call.next()).value?.id, "r100");
    await call.return();
  });

  test("an AbortSignal cancels the stream: CANCELLED, and the server's call ends", async () => {
    const own = await ServerProcess.start();
    const local = new HalmaClient(own.target);
    try {
      const source = new Counted();
      const controller = new AbortController();
      const call = local.adjudicateStream(source, { window: 4, signal: controller.signal });
      let results = 0;
      let openThen = -1;
      await assert.rejects(
        (async () => {
          for await (const _ of call) {
            if (++results === 50) {
              openThen = await openStreams(own);
              controller.abort();
            }
          }
        })(),
        (e: unknown) => {
          assert.ok(e instanceof HalmaStreamError, String(e));
          assert.equal(e.code, status.CANCELLED);
          assert.equal(e.details, "cancelled by the caller");
          assert.equal(e.answered, results);
          assert.deepEqual(
            e.unanswered.map((r) => r.id),
            e.unanswered.map((_, i) => `r${results + i}`),
          );
          return true;
        },
      );
      assert.equal(openThen, 1);
      assert.ok(source.taken <= results + 4);
      // The input is endless: only the cancel can have ended the server's call.
      assert.ok(await waitFor(async () => (await openStreams(own)) === 0));
    } finally {
      local.close();
      assert.equal(await own.stop(), 0);
    }
  });

  test("leaving the loop early cancels the call", async () => {
    const own = await ServerProcess.start();
    const local = new HalmaClient(own.target);
    try {
      const source = new Counted();
      for await (const result of local.adjudicateStream(source, { window: 4 })) {
        if (result.id === "r9") {
          assert.equal(await openStreams(own), 1);
          break;
        }
      }
      assert.ok(await waitFor(async () => (await openStreams(own)) === 0));
      const taken = source.taken;
      assert.ok(taken <= 14, `took ${taken}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(source.taken, taken);
    } finally {
      local.close();
      assert.equal(await own.stop(), 0);
    }
  });

  test("the deadline covers the whole stream and is not retried", async () => {
    const retries: RetryEvent[] = [];
    const local = new HalmaClient(server.target, { onRetry: (e) => retries.push(e) });
    try {
      const started = performance.now();
      let results = 0;
      await assert.rejects(
        (async () => {
          for await (const _ of local.adjudicateStream(new Counted(), { deadlineMs: 500 })) results++;
        })(),
        (e: unknown) => {
          assert.ok(e instanceof HalmaStreamError);
          assert.equal(e.code, status.DEADLINE_EXCEEDED);
          assert.equal(e.attempts, 1);
          assert.equal(e.answered, results);
          return true;
        },
      );
      assert.ok(performance.now() - started < 5000);
      assert.deepEqual(retries, []);
    } finally {
      local.close();
    }
  });

  test("a server shut down mid-stream, without retries: exactly what was answered is reported", async () => {
    const doomed = await ServerProcess.start();
    const local = new HalmaClient(doomed.target, { retry: { maxAttempts: 1 }, defaultDeadlineMs: 60_000 });
    let stopping: Promise<number | null> | undefined;
    let results = 0;
    try {
      await assert.rejects(
        (async () => {
          for await (const _ of local.adjudicateStream(new Counted(), { window: 16 })) {
            if (++results === 200) stopping = doomed.stop(); // SIGTERM while records flow.
          }
        })(),
        (e: unknown) => {
          assert.ok(e instanceof HalmaStreamError, String(e));
          assert.equal(e.code, status.UNAVAILABLE);
          assert.equal(e.attempts, 1);
          // The server says how many records it answered: exactly those given.
          const said = /^AdjudicateStream: the server is shutting down after answering (\d+) records; send the rest to another server$/.exec(e.details);
          assert.ok(said, e.details);
          assert.equal(Number(said[1]), results);
          assert.equal(e.answered, results);
          assert.ok(results >= 200);
          assert.ok(e.unanswered.length <= 16);
          assert.deepEqual(
            e.unanswered.map((r) => r.id),
            e.unanswered.map((_, i) => `r${results + i}`),
          );
          return true;
        },
      );
    } finally {
      local.close();
      assert.equal(await (stopping ?? doomed.stop()), 0);
    }
  });

  test("a server shut down mid-stream: the unanswered records are resent, every answer once, in order", async (t) => {
    const port = await freePort();
    const first = await ServerProcess.start([], port);
    const exits: (number | null)[] = [];
    let second: ServerProcess | undefined;
    let restarting: Promise<void> | undefined;
    const retries: RetryEvent[] = [];
    const local = new HalmaClient(`127.0.0.1:${port}`, {
      retry: { maxAttempts: 100, initialBackoffMs: 50, maxBackoffMs: 250 },
      defaultDeadlineMs: 60_000,
      onRetry: (e) => retries.push(e),
    });
    const records = mixedRecords(600, 2);
    const results: StreamResult[] = [];
    try {
      const call = local.adjudicateStream(records, { window: 16 });
      let firstExited: Promise<void> | undefined;
      for await (const result of call) {
        results.push(result);
        if (results.length === 150) {
          // SIGTERM, then a new server on the same port.
          const stopped = first.stop();
          firstExited = stopped.then((code) => {
            exits.push(code);
          });
          restarting = firstExited.then(async () => {
            second = await ServerProcess.start([], port);
          });
        }
        if (results.length === 300) {
          // Records flowed while the server shut down. Now it is gone for
          // sure while this stream (at most 316 of 600 records sent) was
          // open: the stream had to be resumed.
          await firstExited;
        }
      }
      await restarting;
      assert.ok(call.attempts >= 2, `attempts ${call.attempts}`);
      assert.equal(call.answered, 600);
      assert.ok(retries.every((e) => e.error.code === status.UNAVAILABLE && e.method === "halma.v1.HalmaRules/AdjudicateStream"));
      assert.ok(call.resent <= 16);
      t.diagnostic(`attempts ${call.attempts}, records resent ${call.resent}`);
    } finally {
      local.close();
      await restarting;
      if (restarting === undefined) exits.push(await first.stop());
      if (second !== undefined) exits.push(await second.stop());
    }
    assert.deepEqual(exits, [0, 0]);
    await checkLikeUnary(client, records, results);
  });
});
