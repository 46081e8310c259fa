// What Node's HTTP parser refuses before any route sees it: bytes that are not
// HTTP/1.1 (a method it does not know, a raw non-ASCII byte in the path or
// query), headers past the size limit, a request too slow to arrive, an
// expectation it cannot meet. Left to Node, each is a bare status with an
// empty body; here each is the Error object (docs/errors.md), as every other failure is.
import { maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import { newRequestId } from './app.js';

/** The parser's refusal as the Error it answers (docs/api.md, "Requests the parser refuses"). */
export function parserRefusal(
  err: Error & { code?: string; reason?: string },
  limits: { maxHeaderSize: number; requestTimeoutMs: number },
): ApiError {
  const issue = (path: string, message: string, status?: number) =>
    new ApiError('bad_request', { issues: [{ path, message }] }, status ? { status } : undefined);
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return issue('headers', `are larger than ${limits.maxHeaderSize} bytes in all, request line included`, 431);
    case 'HPE_INVALID_METHOD':
      // The parser knows every registered method: this one is none, so no route can have it.
      return issue('method', 'is not an HTTP method');
    case 'HPE_INVALID_URL':
      return issue(
        err.reason?.includes('query') ? 'query' : 'path',
        'holds a byte that is not printable ASCII: percent-encode it',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return issue('body', 'has chunk extensions larger than the server reads', 413);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('deadline_exceeded', { timeoutMs: limits.requestTimeoutMs });
    default:
      // Header syntax, framing (Content-Length with Transfer-Encoding), the HTTP version...: llhttp's
      // reason is one of its fixed phrases, never a byte of the request.
      return issue('request', `is not valid HTTP/1.1${err.reason ? ` (${err.reason.toLowerCase()})` : ''}`);
  }
}

/** The Error object as a whole HTTP/1.1 response, for a socket no response object exists on. */
function rawResponse(error: ApiError, requestId: string): string {
  const body = JSON.stringify(toErrorBody(error, requestId));
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Answers, on `server`, what its parser refuses with the Error object instead of Node's empty bodies. */
export function answerParserRefusals(server: Server, log: Logger): void {
  server.on('clientError', (err: Error & { code?: string; reason?: string }, socket: Duplex) => {
    // A response already under way on this connection (pipelining) cannot be followed by another.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const error = parserRefusal(err, {
      maxHeaderSize: (server as Server & { maxHeaderSize?: number }).maxHeaderSize ?? maxHeaderSize,
      requestTimeoutMs: server.requestTimeout,
    });
    const requestId = newRequestId();
    // The request's bytes stay out of the log: they may hold a credential.
    log.info({ status: error.status, parser: err.code, requestId }, 'request refused by the HTTP parser');
    socket.end(rawResponse(error, requestId));
  });
  // Anything but `Expect: 100-continue`: Node would answer a bare 417.
  server.on('checkExpectation', (_req, res: ServerResponse) => {
    const error = new ApiError(
      'bad_request',
      { issues: [{ path: 'header.Expect', message: 'only 100-continue is supported' }] },
      { status: 417 },
    );
    const requestId = newRequestId();
    const body = JSON.stringify(toErrorBody(error, requestId));
    res
      .writeHead(error.status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        'X-Request-Id': requestId,
        'Cache-Control': 'no-store',
        Connection: 'close',
      })
      .end(body);
  });
  // HTTP/1.1 without Host: the app answers it (app.ts), not Node's bare 400.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
}
