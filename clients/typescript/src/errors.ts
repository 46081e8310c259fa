// Every error the client throws: one class per HTTP status the API answers, each carrying the
// Error object (`code`, `message`, `details`), the request id and the status. Branch on `code`.
import type { components } from './generated/openapi.js';

/** One of the API's error codes (docs/errors.md), or one this version does not know yet. */
export type ErrorCode = components['schemas']['Error']['code'];

/** The Error object every failure carries. */
export interface ErrorObject {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The root of every error this SDK throws. */
export class WebAccessError extends Error {
  override name = 'WebAccessError';
}

/** The API answered an error: its status, the Error object and the request id. */
export class APIError extends WebAccessError {
  override name = 'APIError';
  /** The HTTP status (for an error in a stream's last frame: the status its code is answered with). */
  readonly status: number;
  /** The Error object as answered. */
  readonly error: ErrorObject;
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** The answer's `X-Request-Id`: quote it when reporting a problem. */
  readonly requestId: string | null;
  readonly headers: Headers;
  /** What `Retry-After` asked for, in milliseconds, when the answer had one. */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, error: ErrorObject, headers: Headers = new Headers(), retryAfterMs?: number) {
    const requestId = headers.get('x-request-id');
    super(`${status} ${error.code}: ${error.message}${requestId ? ` (request ${requestId})` : ''}`);
    this.status = status;
    this.error = error;
    this.code = error.code;
    this.details = error.details;
    this.requestId = requestId;
    this.headers = headers;
    this.retryAfterMs = retryAfterMs;
  }

  /** The class of `status`, made from an answer's body (the Error object, or whatever came instead). */
  static from(status: number, body: unknown, headers?: Headers, retryAfterMs?: number): APIError {
    const Class = STATUS_CLASSES[status] ?? APIError;
    return new Class(status, errorObjectOf(status, body), headers, retryAfterMs);
  }
}

/** The Error object of an answer; a body that is not one (a proxy's page) becomes `unknown` with its text. */
export function errorObjectOf(status: number, body: unknown): ErrorObject {
  if (typeof body === 'object' && body !== null) {
    const o = body as Record<string, unknown>;
    if (typeof o.code === 'string' && typeof o.message === 'string')
      return {
        code: o.code,
        message: o.message,
        ...(typeof o.details === 'object' && o.details !== null && { details: o.details as Record<string, unknown> }),
      };
  }
  const text = typeof body === 'string' ? body.slice(0, 500) : '';
  return { code: 'unknown', message: text || `HTTP ${status} without an Error object` };
}

export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
export class PaymentRequiredError extends APIError {
  override name = 'PaymentRequiredError';
}
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
export class MethodNotAllowedError extends APIError {
  override name = 'MethodNotAllowedError';
}
/** 408 `deadline_exceeded`: the server's own deadline passed (the client's is APITimeoutError). */
export class RequestTimeoutError extends APIError {
  override name = 'RequestTimeoutError';
}
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
export class ContentTooLargeError extends APIError {
  override name = 'ContentTooLargeError';
}
export class UnsupportedMediaTypeError extends APIError {
  override name = 'UnsupportedMediaTypeError';
}
export class ExpectationFailedError extends APIError {
  override name = 'ExpectationFailedError';
}
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
}
export class HeadersTooLargeError extends APIError {
  override name = 'HeadersTooLargeError';
}
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}
export class ServiceUnavailableError extends APIError {
  override name = 'ServiceUnavailableError';
}

type APIErrorClass = new (status: number, error: ErrorObject, headers?: Headers, retryAfterMs?: number) => APIError;

/** The class of each status the API answers (docs/errors.md); any other status is a plain APIError. */
export const STATUS_CLASSES: Record<number, APIErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  408: RequestTimeoutError,
  409: ConflictError,
  413: ContentTooLargeError,
  415: UnsupportedMediaTypeError,
  417: ExpectationFailedError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  431: HeadersTooLargeError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/** The request never got an answer: refused, reset, or the name did not resolve. */
export class APIConnectionError extends WebAccessError {
  override name = 'APIConnectionError';
  constructor(message = 'Connection error', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An attempt took longer than `timeoutMs` (retried like a connection error, while retries last). */
export class APITimeoutError extends APIConnectionError {
  override name = 'APITimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms`);
  }
}

/** The caller's own AbortSignal ended the call: never retried. */
export class APIUserAbortError extends WebAccessError {
  override name = 'APIUserAbortError';
  constructor(options?: { cause?: unknown }) {
    super('The request was aborted', options);
  }
}

/** `crawl.wait` or `agent.wait` gave up after its overall timeout; the work goes on. */
export class WaitTimeoutError<T = unknown> extends WebAccessError {
  override name = 'WaitTimeoutError';
  constructor(
    readonly timeoutMs: number,
    /** The last state read before giving up. */
    readonly last: T | undefined,
  ) {
    super(`Still not finished after ${timeoutMs} ms (the work goes on; wait again or cancel it)`);
  }
}

/** The stored CLI login could not be used: expired beyond refresh, revoked, or unreadable. */
export class LoginError extends WebAccessError {
  override name = 'LoginError';
}
