// Deadlines through the Connect protocol: a slow Adjudicate (a record of
// 2,000,000 moves, answered in full without a deadline) with
// `timeoutMs: 100` ends in DEADLINE_EXCEEDED instead of its answer;
// Connect-Timeout-Ms alone (no client timer) makes the server itself answer
// deadline_exceeded with HTTP 504; and the server goes on serving and exits
// cleanly. The times are printed, never compared: how long the upload and
// the replay take depends on the machine and its load.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { AdjudicateRequestSchema } from "../gen/halma/v1/halma_pb";
import { connectClient, startServer, WireLog, type Server } from "../harness";

const recordLength = 2_000_000;
const cycle = ["a1-e5", "j10-f6", "e5-a1", "f6-j10"];
const slowRequest: MessageInitShape<typeof AdjudicateRequestSchema> = {
  variant: { kind: { case: "preset", value: "iggamecenter-10x10" } },
  startPosition: "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 0,0",
  moves: Array.from({ length: recordLength }, (_, i) => cycle[i % cycle.length]),
};

async function failure(p: Promise<unknown>): Promise<ConnectError> {
  const err = await p.then(
    () => assert.fail("the call succeeded"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConnectError, `a ConnectError, got ${String(err)}`);
  return err;
}

describe("DEADLINE_EXCEEDED through Connect", () => {
  let server: Server;
  const wire = new WireLog();
  // Per encoding: the whole call as the client sees it, and from the HTTP
  // request's start to the answer.
  const replay: Record<string, { callMs: number; wireMs: number }> = {};

  before(async () => {
    server = await startServer(["--max_record_moves=2000000", "--max_message_bytes=67108864", "--max_call_seconds=60"]);
  });
  after(async () => {
    wire.close();
    await server?.stop();
  });

  for (const useBinaryFormat of [true, false]) {
    const encoding = useBinaryFormat ? "binary" : "JSON";

    test(`${encoding}: the whole replay without a timeout, for the time it takes`, async (t) => {
      const client = connectClient(server.baseUrl, { useBinaryFormat });
      wire.take();
      const started = performance.now();
      const res = await client.adjudicate(slowRequest);
      const callMs = performance.now() - started;
      const [ex] = wire.take();
      assert.equal(ex.status, 200);
      const wireMs = ex.finishedAt! - ex.startedAt;
      replay[encoding] = { callMs, wireMs };
      t.diagnostic(`${recordLength} moves: the call took ${callMs.toFixed(0)} ms, ${wireMs.toFixed(0)} ms on the wire`);
      assert.equal(res.movesPlayed, recordLength);
      assert.equal(res.finalPosition, "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 1000000,1000000");
      assert.equal(res.illegalMove, undefined);
      assert.deepEqual(
        res.moveCounts.map((c) => c.moves),
        [1_000_000n, 1_000_000n],
      );
    });

    test(`${encoding}: timeoutMs 100`, async (t) => {
      const { callMs } = replay[encoding] ?? assert.fail("no replay time measured");
      const client = connectClient(server.baseUrl, { useBinaryFormat });
      wire.take();
      const started = performance.now();
      const err = await failure(client.adjudicate(slowRequest, { timeoutMs: 100 }));
      const elapsed = performance.now() - started;
      assert.equal(err.code, Code.DeadlineExceeded, `code of ${err.message}`);
      // The client's timer can end the call before its request goes out
      // (serializing 2,000,000 moves takes about that long).
      const [ex] = wire.take();
      if (ex) assert.equal(ex.requestHeaders["connect-timeout-ms"], "100");
      t.diagnostic(
        `ended after ${elapsed.toFixed(0)} ms (the whole call: ${callMs.toFixed(0)} ms): ${err.message}` +
          (ex === undefined
            ? " (the client's timer, before the request went out)"
            : ex.status === undefined
              ? " (the client's timer, before any answer)"
              : ` (HTTP ${ex.status} from the server)`),
      );
    });
  }

  test("Connect-Timeout-Ms 100 alone: the server ends the call with deadline_exceeded, HTTP 504", async (t) => {
    const { wireMs } = replay.binary ?? assert.fail("no replay time measured");
    const client = connectClient(server.baseUrl, { useBinaryFormat: true });
    wire.take();
    // No client timer: only the header, so the answer is the server's.
    const err = await failure(client.adjudicate(slowRequest, { headers: { "Connect-Timeout-Ms": "100" } }));
    assert.equal(err.code, Code.DeadlineExceeded, `code of ${err.message}`);
    assert.match(err.rawMessage, /deadline exceeded/);
    const [ex] = wire.take();
    assert.equal(ex.requestHeaders["connect-timeout-ms"], "100");
    assert.equal(ex.status, 504, "HTTP status for deadline_exceeded");
    assert.equal(String(ex.responseHeaders?.["content-type"]).split(";")[0], "application/json");
    const answeredMs = ex.finishedAt! - ex.startedAt;
    t.diagnostic(
      `the server answered ${answeredMs.toFixed(0)} ms after the request's start ` +
        `(the whole replay: ${wireMs.toFixed(0)} ms): ${err.message}`,
    );
  });

  test("the server still answers after the timeouts", async () => {
    const client = connectClient(server.baseUrl, { useBinaryFormat: false });
    const res = await client.listVariants({});
    assert.equal(res.variants.length, 5);
  });
});
