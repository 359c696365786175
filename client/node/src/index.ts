// The public API of the halma-rules Node client.

export {
  CallOptions,
  DEFAULT_DEADLINE_MS,
  DEFAULT_RETRY_POLICY,
  HalmaClient,
  HalmaClientOptions,
  HalmaError,
  RetryEvent,
  RetryPolicy,
  TlsOptions,
} from "./client";
export * from "./gen/halma/v1/halma";
export {
  HealthCheckRequest,
  HealthCheckResponse,
  HealthCheckResponse_ServingStatus,
  healthCheckResponse_ServingStatusToJSON,
} from "./gen/grpc/health/v1/health";
export { status } from "@grpc/grpc-js";
