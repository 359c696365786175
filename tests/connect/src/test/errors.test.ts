// Errors through the Connect protocol: INVALID_ARGUMENT as the protocol's
// JSON error body with HTTP 400, surfacing as a ConnectError with the code
// and the server's message, for POST and GET in both encodings.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { assertOneExchange, connectClient, modes, startServer, WireLog, type Server } from "../harness";
import { badPresetMessage } from "../expected";

const bad = { kind: { case: "preset" as const, value: "brainking-9x9" } };

describe("INVALID_ARGUMENT through Connect", () => {
  let server: Server;
  const wire = new WireLog();

  before(async () => {
    server = await startServer();
  });
  after(async () => {
    wire.close();
    await server?.stop();
  });

  for (const mode of modes) {
    const calls = {
      LegalMoves: (c: ReturnType<typeof connectClient>) => c.legalMoves({ variant: bad }),
      ValidateMove: (c: ReturnType<typeof connectClient>) => c.validateMove({ variant: bad, move: "b1-d3" }),
      Adjudicate: (c: ReturnType<typeof connectClient>) => c.adjudicate({ variant: bad, moves: ["b1-d3"] }),
    };
    for (const [method, call] of Object.entries(calls)) {
      test(`${method}, ${mode.name}: preset brainking-9x9`, async () => {
        const client = connectClient(server.baseUrl, mode);
        wire.take();
        const err = await call(client).then(
          () => assert.fail("the call succeeded"),
          (e: unknown) => e,
        );
        assert.ok(err instanceof ConnectError, `a ConnectError, got ${String(err)}`);
        assert.equal(err.code, Code.InvalidArgument, `code of ${err.message}`);
        assert.equal(err.rawMessage, badPresetMessage);
        assert.equal(err.message, `[invalid_argument] ${badPresetMessage}`);
        assert.deepEqual(err.details, []);
        // The protocol's HTTP status for invalid_argument, and a JSON body.
        assertOneExchange(wire, mode, method, 400);
      });
    }
  }
});
