// The worked example end to end: `node dist/example.js 127.0.0.1:PORT`.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import { HalmaClient } from "../index";
import { ServerProcess, TESTDATA } from "./server";

const run = promisify(execFile);
const EXAMPLE = path.resolve(__dirname, "../example.js");

async function checkOutput(stdout: string, target: string, options = {}): Promise<void> {
  const lines = stdout.split("\n");
  assert.equal(lines[0], "health: SERVING");
  assert.equal(lines[1], "variants (5):");
  assert.match(stdout, /^ {2}brainking-8x8: 8x8, 10 pieces per seat, from BrainKing Halma 8x8$/m);
  assert.match(stdout, /^legal moves from a3: a3-a5 \(1 hops\), a3-b4 \(0 hops\), a3-c3 \(1 hops\)$/m);
  assert.match(stdout, /^validate b1-d3: legal=true, position after: 4bbbb\/5bbb\/6bb\/7b\/w7\/ww1w4\/www5\/w1ww4 b 1,0$/m);
  assert.match(stdout, /^validate a1-b2: legal=false, ILLEGAL_REASON_DESTINATION_OCCUPIED: b2 is occupied$/m);
  assert.match(stdout, /^ply 1: w plays a1-c3 \(of 24 legal moves\)$/m);
  assert.match(stdout, /^ply 6: b plays /m);
  assert.match(stdout, /^ {2}moves played: 6, final position: /m);
  assert.match(stdout, /^ {2}move counts: w 3, b 3$/m);
  assert.match(stdout, /^ {2}illegal move at ply 7: a1-b2: /m);
  assert.match(stdout, /^perft depth 2 from the start: 576 sequences, 24 first moves \(a1-c3: 24\)$/m);
  const stream = lines.indexOf("adjudicateStream, three records on one call:");
  assert.ok(stream > 0, stdout);
  assert.deepEqual(lines.slice(stream + 1, stream + 4), [
    "  played: 6 moves played, w to move",
    "  bad: 6 moves played, illegal move at ply 7",
    `  malformed: error INVALID_ARGUMENT: moves[0] (ply 1): move "b1-z9": square 2: square "z9": file 'z' is off the 8x8 board, expected a..h`,
  ]);
  assert.match(stdout, /^an unknown preset: INVALID_ARGUMENT: variant\.preset: variant "brainking-9x9": no such preset/m);
  // The move is the bot's to choose: legal, and level 4's best.
  const hint = /^suggest after b1-d3 \(level 4, seed 7\): b plays (\S+); best 3: (\S+), (\S+), (\S+)$/m.exec(stdout);
  assert.ok(hint, stdout);
  const [, move, ...best] = hint;
  assert.equal(move, best[0]);
  const client = new HalmaClient(target, options);
  try {
    for (const path of best) {
      const answer = await client.validateMove({ variant: { preset: "brainking-8x8" }, position: "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0", move: path });
      assert.equal(answer.legal, true, path);
    }
  } finally {
    client.close();
  }
}

describe("example.js", () => {
  let server: ServerProcess;
  let tlsServer: ServerProcess;
  const cert = path.join(TESTDATA, "server.crt");

  before(async () => {
    server = await ServerProcess.start();
    tlsServer = await ServerProcess.start([`--tls_cert=${cert}`, `--tls_key=${path.join(TESTDATA, "server.key")}`]);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
    assert.equal(await tlsServer?.stop(), 0);
  });

  test("plays a short game in plaintext", async () => {
    const { stdout, stderr } = await run(process.execPath, [EXAMPLE, server.target], { timeout: 30_000 });
    assert.equal(stderr, "");
    await checkOutput(stdout, server.target);
  });

  test("plays the same game over TLS with --ca", async () => {
    const { stdout } = await run(process.execPath, [EXAMPLE, tlsServer.target, "--ca", cert], { timeout: 30_000 });
    await checkOutput(stdout, tlsServer.target, { tls: { caFile: cert } });
  });

  test("exits 2 on a usage error and 1 on an unreachable server", async () => {
    await assert.rejects(run(process.execPath, [EXAMPLE]), { code: 2 });
    await assert.rejects(run(process.execPath, [EXAMPLE, "127.0.0.1:1"], { timeout: 30_000 }), { code: 1 });
  });
});
