// AdjudicateStream: many game records on one bidirectional call, as an
// async iterable of results in input order.
//
// The server answers records in the order they arrive and reads the next
// one only as fast as the client reads answers (halma.proto). On top of
// the raw call this adds:
// - a bounded window: at most `window` records are taken from the input
//   and not yet answered; the input is read lazily, only when an answer
//   has freed a place, so memory is bounded however long the input, and a
//   caller that stops reading results stops the input being read;
// - resending on UNAVAILABLE: a server shutting down answers the records
//   it has received and ends the stream UNAVAILABLE; the records sent but
//   not answered are sent again, first and in order, with their ids, on a
//   new stream, then the rest of the input: every record is answered once,
//   in input order;
// - errors that say how far it got: HalmaStreamError's `answered` (the
//   first `answered` records of the input got their results) and
//   `unanswered` (the records taken from the input without an answer).

import * as grpc from "@grpc/grpc-js";

import { AdjudicateRequest, AdjudicateResponse, AdjudicateStreamRequest, AdjudicateStreamResponse, DeepPartial, HalmaRulesService } from "./gen/halma/v1/halma";
import { HalmaError } from "./errors";
import { CallOptions, RetryEvent, RetryPolicy } from "./options";

/** Records taken from the input and not yet answered, unless told. */
export const DEFAULT_WINDOW = 32;

/** One record of the input: `{ id, record }` or an `[id, record]` pair. */
export type StreamRecord = DeepPartial<AdjudicateStreamRequest> | readonly [string, DeepPartial<AdjudicateRequest>];

/** Why one record got no adjudication: what unary Adjudicate would fail with. */
export interface StreamRecordError {
  /** The gRPC status code, e.g. `status.INVALID_ARGUMENT`. */
  code: grpc.status;
  /** Its name, e.g. "INVALID_ARGUMENT". */
  codeName: string;
  /** The message, e.g. `variant.preset: variant "brainking-9x9": no such preset, ...`. */
  message: string;
}

/**
 * The answer to one record: `response` (what Adjudicate answers, an illegal
 * move included) or `error` (a malformed record's INVALID_ARGUMENT and the
 * like). `id` is the record's id as given.
 */
export interface StreamResult {
  id: string;
  response?: AdjudicateResponse;
  error?: StreamRecordError;
}

/** Options of one AdjudicateStream call. */
export interface StreamOptions extends CallOptions {
  /** Records taken from the input and not yet answered, at most. Default 32. */
  window?: number;
}

/**
 * An AdjudicateStream call that ended before every record was answered.
 * Answers come in input order: the first `answered` records of the input
 * got their results (all yielded before this error); `unanswered` holds the
 * records taken from the input without an answer, in order (at most the
 * window); the input beyond them was not read.
 */
export class HalmaStreamError extends HalmaError {
  readonly answered: number;
  readonly unanswered: AdjudicateStreamRequest[];

  constructor(code: grpc.status, details: string, attempts: number, answered: number, unanswered: AdjudicateStreamRequest[], metadata?: grpc.Metadata) {
    super(METHOD, code, details, attempts, metadata);
    this.name = "HalmaStreamError";
    this.answered = answered;
    this.unanswered = unanswered;
  }
}

/** What AdjudicateStreamCall needs of its client. */
export interface StreamContext {
  readonly client: grpc.Client;
  readonly policy: RetryPolicy;
  readonly onRetry?: (event: RetryEvent) => void;
  readonly isClosed: () => boolean;
}

const METHOD = "halma.v1.HalmaRules/AdjudicateStream";
// The server echoes ids of at most this many bytes; a longer one is an error
// for its record and comes back cut (service/stream/adjudicate_stream.h).
const MAX_ID_BYTES = 256;
const rpc = HalmaRulesService.adjudicateStream;

type Duplex = grpc.ClientDuplexStream<AdjudicateStreamRequest, AdjudicateStreamResponse>;

function toStreamRequest(item: StreamRecord, index: number): AdjudicateStreamRequest {
  if (Array.isArray(item)) {
    const [id, record] = item as readonly [unknown, unknown];
    if (typeof id !== "string" || typeof record !== "object" || record === null) {
      throw new TypeError(`record ${index}: expected an [id, AdjudicateRequest] pair with a string id`);
    }
    return AdjudicateStreamRequest.fromPartial({ id, record: record as DeepPartial<AdjudicateRequest> });
  }
  if (typeof item !== "object" || item === null) {
    throw new TypeError(`record ${index}: expected { id, record } or an [id, record] pair, got ${item === null ? "null" : typeof item}`);
  }
  return AdjudicateStreamRequest.fromPartial(item as DeepPartial<AdjudicateStreamRequest>);
}

function inputIterator(records: Iterable<StreamRecord> | AsyncIterable<StreamRecord>): AsyncIterator<StreamRecord> | Iterator<StreamRecord> {
  if (Symbol.asyncIterator in records) {
    return (records as AsyncIterable<StreamRecord>)[Symbol.asyncIterator]();
  }
  if (Symbol.iterator in records) {
    return (records as Iterable<StreamRecord>)[Symbol.iterator]();
  }
  throw new TypeError("adjudicateStream: records must be an iterable or an async iterable");
}

/**
 * An AdjudicateStream call: `for await (const result of call)` gives one
 * `StreamResult` per record, in input order. Made by
 * `HalmaClient.adjudicateStream`. Leaving the loop early (break, return, an
 * exception) cancels the call; `cancel()` (or the options' `signal`) makes
 * the loop throw a HalmaStreamError with CANCELLED. `answered`, `attempts`
 * and `resent` say how far it got.
 */
export class AdjudicateStreamCall implements AsyncIterableIterator<StreamResult> {
  private readonly context: StreamContext;
  private readonly input: AsyncIterator<StreamRecord> | Iterator<StreamRecord>;
  private readonly window: number;
  private readonly deadline: Date;
  private readonly metadata: grpc.Metadata;
  private readonly signal?: AbortSignal;
  private readonly results: AsyncGenerator<StreamResult, void, undefined>;

  // The window: records taken from the input, waiting to be sent on the
  // current attempt (resends first), and sent on it without an answer yet,
  // oldest first (the order of the answers).
  private readonly unsent: AdjudicateStreamRequest[] = [];
  private readonly sent: AdjudicateStreamRequest[] = [];
  private taken = 0;
  private reading = false;
  private inputDone = false;
  private inputError: unknown = undefined;
  private wakers: (() => void)[] = [];

  private call: Duplex | undefined;
  private responses: AsyncIterator<AdjudicateStreamResponse> | undefined;
  private attempt = 0;
  private answeredOnAttempt = 0;
  private failuresInARow = 0;
  private backoffMs: number;
  private cancelled = false;
  private finished = false;
  private answeredCount = 0;
  private resentCount = 0;
  private readonly resentRecords = new WeakSet<AdjudicateStreamRequest>();
  private readonly onAbort = () => this.cancel();

  constructor(context: StreamContext, records: Iterable<StreamRecord> | AsyncIterable<StreamRecord>, options: StreamOptions, defaultDeadlineMs: number) {
    const window = options.window ?? DEFAULT_WINDOW;
    if (!Number.isInteger(window) || window < 1) {
      throw new RangeError(`adjudicateStream: window must be an integer >= 1, got ${window}`);
    }
    const deadlineMs = options.deadlineMs ?? defaultDeadlineMs;
    if (!(deadlineMs > 0)) {
      throw new RangeError(`adjudicateStream: deadlineMs must be > 0, got ${deadlineMs}`);
    }
    this.context = context;
    this.input = inputIterator(records);
    this.window = window;
    this.deadline = new Date(Date.now() + deadlineMs);
    this.metadata = options.metadata ?? new grpc.Metadata();
    this.signal = options.signal;
    this.backoffMs = context.policy.initialBackoffMs;
    this.results = this.run();
    this.cancelled = this.signal?.aborted ?? false;
    this.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Results given so far: the first `answered` records of the input. */
  get answered(): number {
    return this.answeredCount;
  }

  /** Streams opened so far (more than 1 after UNAVAILABLE). */
  get attempts(): number {
    return this.attempt;
  }

  /** Records sent again on a new stream after an UNAVAILABLE left them unanswered (each counted once). */
  get resent(): number {
    return this.resentCount;
  }

  [Symbol.asyncIterator](): AdjudicateStreamCall {
    return this;
  }

  next(): Promise<IteratorResult<StreamResult, void>> {
    return this.results.next();
  }

  /** Ends the call early (what `break` in `for await` does): cancels it, without an error. */
  async return(): Promise<IteratorResult<StreamResult, void>> {
    this.stop();
    return this.results.return(undefined);
  }

  async throw(error?: unknown): Promise<IteratorResult<StreamResult, void>> {
    this.stop();
    return this.results.throw(error);
  }

  /** Cancels the call; the pending or next result rejects with CANCELLED. */
  cancel(): void {
    if (this.finished || this.cancelled) {
      return;
    }
    this.cancelled = true;
    // The call first: ending the writer would half-close the stream and let
    // the server finish it with OK.
    this.call?.cancel();
    this.wake();
  }

  // --- the results ----------------------------------------------------------

  private async *run(): AsyncGenerator<StreamResult, void, undefined> {
    try {
      for (;;) {
        const responses = this.responses ?? this.startAttempt();
        let next: IteratorResult<AdjudicateStreamResponse>;
        try {
          next = await responses.next();
        } catch (e) {
          await this.afterFailure(e as Partial<grpc.ServiceError>);
          continue;
        }
        if (next.done) {
          this.endOfStream();
          return;
        }
        yield this.take(next.value);
      }
    } finally {
      this.stop();
    }
  }

  private startAttempt(): AsyncIterator<AdjudicateStreamResponse> {
    if (this.cancelled) {
      throw this.fail(grpc.status.CANCELLED, "cancelled by the caller");
    }
    if (this.context.isClosed()) {
      throw this.fail(grpc.status.CANCELLED, "the client is closed");
    }
    if (Date.now() >= this.deadline.getTime()) {
      throw this.fail(grpc.status.DEADLINE_EXCEEDED, "the stream's deadline passed before it could be resent");
    }
    this.attempt += 1;
    this.answeredOnAttempt = 0;
    const call = this.context.client.makeBidiStreamRequest(
      rpc.path,
      rpc.requestSerialize,
      rpc.responseDeserialize,
      this.metadata,
      { deadline: this.deadline },
    );
    // Errors reach the reader through the async iterator; writes to a call
    // that failed are dropped.
    call.on("error", () => {});
    this.call = call;
    this.responses = call[Symbol.asyncIterator]();
    void this.pump(this.attempt, call);
    return this.responses;
  }

  private take(answer: AdjudicateStreamResponse): StreamResult {
    const record = this.sent.shift();
    this.wake();
    if (record === undefined) {
      throw this.fail(grpc.status.INTERNAL, `an answer (id ${JSON.stringify(answer.id.slice(0, 40))}) to a record never sent`);
    }
    if (Buffer.byteLength(record.id) <= MAX_ID_BYTES && answer.id !== record.id) {
      throw this.fail(
        grpc.status.INTERNAL,
        `the answer for id ${JSON.stringify(answer.id.slice(0, 40))} came where the one for ` +
          `${JSON.stringify(record.id.slice(0, 40))} was expected (answers must keep request order)`,
      );
    }
    this.answeredCount += 1;
    this.answeredOnAttempt += 1;
    this.failuresInARow = 0;
    this.backoffMs = this.context.policy.initialBackoffMs;
    if (answer.error !== undefined) {
      const code = answer.error.code as grpc.status;
      return { id: record.id, error: { code, codeName: grpc.status[code] ?? `CODE_${code}`, message: answer.error.message } };
    }
    return { id: record.id, response: answer.result ?? AdjudicateResponse.fromPartial({}) };
  }

  private endOfStream(): void {
    const left = this.sent.length + this.unsent.length;
    if (left > 0) {
      throw this.fail(grpc.status.INTERNAL, `the server ended the stream with ${left} records unanswered`);
    }
    this.finished = true;
    this.wake();
    if (this.inputError !== undefined) {
      throw this.inputError;
    }
  }

  /** Prepares the next attempt after an UNAVAILABLE, or throws. */
  private async afterFailure(e: Partial<grpc.ServiceError>): Promise<void> {
    const code = e.code ?? grpc.status.UNKNOWN;
    const details = e.details ?? String(e);
    if (this.cancelled) {
      throw this.fail(grpc.status.CANCELLED, "cancelled by the caller");
    }
    if (code !== grpc.status.UNAVAILABLE) {
      throw this.fail(code, details, e.metadata);
    }
    // Attempts in a row that answered nothing; progress starts the count again.
    this.failuresInARow = this.answeredOnAttempt === 0 ? this.failuresInARow + 1 : 1;
    const { maxAttempts, jitter, multiplier, maxBackoffMs } = this.context.policy;
    if (this.failuresInARow >= maxAttempts) {
      throw this.fail(code, details, e.metadata);
    }
    const delayMs = Math.round(this.backoffMs * (1 - jitter + 2 * jitter * Math.random()));
    if (Date.now() + delayMs >= this.deadline.getTime()) {
      throw this.fail(code, details, e.metadata);
    }
    const error = new HalmaError(METHOD, code, details, this.attempt, e.metadata);
    this.context.onRetry?.({ method: METHOD, attempt: this.attempt, delayMs, error });
    // The unanswered records go first, in order, on the next stream.
    for (const record of this.sent) {
      if (!this.resentRecords.has(record)) {
        this.resentRecords.add(record);
        this.resentCount += 1;
      }
    }
    this.unsent.unshift(...this.sent.splice(0));
    this.call = undefined;
    this.responses = undefined;
    this.wake(); // Ends the failed attempt's writer.
    await this.sleep(delayMs);
    this.backoffMs = Math.min(this.backoffMs * multiplier, maxBackoffMs);
  }

  private fail(code: grpc.status, details: string, metadata?: grpc.Metadata): HalmaStreamError {
    const unanswered = [...this.sent, ...this.unsent];
    this.stop();
    return new HalmaStreamError(code, details, this.attempt, this.answeredCount, unanswered, metadata);
  }

  /** Ends the call for good (cancelling it if it is still going). */
  private stop(): void {
    if (!this.finished) {
      this.finished = true;
      this.call?.cancel();
    }
    this.signal?.removeEventListener("abort", this.onAbort);
    this.wake();
  }

  // --- the writer of one attempt ---------------------------------------------

  /**
   * Writes the records of attempt `attempt`: resends first, then the input
   * while the window has room; half-closes once the input is done; stops
   * when the attempt is over.
   */
  private async pump(attempt: number, call: Duplex): Promise<void> {
    const current = () => this.attempt === attempt && this.call === call && !this.finished && !this.cancelled;
    while (current()) {
      const record = this.unsent.shift();
      if (record !== undefined) {
        this.sent.push(record);
        call.write(record);
      } else if (this.inputDone) {
        call.end();
        return;
      } else if (!this.reading && this.sent.length < this.window) {
        await this.readOne();
      } else {
        await new Promise<void>((resolve) => this.wakers.push(resolve));
      }
    }
  }

  /** Takes one record from the input into `unsent`. */
  private async readOne(): Promise<void> {
    this.reading = true;
    try {
      const next = await this.input.next();
      if (next.done) {
        this.inputDone = true;
      } else {
        this.unsent.push(toStreamRequest(next.value, this.taken));
        this.taken += 1;
      }
    } catch (e) {
      // Thrown to the caller once the records before it are answered.
      this.inputError = e;
      this.inputDone = true;
    } finally {
      this.reading = false;
      this.wake();
    }
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const resolve of wakers) {
      resolve();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const waker = () => {
        if (this.cancelled || this.finished) {
          done();
        } else {
          this.wakers.push(waker);
        }
      };
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakers.push(waker);
    });
  }
}
