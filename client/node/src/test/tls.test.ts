// TLS against the server started with the test certificate of
// tests/service/server/testdata (CN/SAN localhost and 127.0.0.1).

import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import { HalmaClient, HalmaError, HealthCheckResponse_ServingStatus, status } from "../index";
import { ServerProcess, TESTDATA } from "./server";

const CERT = path.join(TESTDATA, "server.crt");
const KEY = path.join(TESTDATA, "server.key");

describe("TLS", () => {
  let server: ServerProcess;

  before(async () => {
    server = await ServerProcess.start([`--tls_cert=${CERT}`, `--tls_key=${KEY}`]);
  });

  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  test("a client trusting the test CA calls every RPC over TLS", async () => {
    const client = new HalmaClient(server.target, { tls: { caFile: CERT } });
    try {
      assert.equal((await client.checkHealth()).status, HealthCheckResponse_ServingStatus.SERVING);
      assert.equal((await client.listVariants()).variants.length, 5);
      assert.equal((await client.legalMoves({ variant: { preset: "brainking-8x8" }, origin: "a3" })).count, 3);
      const move = await client.validateMove({ variant: { preset: "brainking-8x8" }, move: "b1-d3" });
      assert.equal(move.positionAfter, "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0");
      const record = await client.adjudicate({ variant: { preset: "brainking-8x8" }, moves: ["b1-d3", "h7-f5"] });
      assert.equal(record.movesPlayed, 2);
    } finally {
      client.close();
    }
  });

  test("the certificate is checked against the name given as serverName", async () => {
    const client = new HalmaClient(`localhost:${server.port}`, { tls: { caFile: CERT, serverName: "localhost" } });
    try {
      assert.equal((await client.checkHealth()).status, HealthCheckResponse_ServingStatus.SERVING);
    } finally {
      client.close();
    }
    const wrong = new HalmaClient(server.target, {
      tls: { caFile: CERT, serverName: "example.invalid" },
      retry: { maxAttempts: 1 },
    });
    try {
      await assert.rejects(wrong.checkHealth(), { code: status.UNAVAILABLE });
    } finally {
      wrong.close();
    }
  });

  test("without the test CA the certificate is refused: UNAVAILABLE", async () => {
    const client = new HalmaClient(server.target, { tls: true, retry: { maxAttempts: 1 }, defaultDeadlineMs: 5000 });
    try {
      await assert.rejects(client.listVariants(), (e: unknown) => {
        assert.ok(e instanceof HalmaError);
        assert.equal(e.code, status.UNAVAILABLE);
        return true;
      });
    } finally {
      client.close();
    }
  });

  test("a plaintext client cannot talk to the TLS server", async () => {
    const client = new HalmaClient(server.target, { retry: { maxAttempts: 1 }, defaultDeadlineMs: 5000 });
    try {
      await assert.rejects(client.listVariants(), (e: unknown) => {
        assert.ok(e instanceof HalmaError);
        assert.equal(e.code, status.UNAVAILABLE);
        return true;
      });
    } finally {
      client.close();
    }
  });

  test("certFile without keyFile is refused at construction", () => {
    assert.throws(() => new HalmaClient(server.target, { tls: { certFile: CERT } }), TypeError);
  });
});
