// HalmaError: what a failed call rejects with.

import * as grpc from "@grpc/grpc-js";

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
