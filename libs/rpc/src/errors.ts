import type * as grpc from '@grpc/grpc-js';
import { Metadata, status as Status } from '@grpc/grpc-js';
import { ApiError, codeForGrpcStatus, type ErrorCode, grpcStatusFor, isApiError } from '@wap/errors';

/** Trailer that carries an API error's code and details across any number of hops. */
const ERROR_TRAILER = 'wap-error-bin';

/** Turns anything a handler threw into a gRPC status that keeps the API error whole. */
export function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  const apiError = isApiError(err) ? err : new ApiError('internal');
  const metadata = new Metadata();
  metadata.set(ERROR_TRAILER, Buffer.from(JSON.stringify({ code: apiError.code, details: apiError.details })));
  return { code: grpcStatusFor(apiError.code), details: apiError.message, metadata };
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
  if (err.code === Status.DEADLINE_EXCEEDED) return new ApiError('deadline_exceeded', undefined, { cause: err });
  return new ApiError(codeForGrpcStatus(err.code), undefined, { cause: err });
}
