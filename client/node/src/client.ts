// HalmaClient: a Promise-based client of halma.v1.HalmaRules and
// grpc.health.v1.Health over @grpc/grpc-js, with per-call deadlines, TLS and
// retries of UNAVAILABLE with exponential backoff.

import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";

import {
  AdjudicateRequest,
  AdjudicateResponse,
  DeepPartial,
  HalmaRulesService,
  LegalMovesRequest,
  LegalMovesResponse,
  ListVariantsRequest,
  ListVariantsResponse,
  ValidateMoveRequest,
  ValidateMoveResponse,
} from "./gen/halma/v1/halma";
import { HealthCheckRequest, HealthCheckResponse, HealthService } from "./gen/grpc/health/v1/health";

/** A failed call: the gRPC status code and the server's (or grpc-js's) message. */
export class HalmaError extends Error {
  /** The gRPC status code, e.g. `grpc.status.INVALID_ARGUMENT` (3). */
  readonly code: grpc.status;
  /** The status message, e.g. `variant.preset: variant "x": no such preset, ...`. */
  readonly details: string;
  /** The status code's name, e.g. "INVALID_ARGUMENT". */
  readonly codeName: string;
  /** The full RPC name, e.g. "halma.v1.HalmaRules/LegalMoves". */
  readonly method: string;
  /** How many attempts were made (more than 1 only after UNAVAILABLE). */
  readonly attempts: number;
  /** The trailing metadata of the failed attempt. */
  readonly metadata: grpc.Metadata;

  constructor(method: string, code: grpc.status, details: string, attempts: number, metadata?: grpc.Metadata) {
    const codeName = grpc.status[code] ?? `CODE_${code}`;
    super(`${method}: ${codeName}: ${details}`);
    this.name = "HalmaError";
    this.code = code;
    this.details = details;
    this.codeName = codeName;
    this.method = method;
    this.attempts = attempts;
    this.metadata = metadata ?? new grpc.Metadata();
  }
}

/** Retries of UNAVAILABLE (the only status retried). */
export interface RetryPolicy {
  /** Attempts in all, the first one included; 1 turns retries off. Default 5. */
  maxAttempts: number;
  /** The wait before the second attempt, in ms. Default 100. */
  initialBackoffMs: number;
  /** The longest wait between attempts, in ms. Default 2000. */
  maxBackoffMs: number;
  /** Each wait is this many times the one before (before jitter). Default 2. */
  multiplier: number;
  /** Each wait is drawn from [1 - jitter, 1 + jitter] times its nominal value. Default 0.2. */
  jitter: number;
}

/** What `onRetry` is told before each wait. */
export interface RetryEvent {
  method: string;
  /** The attempt that failed (1-based). */
  attempt: number;
  /** How long the client now waits before the next attempt. */
  delayMs: number;
  error: HalmaError;
}

/** TLS settings: PEM files. With none of them, the system's root CAs are used. */
export interface TlsOptions {
  /** CA certificate(s) that sign the server's certificate. */
  caFile?: string;
  /** Client certificate and key, for servers that ask for one (mutual TLS). */
  certFile?: string;
  keyFile?: string;
  /** Check the certificate against this name instead of the target's host. */
  serverName?: string;
}

export interface HalmaClientOptions {
  /** TLS; absent or false means plaintext (for a local server). */
  tls?: TlsOptions | boolean;
  /** The deadline of a call that sets none, in ms, all attempts included. Default 10000. */
  defaultDeadlineMs?: number;
  /** Overrides of the default retry policy. */
  retry?: Partial<RetryPolicy>;
  /** Called before each retry wait (for logging or counting). */
  onRetry?: (event: RetryEvent) => void;
  /** Extra grpc-js channel options (they win over the client's own). */
  channelOptions?: grpc.ChannelOptions;
}

/** Options of one call. */
export interface CallOptions {
  /**
   * The deadline of this call in ms, counted from when its request has been
   * encoded (at once, unless it is megabytes long), all attempts and waits
   * included. Default: the client's `defaultDeadlineMs`.
   */
  deadlineMs?: number;
  /** Request metadata. */
  metadata?: grpc.Metadata;
  /** Cancels the call (it then fails with CANCELLED). */
  signal?: AbortSignal;
}

/** The defaults of `RetryPolicy`. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
  multiplier: 2,
  jitter: 0.2,
});

/** The default deadline of a call, in ms. */
export const DEFAULT_DEADLINE_MS = 10_000;

interface UnaryMethod<Req, Res> {
  readonly path: string;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly responseDeserialize: (value: Buffer) => Res;
}

function credentialsFor(tls: TlsOptions | boolean | undefined): grpc.ChannelCredentials {
  if (tls === undefined || tls === false) {
    return grpc.credentials.createInsecure();
  }
  const options: TlsOptions = tls === true ? {} : tls;
  if ((options.certFile === undefined) !== (options.keyFile === undefined)) {
    throw new TypeError("HalmaClient: tls.certFile and tls.keyFile go together");
  }
  const read = (file: string | undefined) => (file === undefined ? null : readFileSync(file));
  return grpc.credentials.createSsl(read(options.caFile), read(options.keyFile), read(options.certFile));
}

function checkPolicy(policy: RetryPolicy): RetryPolicy {
  const { maxAttempts, initialBackoffMs, maxBackoffMs, multiplier, jitter } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`HalmaClient: retry.maxAttempts must be an integer >= 1, got ${maxAttempts}`);
  }
  if (!(initialBackoffMs >= 0) || !(maxBackoffMs >= initialBackoffMs)) {
    throw new RangeError("HalmaClient: retry backoffs must satisfy 0 <= initialBackoffMs <= maxBackoffMs");
  }
  if (!(multiplier >= 1)) {
    throw new RangeError(`HalmaClient: retry.multiplier must be >= 1, got ${multiplier}`);
  }
  if (!(jitter >= 0 && jitter < 1)) {
    throw new RangeError(`HalmaClient: retry.jitter must be in [0, 1), got ${jitter}`);
  }
  return policy;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A client of the halma-rules service. One instance holds one channel
 * (HTTP/2 connection) shared by every call; `close()` it when done.
 *
 * Requests take the generated message types, every field optional
 * (`DeepPartial`); answers are the generated message types in full. An
 * illegal move is an answer (`legal: false` with a reason), not an error;
 * failed calls reject with a `HalmaError`.
 */
export class HalmaClient {
  readonly target: string;
  private readonly client: grpc.Client;
  private readonly policy: RetryPolicy;
  private readonly defaultDeadlineMs: number;
  private readonly onRetry?: (event: RetryEvent) => void;
  private closed = false;

  /** `target` is "host:port" (or any grpc-js target, e.g. "dns:///host:port"). */
  constructor(target: string, options: HalmaClientOptions = {}) {
    this.target = target;
    this.policy = checkPolicy({ ...DEFAULT_RETRY_POLICY, ...options.retry });
    this.defaultDeadlineMs = options.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
    if (!(this.defaultDeadlineMs > 0)) {
      throw new RangeError(`HalmaClient: defaultDeadlineMs must be > 0, got ${this.defaultDeadlineMs}`);
    }
    this.onRetry = options.onRetry;
    const tls = typeof options.tls === "object" ? options.tls : undefined;
    const channelOptions: grpc.ChannelOptions = {
      // Reconnect about as fast as the client retries, so that a retry after
      // a server (re)start finds the channel trying again (grpc-js waits 1 s
      // at first and then up to 120 s by default).
      "grpc.initial_reconnect_backoff_ms": Math.max(this.policy.initialBackoffMs, 10),
      "grpc.max_reconnect_backoff_ms": Math.max(this.policy.maxBackoffMs, 10),
      // Answers of LegalMoves on 16x16 boards and long Adjudicate records stay
      // well under this; requests are bounded by the server's own limit.
      "grpc.max_receive_message_length": 16 * 1024 * 1024,
      ...(tls?.serverName !== undefined ? { "grpc.ssl_target_name_override": tls.serverName } : {}),
      ...options.channelOptions,
    };
    this.client = new grpc.Client(target, credentialsFor(options.tls), channelOptions);
  }

  /** Checks one move for the side to move (an empty position is the variant's start). */
  async validateMove(request: DeepPartial<ValidateMoveRequest>, options?: CallOptions): Promise<ValidateMoveResponse> {
    return this.call(HalmaRulesService.validateMove, ValidateMoveRequest.fromPartial(request), options);
  }

  /** Lists the legal moves of the side to move, or only those from `origin`. */
  async legalMoves(request: DeepPartial<LegalMovesRequest>, options?: CallOptions): Promise<LegalMovesResponse> {
    return this.call(HalmaRulesService.legalMoves, LegalMovesRequest.fromPartial(request), options);
  }

  /** Replays a game record; the first illegal move, if any, is in `illegalMove`. */
  async adjudicate(request: DeepPartial<AdjudicateRequest>, options?: CallOptions): Promise<AdjudicateResponse> {
    return this.call(HalmaRulesService.adjudicate, AdjudicateRequest.fromPartial(request), options);
  }

  /** Lists the named variants with their parameters and start positions. */
  async listVariants(options?: CallOptions): Promise<ListVariantsResponse> {
    return this.call(HalmaRulesService.listVariants, ListVariantsRequest.fromPartial({}), options);
  }

  /**
   * grpc.health.v1.Health/Check for `service` ("" is the server as a whole,
   * "halma.v1.HalmaRules" the rules service).
   */
  async checkHealth(service = "", options?: CallOptions): Promise<HealthCheckResponse> {
    return this.call(HealthService.check, HealthCheckRequest.fromPartial({ service }), options);
  }

  /** Closes the channel; calls made (or retried) afterwards fail with CANCELLED. */
  close(): void {
    this.closed = true;
    this.client.close();
  }

  private attempt<Req, Res>(
    method: UnaryMethod<Req, Res>,
    request: Buffer,
    metadata: grpc.Metadata,
    deadline: Date,
    signal: AbortSignal | undefined,
  ): Promise<Res> {
    return new Promise((resolve, reject) => {
      let call: grpc.ClientUnaryCall | undefined;
      const onAbort = () => call?.cancel();
      call = this.client.makeUnaryRequest(
        method.path,
        (bytes: Buffer) => bytes,
        method.responseDeserialize,
        request,
        metadata,
        { deadline },
        (error: grpc.ServiceError | null, response?: Res) => {
          signal?.removeEventListener("abort", onAbort);
          if (error) {
            reject(error);
          } else {
            resolve(response as Res);
          }
        },
      );
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private async call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, options: CallOptions = {}): Promise<Res> {
    const name = method.path.slice(1);
    const deadlineMs = options.deadlineMs ?? this.defaultDeadlineMs;
    if (!(deadlineMs > 0)) {
      throw new RangeError(`HalmaClient: deadlineMs must be > 0, got ${deadlineMs}`);
    }
    // The request is encoded once, for every attempt, before the clock
    // starts: a large record (megabytes) takes a while to encode.
    const bytes = method.requestSerialize(request);
    // One deadline for the whole call: retries never extend it.
    const deadline = new Date(Date.now() + deadlineMs);
    const metadata = options.metadata ?? new grpc.Metadata();
    const { signal } = options;
    let backoff = this.policy.initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) {
        throw new HalmaError(name, grpc.status.CANCELLED, "cancelled by the caller", attempt - 1);
      }
      if (this.closed) {
        throw new HalmaError(name, grpc.status.CANCELLED, "the client is closed", attempt - 1);
      }
      try {
        return await this.attempt(method, bytes, metadata, deadline, signal);
      } catch (e) {
        const se = e as grpc.ServiceError;
        const error = new HalmaError(name, se.code ?? grpc.status.UNKNOWN, se.details ?? String(e), attempt, se.metadata);
        if (error.code !== grpc.status.UNAVAILABLE || attempt >= this.policy.maxAttempts) {
          throw error;
        }
        const { jitter, multiplier, maxBackoffMs } = this.policy;
        const delayMs = Math.round(backoff * (1 - jitter + 2 * jitter * Math.random()));
        // A wait that would outlast the deadline cannot help: report the
        // UNAVAILABLE now rather than a DEADLINE_EXCEEDED later.
        if (Date.now() + delayMs >= deadline.getTime()) {
          throw error;
        }
        this.onRetry?.({ method: name, attempt, delayMs, error });
        await sleep(delayMs, signal);
        backoff = Math.min(backoff * multiplier, maxBackoffMs);
      }
    }
  }
}
