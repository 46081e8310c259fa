import { ApiError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { ErrorRequestHandler } from 'express';

/** body-parser's errors, as the spec's Error object. */
function fromBodyParser(err: { type?: string; limit?: number }): ApiError | undefined {
  switch (err.type) {
    case 'entity.too.large':
      return new ApiError('bad_request', { limit: err.limit });
    case 'entity.parse.failed':
      return new ApiError('bad_request', { issues: [{ path: 'body', message: 'is not valid JSON' }] });
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError('bad_request', { issues: [{ path: 'body', message: 'could not be read' }] });
    default:
      return undefined;
  }
}

/**
 * Every failure leaves as the Error object: the code's status, its fixed
 * message, its details. Anything unexpected is `internal` with the request id
 * and is logged with its stack here, never sent.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const error = err instanceof ApiError ? err : (fromBodyParser(err) ?? err);
    const requestId = res.locals.requestId as string;
    const body = toErrorBody(error, requestId);
    const status = error instanceof ApiError ? error.status : 500;
    if (status >= 500) log.error({ err, requestId }, 'request failed');
    if (res.headersSent) return;
    // A refusal that says when to retry (a service's `concurrency_limit`, say) says it in the header too.
    const retryAfter =
      error instanceof ApiError ? (error.details as { retryAfterSeconds?: unknown } | undefined) : undefined;
    if (typeof retryAfter?.retryAfterSeconds === 'number' && !res.hasHeader('Retry-After'))
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfter.retryAfterSeconds))));
    res.status(status).json(body);
  };
}
