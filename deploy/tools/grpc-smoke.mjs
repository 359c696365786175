#!/usr/bin/env node
// Calls a running halma-rules server over gRPC with an independent client
// (grpc-js, not the project's C++ code) and checks its answers.
//
//   node deploy/tools/grpc-smoke.mjs --target 127.0.0.1:50051 \
//        [--wait-seconds 30] [--load-calls 0] [--load-concurrency 8]
//
// Checks: grpc.health.v1.Health/Check is SERVING for "" and for
// "halma.v1.HalmaRules"; server reflection lists both services;
// HalmaRules/LegalMoves on the start position of brainking-8x8 answers the
// 24 legal moves of w. With --load-calls N it then makes N LegalMoves calls
// (bounded, to this target only) and prints the rate and latency
// percentiles. Exits 0 when every check passes.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");

const opts = { target: "127.0.0.1:50051", waitSeconds: 30, loadCalls: 0, loadConcurrency: 8 };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, "").replace(/-(.)/g, (_, c) => c.toUpperCase());
  if (!(key in opts)) throw new Error(`unknown option ${process.argv[i]}`);
  opts[key] = typeof opts[key] === "number" ? Number(process.argv[i + 1]) : process.argv[i + 1];
}

const healthProto = path.join(path.dirname(require.resolve("grpc-health-check/package.json")), "proto/health/v1/health.proto");
const reflectionProto = path.join(
  path.dirname(require.resolve("@grpc/reflection/package.json")),
  "build/proto/grpc/reflection/v1alpha/reflection.proto",
);
const loaded = grpc.loadPackageDefinition(
  protoLoader.loadSync([path.join(repo, "proto/halma/v1/halma.proto"), healthProto, reflectionProto], {
    includeDirs: [path.join(repo, "proto")],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
  }),
);

const creds = grpc.credentials.createInsecure();
const health = new loaded.grpc.health.v1.Health(opts.target, creds);
const reflection = new loaded.grpc.reflection.v1alpha.ServerReflection(opts.target, creds);
const rules = new loaded.halma.v1.HalmaRules(opts.target, creds);

const unary = (client, method, request, timeoutMs = 5000) =>
  new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res)));
  });

let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ` (${detail})` : ""}`);
}

// Wait for the server: the channel connects as soon as the port listens.
const t0 = Date.now();
await new Promise((resolve, reject) =>
  health.waitForReady(Date.now() + opts.waitSeconds * 1000, (err) => (err ? reject(err) : resolve())),
).catch((err) => {
  console.log(`FAIL no server at ${opts.target} within ${opts.waitSeconds} s: ${err.message}`);
  process.exit(1);
});
console.log(`connected to ${opts.target} after ${Date.now() - t0} ms`);

for (const service of ["", "halma.v1.HalmaRules"]) {
  try {
    const res = await unary(health, "Check", { service });
    check(`Health/Check "${service}" is SERVING`, res.status === "SERVING", res.status);
  } catch (err) {
    check(`Health/Check "${service}"`, false, err.message);
  }
}

try {
  const services = await new Promise((resolve, reject) => {
    const call = reflection.ServerReflectionInfo({ deadline: Date.now() + 5000 });
    call.on("data", (res) => {
      resolve((res.list_services_response?.service ?? []).map((s) => s.name));
      call.end();
    });
    call.on("error", reject);
    call.write({ host: "", list_services: "*" });
  });
  const want = ["halma.v1.HalmaRules", "grpc.health.v1.Health"];
  check("reflection lists HalmaRules and Health", want.every((s) => services.includes(s)), services.join(", "));
} catch (err) {
  check("reflection ListServices", false, err.message);
}

const request = { variant: { preset: "brainking-8x8" }, position: "" };
try {
  const res = await unary(rules, "LegalMoves", request);
  const first = res.moves[0];
  check(
    "LegalMoves brainking-8x8 start: 24 moves for w",
    res.count === 24 && res.moves.length === 24 && res.status?.to_move === "SEAT_W",
    `count ${res.count}, ${res.moves.length} moves, to move ${res.status?.to_move}, first ${first?.path}`,
  );
} catch (err) {
  check("LegalMoves brainking-8x8 start", false, `${err.code} ${err.message}`);
}

try {
  await unary(rules, "LegalMoves", { variant: { preset: "no-such-variant" } });
  check("LegalMoves with an unknown variant is INVALID_ARGUMENT", false, "answered OK");
} catch (err) {
  check("LegalMoves with an unknown variant is INVALID_ARGUMENT", err.code === grpc.status.INVALID_ARGUMENT, err.details);
}

if (opts.loadCalls > 0) {
  const latencies = [];
  let next = 0;
  let errors = 0;
  const start = process.hrtime.bigint();
  const worker = async () => {
    while (next < opts.loadCalls) {
      next++;
      const t = process.hrtime.bigint();
      try {
        await unary(rules, "LegalMoves", request);
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.loadConcurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]?.toFixed(2);
  console.log(
    `load: ${opts.loadCalls} LegalMoves calls, concurrency ${opts.loadConcurrency}: ` +
      `${(opts.loadCalls / seconds).toFixed(0)} calls/s, p50 ${pct(50)} ms, p99 ${pct(99)} ms, ${errors} errors`,
  );
  check(`load: ${opts.loadCalls} calls without error`, errors === 0, `${errors} errors`);
}

for (const c of [health, reflection, rules]) c.close();
console.log(`grpc-smoke: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
