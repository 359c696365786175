// HalmaClient: a Promise-based client of halma.v1.HalmaRules and
// grpc.health.v1.Health over @grpc/grpc-js, with per-call deadlines, TLS and
// retries of UNAVAILABLE with exponential backoff. A unary RPC is one method
// of one line (`this.call(HalmaRulesService.name, Request.fromPartial(request),
// options)`); AdjudicateStream's call is in stream.ts.

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
  PerftRequest,
  PerftResponse,
  SuggestMoveRequest,
  SuggestMoveResponse,
  ValidateMoveRequest,
  ValidateMoveResponse,
} from "./gen/halma/v1/halma";
import { HealthCheckRequest, HealthCheckResponse, HealthService } from "./gen/grpc/health/v1/health";
import { HalmaError } from "./errors";
import {
  CallOptions,
  DEFAULT_DEADLINE_MS,
  DEFAULT_RETRY_POLICY,
  HalmaClientOptions,
  RetryEvent,
  RetryPolicy,
  TlsOptions,
} from "./options";
import { AdjudicateStreamCall, StreamOptions, StreamRecord } from "./stream";

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

  /**
   * Counts the move sequences of `depth` plies from `position` (perft,
   * docs/perft.md); with `splitByFirstMove`, `firstMoves` gives each first
   * move's count in the order `legalMoves` lists the moves. Counts are
   * `bigint`. A depth beyond the server's --max_perft_depth is
   * INVALID_ARGUMENT; a count that outlasts the deadline DEADLINE_EXCEEDED.
   */
  async perft(request: DeepPartial<PerftRequest>, options?: CallOptions): Promise<PerftResponse> {
    return this.call(HalmaRulesService.perft, PerftRequest.fromPartial(request), options);
  }

  /**
   * A move for the side to move, from the service's search (docs/bot.md):
   * in `position` (empty: the variant's start) after `moves` (each legal,
   * as `adjudicate` takes them), at `level` 1 (beginner) to 8 (0: the
   * default, 5) or within an explicit budget (`maxNodes` with `maxDepth`,
   * and/or `maxTimeMs`). With a level or a node budget the answer is a
   * function of the request: the same `seed` (a bigint) gives the same
   * move on every server. `candidates` (1 to 16) ranks that many moves,
   * best first, with their scores (hints); `move` is as `legalMoves` gives
   * it (a pass is path "pass"). A finished game or a bad level is
   * INVALID_ARGUMENT naming the field; a search that outlasts the deadline
   * DEADLINE_EXCEEDED, unless `bestSoFar` (then `stopReason` is
   * STOP_REASON_INTERRUPTED).
   */
  async suggestMove(request: DeepPartial<SuggestMoveRequest>, options?: CallOptions): Promise<SuggestMoveResponse> {
    return this.call(HalmaRulesService.suggestMove, SuggestMoveRequest.fromPartial(request), options);
  }

  /**
   * Adjudicates many records on one AdjudicateStream call. `records` is any
   * iterable or async iterable of `{ id, record }` or `[id, record]`; the
   * call is an async iterable of one `StreamResult` per record, in input
   * order: its `response` (an illegal move included) or its `error` (a
   * malformed record's INVALID_ARGUMENT and the like); the stream goes on
   * after either.
   *
   * At most `window` (default 32) records are taken from the input and not
   * yet answered: the input is read lazily as results are taken. The
   * deadline (`deadlineMs`, default the client's) covers the whole stream,
   * resends included: give a batch the time it needs. When the stream ends
   * UNAVAILABLE (a server shutting down answers what it received first),
   * the unanswered records are sent again, in order and with their ids, on
   * a new stream, then the rest: at most `retry.maxAttempts` streams in a
   * row that answer nothing, with the retry backoff between them, never
   * past the deadline. Any other failure, or retries used up, throws a
   * `HalmaStreamError` saying how many records were answered and which
   * were not. Leaving the loop early cancels the call; so does `signal`.
   */
  adjudicateStream(records: Iterable<StreamRecord> | AsyncIterable<StreamRecord>, options: StreamOptions = {}): AdjudicateStreamCall {
    const context = { client: this.client, policy: this.policy, onRetry: this.onRetry, isClosed: () => this.closed };
    return new AdjudicateStreamCall(context, records, options, this.defaultDeadlineMs);
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
