// Test helper: the real halma_server binary as a child process on 127.0.0.1.
// The binary's path comes from $HALMA_SERVER (test.sh sets it).

import { ChildProcess, spawn } from "node:child_process";
import * as http from "node:http";
import { createServer } from "node:net";
import * as path from "node:path";

const LISTEN_LINE = /halma_server listening on (\S+):(\d+)/;
const HTTP_PORT = /"http_port":(\d+)/;

export const REPO = path.resolve(__dirname, "../../../..");
export const TESTDATA = path.join(REPO, "tests/service/server/testdata");

export function serverBinary(): string {
  const binary = process.env.HALMA_SERVER;
  if (!binary) {
    throw new Error("set HALMA_SERVER to the halma_server binary (test.sh does)");
  }
  return binary;
}

export class ServerProcess {
  readonly port: number;
  readonly target: string;
  /** The port of its HTTP listener (metrics), 0 if none. */
  readonly httpPort: number;
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  readonly stderr: string[];

  private constructor(child: ChildProcess, port: number, httpPort: number, stderr: string[], exited: Promise<number | null>) {
    this.child = child;
    this.port = port;
    this.httpPort = httpPort;
    this.target = `127.0.0.1:${port}`;
    this.stderr = stderr;
    this.exited = exited;
  }

  /** Starts the server with `--host=127.0.0.1 --port=PORT` (0: a free one) and `flags`. */
  static start(flags: string[] = [], port = 0): Promise<ServerProcess> {
    const child = spawn(serverBinary(), ["--host=127.0.0.1", `--port=${port}`, "--http_port=0", ...flags], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    const stderr: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    return new Promise((resolve, reject) => {
      let buffered = "";
      let found = false;
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`halma_server did not report its port in 30 s; stderr:\n${stderr.join("\n")}`));
      }, 30_000);
      child.stderr!.setEncoding("utf8");
      child.stderr!.on("data", (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          stderr.push(line);
          const match = LISTEN_LINE.exec(line);
          if (match && !found) {
            found = true;
            clearTimeout(timer);
            const httpPort = Number(HTTP_PORT.exec(line)?.[1] ?? 0);
            resolve(new ServerProcess(child, Number(match[2]), httpPort, stderr, exited));
          }
        }
      });
      child.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      void exited.then((code) => {
        if (!found) {
          clearTimeout(timer);
          reject(new Error(`halma_server exited (${code}) before listening; stderr:\n${stderr.join("\n")}`));
        }
      });
    });
  }

  /** The sum of a Prometheus metric's samples with these labels (GET /metrics). */
  metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
    return new Promise((resolve, reject) => {
      const request = http.get({ host: "127.0.0.1", port: this.httpPort, path: "/metrics", timeout: 10_000 }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          let total = 0;
          for (const line of text.split("\n")) {
            if (line.startsWith(`${name}{`) && wanted.every((label) => line.includes(label))) {
              total += Number(line.slice(line.lastIndexOf(" ") + 1));
            }
          }
          resolve(total);
        });
        response.on("error", reject);
      });
      request.on("timeout", () => request.destroy(new Error("GET /metrics timed out")));
      request.on("error", reject);
    });
  }

  /** SIGTERM, then SIGKILL after 15 s; resolves to the exit code (null if killed). */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => {
        console.error(`halma_server did not stop in 15 s; stderr:\n${this.stderr.join("\n")}`);
        this.child.kill("SIGKILL");
      }, 15_000);
      try {
        return await this.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    return this.exited;
  }
}

/** A loopback port that was free a moment ago (for a server started later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
