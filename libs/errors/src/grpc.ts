import { ERRORS } from './catalogue/index.js';
import type { ErrorCode } from './codes.js';
import { GRPC_STATUS } from './grpc-status.js';

export function grpcStatusFor(code: ErrorCode): number {
  return ERRORS[code].grpc;
}

/**
 * Only for a gRPC failure that carries no error code, i.e. one raised by the
 * gRPC stack or a misbehaving peer rather than by ApiError. Statuses are mapped
 * only where they tell the end caller something true; an in-mesh
 * UNAUTHENTICATED or PERMISSION_DENIED is our wiring failing, not the caller's
 * credential, and RESOURCE_EXHAUSTED from the stack is usually an oversized
 * message, so those stay `internal`.
 */
export function codeForGrpcStatus(status: number): ErrorCode {
  switch (status) {
    case GRPC_STATUS.INVALID_ARGUMENT:
      return 'bad_request';
    case GRPC_STATUS.DEADLINE_EXCEEDED:
      return 'deadline_exceeded';
    case GRPC_STATUS.NOT_FOUND:
      return 'not_found';
    case GRPC_STATUS.UNIMPLEMENTED:
      // A peer without the method is version skew during a rollout.
      return 'capability_unavailable';
    case GRPC_STATUS.UNAVAILABLE:
      // Retryable by gRPC's own definition; no_capacity keeps it a retryable 503.
      return 'no_capacity';
    default:
      return 'internal';
  }
}
