import { ERRORS } from './catalogue/index.js';
import { type ErrorCode, isErrorCode } from './codes.js';

export type ErrorDetails = Readonly<Record<string, unknown>>;

/** The Error object (docs/errors.md), as sent on the wire. */
export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: ErrorDetails;
}

// A brand as well as instanceof: two copies of this package in one process
// (a service and a lib resolving different builds) must still recognise each other.
const BRAND = Symbol.for('@wap/errors.ApiError');

/** The only error type that becomes an API answer; anything else is `internal`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  readonly [BRAND] = true;

  /** `status` picks one of the code's `alsoStatuses` (HTTP's own cases, such as 415); the code's status otherwise. */
  constructor(code: ErrorCode, details?: ErrorDetails, options?: { cause?: unknown; status?: number }) {
    if (!isErrorCode(code)) throw new TypeError('ApiError: not a code of the closed set');
    const spec = ERRORS[code];
    if (options?.status !== undefined && !spec.alsoStatuses?.includes(options.status))
      throw new TypeError(`ApiError: ${code} never answers ${options.status}`);
    super(spec.message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options?.status ?? spec.status;
    this.details = details;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError || (isObject(value) && value[BRAND] === true);
}

/**
 * The body to answer with for anything thrown. A foreign error's message and
 * stack can hold SQL, URLs with credentials or a stored secret, so none of it
 * crosses the boundary; the request id lets an operator find it in the logs.
 */
export function toErrorBody(err: unknown, requestId?: string): ErrorBody {
  if (isApiError(err)) {
    const details = err.code === 'internal' && err.details === undefined && requestId ? { requestId } : err.details;
    return bodyOf(err.code, details);
  }
  return bodyOf('internal', requestId ? { requestId } : undefined);
}

/**
 * The ApiError a received body stands for. A body that is not a well-formed
 * Error object, or names a code outside the closed set, becomes `internal`:
 * a peer speaking another contract is our fault, never the caller's.
 */
export function errorFromBody(body: unknown): ApiError {
  if (!isObject(body) || !isErrorCode(body.code) || typeof body.message !== 'string') {
    return new ApiError('internal');
  }
  const details = isObject(body.details) ? body.details : undefined;
  return new ApiError(body.code, details);
}

function bodyOf(code: ErrorCode, details: ErrorDetails | undefined): ErrorBody {
  const message = ERRORS[code].message;
  return details === undefined ? { code, message } : { code, message, details };
}

function isObject(value: unknown): value is Record<PropertyKey, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
