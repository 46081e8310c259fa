import type * as grpc from '@grpc/grpc-js';
import { Metadata, status as Status } from '@grpc/grpc-js';
import { ApiError, codeForGrpcStatus, type ErrorCode, grpcStatusFor, isApiError, outageError } from '@wap/errors';

/** Trailer that carries an API error's code and details across any number of hops. */
const ERROR_TRAILER = 'wap-error-bin';

/** What a handler threw, as an API error: a database outage is `no_capacity`, anything unexpected `internal`. */
const asApiError = (err: unknown): ApiError => (isApiError(err) ? err : (outageError(err) ?? new ApiError('internal')));

/** Turns anything a handler threw into a gRPC status that keeps the API error whole. */
export function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  const apiError = asApiError(err);
  const metadata = new Metadata();
  metadata.set(ERROR_TRAILER, Buffer.from(JSON.stringify({ code: apiError.code, details: apiError.details })));
  return { code: grpcStatusFor(apiError.code), details: apiError.message, metadata };
}

/**
 * An API error as a field of a message (code, details as JSON), for calls that answer
 * many items, each with its own outcome. A database outage is `no_capacity`; anything
 * else that is not an API error is `internal`.
 */
export function toCallError(err: unknown): { code: string; detailsJson: string } {
  const apiError = asApiError(err);
  return { code: apiError.code, detailsJson: apiError.details ? JSON.stringify(apiError.details) : '' };
}

/** The API error `toCallError` wrote; an unknown code or unreadable details read as `internal`. */
export function fromCallError(error: { code: string; detailsJson: string }): ApiError {
  try {
    const details = error.detailsJson ? (JSON.parse(error.detailsJson) as Record<string, unknown>) : undefined;
    return new ApiError(error.code as ErrorCode, details);
  } catch {
    return new ApiError('internal');
  }
}

/** Rebuilds the API error a peer raised, or maps a bare gRPC status to the closest code. */
export function fromServiceError(err: grpc.ServiceError): ApiError {
  const raw = err.metadata?.get(ERROR_TRAILER)[0];
  if (raw) {
    try {
      const body = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw) as {
        code: ErrorCode;
        details?: Record<string, unknown>;
      };
      return new ApiError(body.code, body.details, { cause: err });
    } catch {
      // A trailer we cannot read is a peer bug; fall through to the status.
    }
  }
  // A peer not reachable right now (restarting, or reconnecting at most every 5 s): try again shortly.
  const details = err.code === Status.UNAVAILABLE ? { retryAfterSeconds: 2 } : undefined;
  return new ApiError(codeForGrpcStatus(err.code), details, { cause: err });
}
