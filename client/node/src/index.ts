// The public API of the halma-rules Node client.

export { HalmaClient } from "./client";
export { HalmaError } from "./errors";
export {
  CallOptions,
  DEFAULT_DEADLINE_MS,
  DEFAULT_RETRY_POLICY,
  HalmaClientOptions,
  RetryEvent,
  RetryPolicy,
  TlsOptions,
} from "./options";
export {
  AdjudicateStreamCall,
  DEFAULT_WINDOW,
  HalmaStreamError,
  StreamRecordError,
  StreamOptions,
  StreamRecord,
  StreamResult,
} from "./stream";
export * from "./gen/halma/v1/halma";
export {
  HealthCheckRequest,
  HealthCheckResponse,
  HealthCheckResponse_ServingStatus,
  healthCheckResponse_ServingStatusToJSON,
} from "./gen/grpc/health/v1/health";
export { status } from "@grpc/grpc-js";
