import { ApiError, outageError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { ErrorRequestHandler } from 'express';
import { bearerChallenge } from './auth.js';

/** body-parser's and the router's errors about the request itself, as the Error object (docs/errors.md). */
function fromRequestError(err: {
  type?: string;
  limit?: number;
  status?: number;
  errno?: unknown;
}): ApiError | undefined {
  // The router decodes path segments: `%FF` or a lone `%` is the client's mistake, not ours.
  if (err instanceof URIError)
    return new ApiError('bad_request', { issues: [{ path: 'path', message: 'is not valid percent-encoding' }] });
  switch (err.type) {
    case 'entity.too.large':
      return new ApiError('bad_request', { limit: err.limit }, { status: 413 });
    case 'entity.parse.failed':
      return new ApiError('bad_request', { issues: [{ path: 'body', message: 'is not valid JSON' }] });
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
    case 'request.size.invalid':
      return new ApiError('bad_request', { issues: [{ path: 'body', message: 'could not be read' }] });
    default:
      // body-parser's 400 around a zlib, brotli or zstd error: the body is not what its Content-Encoding says.
      if (err.status === 400 && typeof err.errno === 'number')
        return new ApiError('bad_request', {
          issues: [{ path: 'body', message: 'does not decode as its Content-Encoding says' }],
        });
      return undefined;
  }
}

/**
 * Every failure leaves as the Error object: the code's status, its fixed
 * message, its details (a 401 with its `WWW-Authenticate` challenge). The database away is `no_capacity`. Anything unexpected is `internal` with the request id
 * and is logged with its stack here, never sent.
 */
export function errorHandler(
  log: Logger,
  /** With OAuth on: where a 401 on this path points for the resource's metadata. */
  resourceMetadata?: (path: string) => string,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    // A database outage (a restart, a failover) clears by itself: 503 no_capacity, retried after Retry-After.
    const error = err instanceof ApiError ? err : (fromRequestError(err) ?? outageError(err) ?? err);
    const requestId = res.locals.requestId as string;
    const body = toErrorBody(error, requestId);
    const status = error instanceof ApiError ? error.status : 500;
    if (status >= 500) log.error({ err, requestId }, 'request failed');
    if (res.headersSent) return;
    const retryAfter = error instanceof ApiError ? error.details?.retryAfterSeconds : undefined;
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
    if (error instanceof ApiError && error.code === 'unauthorized') {
      res.setHeader('WWW-Authenticate', bearerChallenge(error.details?.reason, resourceMetadata?.(req.path)));
    }
    res.status(status).json(req.path.startsWith('/v2/') ? firecrawlErrorBody(body) : body);
  };
}

/**
 * The Error object in Firecrawl's v2 error body, which its clients read into their typed
 * errors: `error` our message (for a route we do not have, that it is not offered), `code`
 * and `details` ours (docs/migrating-from-firecrawl.md).
 */
export function firecrawlErrorBody(body: ReturnType<typeof toErrorBody>) {
  const notOffered = body.details?.notOffered;
  // Where a client acts on Firecrawl's own sentence (registry/firecrawl-v2.ts says which), it is the error.
  const theirs = body.details?.firecrawlError;
  const error =
    typeof theirs === 'string'
      ? theirs
      : typeof notOffered === 'string'
        ? `${notOffered} is not offered by this server (Firecrawl v2 API).`
        : body.message;
  return { success: false as const, error, code: body.code, ...(body.details && { details: body.details }) };
}
