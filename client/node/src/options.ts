// The options of HalmaClient and of its calls, and their defaults.

import * as grpc from "@grpc/grpc-js";

import { HalmaError } from "./errors";

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
