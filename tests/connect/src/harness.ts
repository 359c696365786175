// Starts halma_server on loopback with an HTTP/1.1 Connect listener, builds
// Connect clients for it, and records what went over the wire.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import diagnostics_channel from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { HalmaRules } from "./gen/halma/v1/halma_pb";

export interface Server {
  grpcPort: number;
  httpPort: number;
  baseUrl: string;
  stderr(): string;
  /** Sends SIGTERM and asserts a clean exit (status 0, no signal). */
  stop(): Promise<void>;
}

const startupTimeoutMs = 15_000;
const stopTimeoutMs = 20_000;

function serverBinary(): string {
  const binary = process.env.HALMA_SERVER;
  if (!binary) {
    throw new Error("HALMA_SERVER is not set (the path of halma_server)");
  }
  return binary;
}

/** Starts the server on 127.0.0.1 with --port=0 --http_port=0 (and extra flags). */
export async function startServer(extraArgs: string[] = []): Promise<Server> {
  const args = ["--host=127.0.0.1", "--port=0", "--http_port=0", ...extraArgs];
  const child: ChildProcess = spawn(serverBinary(), args, {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const ports = await new Promise<{ grpcPort: number; httpPort: number }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`halma_server did not start within ${startupTimeoutMs} ms:\n${stderr}`));
    }, startupTimeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`halma_server exited (${code ?? signal}) before listening:\n${stderr}`));
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk;
      const line = /halma_server listening on 127\.0\.0\.1:(\d+) .*?http 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (line) {
        clearTimeout(timer);
        resolve({ grpcPort: Number(line[1]), httpPort: Number(line[2]) });
      }
    });
  });
  let stopped = false;
  return {
    ...ports,
    baseUrl: `http://127.0.0.1:${ports.httpPort}`,
    stderr: () => stderr,
    async stop() {
      if (stopped) return;
      stopped = true;
      child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        exited,
        new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), stopTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (result === "timeout") {
        child.kill("SIGKILL");
        await exited;
        assert.fail(`halma_server did not exit within ${stopTimeoutMs} ms of SIGTERM:\n${stderr}`);
      }
      assert.deepEqual(result, { code: 0, signal: null }, `halma_server's exit after SIGTERM:\n${stderr}`);
    },
  };
}

export interface Mode {
  name: string;
  useBinaryFormat: boolean;
  useHttpGet: boolean;
}

export const modes: Mode[] = [
  { name: "POST application/json", useBinaryFormat: false, useHttpGet: false },
  { name: "POST application/proto", useBinaryFormat: true, useHttpGet: false },
  { name: "GET encoding=json", useBinaryFormat: false, useHttpGet: true },
  { name: "GET encoding=proto", useBinaryFormat: true, useHttpGet: true },
];

/** A Connect client of halma.v1.HalmaRules over HTTP/1.1. */
export function connectClient(
  baseUrl: string,
  opts: { useBinaryFormat: boolean; useHttpGet?: boolean },
): Client<typeof HalmaRules> {
  const transport = createConnectTransport({
    baseUrl,
    httpVersion: "1.1",
    useBinaryFormat: opts.useBinaryFormat,
    useHttpGet: opts.useHttpGet ?? false,
  });
  return createClient(HalmaRules, transport);
}

/** One HTTP exchange as node's http client saw it. */
export interface Exchange {
  method: string;
  path: string;
  requestHeaders: Record<string, unknown>;
  /** performance.now() when the request started, and when its response ended. */
  startedAt: number;
  finishedAt?: number;
  status?: number;
  httpVersion?: string;
  responseHeaders?: Record<string, unknown>;
}

/** Records every HTTP/1.1 request node's http client makes (and its response). */
export class WireLog {
  readonly exchanges: Exchange[] = [];
  private readonly byRequest = new Map<ClientRequest, Exchange>();
  private readonly onStart = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    // Node 20 publishes this twice for a bodiless request whose headers
    // were flushed first (connect-node's GET): count each request once.
    if (this.byRequest.has(request)) return;
    const exchange: Exchange = {
      method: request.method,
      path: request.path,
      requestHeaders: request.getHeaders(),
      startedAt: performance.now(),
    };
    this.byRequest.set(request, exchange);
    this.exchanges.push(exchange);
  };
  private readonly onResponse = (message: unknown) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const exchange = this.byRequest.get(request);
    if (exchange) {
      exchange.finishedAt = performance.now();
      exchange.status = response.statusCode;
      exchange.httpVersion = response.httpVersion;
      exchange.responseHeaders = { ...response.headers };
    }
  };

  constructor() {
    diagnostics_channel.subscribe("http.client.request.start", this.onStart);
    diagnostics_channel.subscribe("http.client.response.finish", this.onResponse);
  }

  /** The exchanges since the last take(), which are then forgotten. */
  take(): Exchange[] {
    const taken = this.exchanges.splice(0);
    this.byRequest.clear();
    return taken;
  }

  close(): void {
    diagnostics_channel.unsubscribe("http.client.request.start", this.onStart);
    diagnostics_channel.unsubscribe("http.client.response.finish", this.onResponse);
  }
}

/** Asserts that exactly one exchange was made, in the given mode, to the method. */
export function assertOneExchange(log: WireLog, mode: Mode, method: string, status = 200): Exchange {
  const exchanges = log.take();
  assert.equal(exchanges.length, 1, `HTTP requests for one call: ${JSON.stringify(exchanges)}`);
  const [ex] = exchanges;
  const path = `/halma.v1.HalmaRules/${method}`;
  assert.equal(ex.httpVersion, "1.1", "response HTTP version");
  assert.equal(ex.status, status, `HTTP status of ${ex.method} ${ex.path}`);
  if (mode.useHttpGet) {
    assert.equal(ex.method, "GET");
    const url = new URL(ex.path, "http://x");
    assert.equal(url.pathname, path);
    assert.equal(url.searchParams.get("encoding"), mode.useBinaryFormat ? "proto" : "json");
    assert.equal(url.searchParams.get("connect"), "v1");
    assert.equal(url.searchParams.get("base64"), mode.useBinaryFormat ? "1" : null);
    assert.ok(url.searchParams.has("message"), "GET has a message parameter");
  } else {
    assert.equal(ex.method, "POST");
    assert.equal(ex.path, path);
    assert.equal(ex.requestHeaders["content-type"], mode.useBinaryFormat ? "application/proto" : "application/json");
  }
  const contentType = String(ex.responseHeaders?.["content-type"] ?? "");
  const expected = status !== 200 || !mode.useBinaryFormat ? "application/json" : "application/proto";
  assert.equal(contentType.split(";")[0].trim(), expected, "response Content-Type");
  return ex;
}
