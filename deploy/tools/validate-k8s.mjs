#!/usr/bin/env node
// Validates rendered Kubernetes manifests, strictly, without a cluster.
//
//   node deploy/tools/validate-k8s.mjs [--no-policy] FILE.yaml...
//
// 1. Schema: every object is checked against the Kubernetes API's OpenAPI
//    schema for its apiVersion and kind, with the validators that the
//    `kubernetes-models` package compiles from it (types, required fields,
//    enums, formats). An apiVersion/kind the schema does not know is an error.
// 2. Unknown fields: those validators, like the schema they come from, let
//    unknown fields through (a typo such as `readinessProbes` would pass).
//    So each object is validated through a Proxy that records which fields
//    the validator reads: a field that the schema knows is always read, a
//    field of a map (labels, resources.limits, ...) is reached through the
//    map's key enumeration, and any other field is unknown. This is what
//    `kubectl --validate=strict` reports on a real API server.
// 3. Policy (skipped with --no-policy): checks across the objects of one
//    rendering that the schema cannot express: selectors match the pods,
//    probes are native gRPC probes on the gRPC port, the shutdown budget
//    adds up, the security context is the restricted one, etc. A rendering
//    of Jobs only (deploy/k8s/jobs/*) gets the Job checks instead: bounded,
//    not retried, restricted, and for the conformance Job, halmactl
//    conformance against a Service port, one run at a time.
//
// Exits 0 when every file is valid, 1 otherwise (each problem printed as
// "FILE: Kind/name: path: message").
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const args = process.argv.slice(2);
const policy = !args.includes("--no-policy");
const files = args.filter((a) => !a.startsWith("--"));
if (files.length === 0) {
  console.error("usage: validate-k8s.mjs [--no-policy] FILE.yaml...");
  process.exit(2);
}

// ---------------------------------------------------------------- schema --

const modelCache = new Map();
async function modelFor(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string") return null;
  // "v1" is the core group; "apps/v1" -> kubernetes-models/apps/v1.
  const key = `kubernetes-models/${apiVersion}`;
  if (!modelCache.has(key)) {
    modelCache.set(key, await import(key).catch(() => null));
  }
  const mod = modelCache.get(key);
  const cls = mod && mod[kind];
  return typeof cls === "function" && cls.apiVersion === apiVersion && cls.kind === kind
    ? cls
    : null;
}

// Wraps `root` so that every property read and every key enumeration is
// recorded per object.
function tracked(root) {
  const records = new Map(); // target object -> {read:Set, enumerated:bool}
  const proxies = new Map();
  const wrap = (value) => {
    if (value === null || typeof value !== "object") return value;
    if (proxies.has(value)) return proxies.get(value);
    const rec = { read: new Set(), enumerated: false };
    records.set(value, rec);
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        if (typeof key === "string") rec.read.add(key);
        return wrap(Reflect.get(target, key, receiver));
      },
      has(target, key) {
        if (typeof key === "string") rec.read.add(key);
        return Reflect.has(target, key);
      },
      ownKeys(target) {
        rec.enumerated = true;
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  return { proxy: wrap(root), records };
}

function unknownFields(root, records) {
  const found = [];
  const walk = (value, path) => {
    if (value === null || typeof value !== "object") return;
    const rec = records.get(value);
    if (!rec) return; // never reached: a free-form value the schema does not describe
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${path}[${i}]`));
      return;
    }
    for (const key of Object.keys(value)) {
      const sub = path ? `${path}.${key}` : key;
      if (!rec.enumerated && !rec.read.has(key)) {
        found.push(sub);
        continue;
      }
      walk(value[key], sub);
    }
  };
  walk(root, "");
  return found;
}

async function schemaProblems(obj) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    return ["document is not an object"];
  }
  const cls = await modelFor(obj.apiVersion, obj.kind);
  if (!cls) {
    return [`unknown apiVersion/kind ${obj.apiVersion}/${obj.kind}`];
  }
  const problems = [];
  const { proxy, records } = tracked(obj);
  try {
    cls.prototype.validate.call(proxy);
  } catch (err) {
    for (const e of err.errors ?? [{ message: err.message, instancePath: "" }]) {
      const where = (e.instancePath || "")
        .split("/")
        .slice(1)
        .map((k) => (/^\d+$/.test(k) ? `[${k}]` : `.${k.replaceAll("~1", "/").replaceAll("~0", "~")}`))
        .join("")
        .replace(/^\./, "");
      const params = e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : "";
      problems.push(`${where || "(root)"}: ${e.message ?? e.keyword}${params}`);
    }
  }
  for (const path of unknownFields(obj, records)) {
    problems.push(`${path}: unknown field`);
  }
  return problems;
}

// ---------------------------------------------------------------- policy --

const get = (obj, path) => path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
const matches = (selector, labels) =>
  !!selector && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function policyProblems(objs) {
  const out = [];
  const add = (o, msg) => out.push({ obj: o, msg });
  const byKind = (kind) => objs.filter((o) => o.kind === kind);
  const deployments = byKind("Deployment");
  const hpas = byKind("HorizontalPodAutoscaler");

  for (const o of objs) {
    if (!o.metadata?.name) add(o, "metadata.name: missing");
  }
  const namespaces = new Set(
    objs.filter((o) => o.kind !== "Namespace" && o.metadata?.namespace).map((o) => o.metadata.namespace),
  );
  if (namespaces.size > 1) add(objs[0], `objects spread over namespaces ${[...namespaces]}`);

  const jobs = byKind("Job");
  for (const j of jobs) jobProblems(j, add);
  if (deployments.length === 0 && jobs.length > 0) return out;
  if (deployments.length === 0) add(objs[0], "no Deployment in this rendering");
  for (const d of deployments) {
    const spec = d.spec ?? {};
    const pod = spec.template?.spec ?? {};
    const podLabels = spec.template?.metadata?.labels ?? {};
    if (!matches(spec.selector?.matchLabels, podLabels)) {
      add(d, "spec.selector does not match the pod template's labels");
    }
    const hpa = hpas.find((h) => h.spec?.scaleTargetRef?.kind === "Deployment" && h.spec.scaleTargetRef.name === d.metadata?.name);
    if (!hpa) add(d, "no HorizontalPodAutoscaler targets this Deployment");
    else {
      if (spec.replicas !== undefined) add(d, "spec.replicas is set although an HPA owns the count");
      if (!(hpa.spec.minReplicas >= 2)) add(hpa, "spec.minReplicas must be at least 2");
      const cpu = (hpa.spec.metrics ?? []).some((m) => m.type === "Resource" && m.resource?.name === "cpu");
      if (!cpu) add(hpa, "no CPU metric");
    }
    const sc = pod.securityContext ?? {};
    if (sc.runAsNonRoot !== true) add(d, "pod securityContext.runAsNonRoot must be true");
    if (sc.seccompProfile?.type !== "RuntimeDefault") add(d, "pod seccompProfile must be RuntimeDefault");
    if (!(pod.topologySpreadConstraints ?? []).some((t) => t.topologyKey === "kubernetes.io/hostname")) {
      add(d, "no topology spread across nodes (kubernetes.io/hostname)");
    }
    for (const c of pod.containers ?? []) {
      const at = `container ${c.name}`;
      // A tag other than latest, or a digest: nodes pull what was meant.
      const image = String(c.image ?? "");
      const tag = image.includes("@") ? "digest" : image.split("/").pop().split(":")[1];
      if (!tag || tag === "latest") add(d, `${at}: image ${image} has no pinned tag`);
      const csc = c.securityContext ?? {};
      if (csc.allowPrivilegeEscalation !== false) add(d, `${at}: allowPrivilegeEscalation must be false`);
      if (csc.readOnlyRootFilesystem !== true) add(d, `${at}: readOnlyRootFilesystem must be true`);
      if (csc.privileged === true) add(d, `${at}: privileged`);
      if (!(csc.capabilities?.drop ?? []).includes("ALL")) add(d, `${at}: capabilities must drop ALL`);
      if ((csc.capabilities?.add ?? []).length) add(d, `${at}: adds capabilities`);
      for (const kind of ["requests", "limits"]) {
        for (const res of ["cpu", "memory"]) {
          if (c.resources?.[kind]?.[res] === undefined) add(d, `${at}: resources.${kind}.${res} missing`);
        }
      }
      const grpcPort = (c.ports ?? []).find((p) => p.name === "grpc")?.containerPort;
      if (grpcPort === undefined) add(d, `${at}: no port named grpc`);
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
        const p = c[probe];
        if (!p?.grpc) add(d, `${at}: ${probe} must be a native gRPC probe`);
        else if (p.grpc.port !== grpcPort) add(d, `${at}: ${probe} port ${p.grpc.port} is not the grpc port ${grpcPort}`);
      }
      const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
      if (env.HALMA_PORT !== undefined && Number(env.HALMA_PORT) !== grpcPort) {
        add(d, `${at}: HALMA_PORT ${env.HALMA_PORT} is not the grpc port ${grpcPort}`);
      }
      if (!(Number(env.HALMA_MAX_CONNECTION_AGE_SECONDS) > 0)) {
        add(d, `${at}: HALMA_MAX_CONNECTION_AGE_SECONDS must be set (> 0) so that clients rebalance`);
      }
      // preStop sleep + the server's NOT_SERVING delay + its drain must fit
      // in the grace period.
      const grace = Number(env.HALMA_GRACE_PERIOD_SECONDS ?? 10);
      const delay = Number(env.HALMA_SHUTDOWN_DELAY_SECONDS ?? 0);
      const preStop = c.lifecycle?.preStop?.sleep?.seconds ?? 0;
      const tgps = pod.terminationGracePeriodSeconds ?? 30;
      if (!(tgps > preStop + delay + grace)) {
        add(d, `${at}: terminationGracePeriodSeconds ${tgps} must exceed preStop ${preStop} s + shutdown delay ${delay} s + drain ${grace} s`);
      }
      // The HTTP/2 limits gRPC 1.51 lacks are the front proxy's.
      if (!env.HALMA_FRONT_PROXY) {
        add(d, `${at}: HALMA_FRONT_PROXY must be set (gRPC 1.51 alone cannot hold hostile clients: docs/security.md)`);
      }
    }
  }

  const pods = deployments.map((d) => d.spec?.template ?? {});
  const portNames = new Set(pods.flatMap((t) => (t.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).flatMap((p) => [p.name, p.containerPort]))));
  const services = byKind("Service");
  if (!services.some((s) => s.spec?.clusterIP === "None")) add(objs[0], "no headless Service");
  if (!services.some((s) => (s.spec?.type ?? "ClusterIP") === "ClusterIP" && s.spec?.clusterIP !== "None")) {
    add(objs[0], "no ClusterIP Service");
  }
  for (const s of services) {
    if (!pods.some((t) => matches(s.spec?.selector, t.metadata?.labels))) add(s, "selector matches no pod template");
    for (const p of s.spec?.ports ?? []) {
      if (!portNames.has(p.targetPort ?? p.port)) add(s, `port ${p.name}: targetPort ${p.targetPort} is no container port`);
    }
  }
  const pdbs = byKind("PodDisruptionBudget");
  if (pdbs.length === 0) add(objs[0], "no PodDisruptionBudget");
  for (const b of pdbs) {
    if (!pods.some((t) => matches(b.spec?.selector?.matchLabels, t.metadata?.labels))) add(b, "selector matches no pod template");
  }
  const policies = byKind("NetworkPolicy");
  if (policies.length === 0) add(objs[0], "no NetworkPolicy");
  for (const n of policies) {
    if (!pods.some((t) => matches(n.spec?.podSelector?.matchLabels, t.metadata?.labels))) add(n, "podSelector matches no pod template");
    const ports = (n.spec?.ingress ?? []).flatMap((r) => r.ports ?? [{ port: "(all)" }]);
    const grpcPorts = [...portNames].filter((p) => typeof p === "number");
    for (const p of ports) {
      if (!grpcPorts.includes(p.port) && p.port !== "grpc") add(n, `ingress admits port ${p.port}, not only the gRPC port`);
    }
    if (ports.length === 0) add(n, "ingress admits nothing");
  }
  return out;
}

// The checks of a Job's pod: bounded in time, no retries of a failed run,
// the restricted security context, resources set, pinned images. A
// conformance Job (component "conformance") runs `halmactl conformance`
// with a --target and a --suite in every container, and at most one of them
// as a regular container (the others are init containers): two runs at
// once could meet in a pod that replays one record at a time. Its pods must
// not carry the server's labels, or the Services would route to them.
function jobProblems(job, add) {
  const spec = job.spec ?? {};
  const pod = spec.template?.spec ?? {};
  const labels = spec.template?.metadata?.labels ?? {};
  if (spec.backoffLimit === undefined) add(job, "spec.backoffLimit must be set");
  if (!(spec.activeDeadlineSeconds > 0)) add(job, "spec.activeDeadlineSeconds must bound the run");
  if (!(spec.ttlSecondsAfterFinished >= 0)) add(job, "spec.ttlSecondsAfterFinished must be set (finished Jobs are removed)");
  if (!["Never", "OnFailure"].includes(pod.restartPolicy)) add(job, "pod restartPolicy must be Never or OnFailure");
  if (pod.automountServiceAccountToken !== false) add(job, "pod automountServiceAccountToken must be false");
  const sc = pod.securityContext ?? {};
  if (sc.runAsNonRoot !== true) add(job, "pod securityContext.runAsNonRoot must be true");
  if (sc.seccompProfile?.type !== "RuntimeDefault") add(job, "pod seccompProfile must be RuntimeDefault");
  if (labels["app.kubernetes.io/component"] === "server") add(job, "pod labels are the server's: the Services would select it");
  const all = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
  for (const c of all) {
    const at = `container ${c.name}`;
    const image = String(c.image ?? "");
    const tag = image.includes("@") ? "digest" : image.split("/").pop().split(":")[1];
    if (!tag || tag === "latest") add(job, `${at}: image ${image} has no pinned tag`);
    const csc = c.securityContext ?? {};
    if (csc.allowPrivilegeEscalation !== false) add(job, `${at}: allowPrivilegeEscalation must be false`);
    if (csc.readOnlyRootFilesystem !== true) add(job, `${at}: readOnlyRootFilesystem must be true`);
    if (csc.privileged === true) add(job, `${at}: privileged`);
    if (!(csc.capabilities?.drop ?? []).includes("ALL")) add(job, `${at}: capabilities must drop ALL`);
    for (const kind of ["requests", "limits"]) {
      for (const res of ["cpu", "memory"]) {
        if (c.resources?.[kind]?.[res] === undefined) add(job, `${at}: resources.${kind}.${res} missing`);
      }
    }
  }
  if (labels["app.kubernetes.io/component"] === "conformance") {
    if ((pod.containers ?? []).length > 1) add(job, "conformance runs must not overlap: one container, the others init containers");
    for (const c of all) {
      const argv = [...(c.command ?? []), ...(c.args ?? [])];
      const at = `container ${c.name}`;
      if (!/(^|\/)halmactl$/.test(argv[0] ?? "") || argv[1] !== "conformance") add(job, `${at}: expected halmactl conformance, got ${argv.join(" ")}`);
      if (!argv.some((a) => /^--target=[^:]+:\d+$/.test(a))) add(job, `${at}: no --target=HOST:PORT`);
      if (!argv.some((a) => a.startsWith("--suite="))) add(job, `${at}: no --suite=`);
    }
  }
}

// ------------------------------------------------------------------ main --

const label = (o) => `${o?.kind ?? "?"}/${o?.metadata?.name ?? "?"}`;
let failures = 0;
for (const file of files) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"), { uniqueKeys: true });
  const objs = [];
  for (const doc of docs) {
    if (doc.errors.length) {
      for (const e of doc.errors) console.log(`${file}: YAML: ${e.message}`);
      failures += doc.errors.length;
      continue;
    }
    const obj = doc.toJS();
    if (obj == null) continue;
    objs.push(obj);
    for (const p of await schemaProblems(obj)) {
      console.log(`${file}: ${label(obj)}: ${p}`);
      failures++;
    }
  }
  if (objs.length === 0) {
    console.log(`${file}: no objects`);
    failures++;
  } else if (policy) {
    for (const { obj, msg } of policyProblems(objs)) {
      console.log(`${file}: ${label(obj)}: policy: ${msg}`);
      failures++;
    }
  }
  const kinds = objs.map((o) => o.kind).join(", ");
  console.log(`${file}: ${objs.length} objects (${kinds})`);
}
if (failures) {
  console.log(`validate-k8s: ${failures} problem(s)`);
  process.exit(1);
}
console.log(`validate-k8s: ${files.length} file(s) valid`);
