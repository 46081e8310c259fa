import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';

export type Encoding = 'gzip' | 'x-gzip' | 'deflate' | 'deflate-raw' | 'br' | 'zstd' | 'identity';

export function encode(body: Buffer, encoding: Encoding): Buffer {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gzipSync(body);
    case 'deflate':
      return deflateSync(body);
    case 'deflate-raw':
      return deflateRawSync(body);
    case 'br':
      // Quality 4 keeps the server cheap enough not to dominate crawl benchmarks.
      return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
    case 'zstd':
      return zstdCompressSync(body);
    case 'identity':
      return body;
  }
}

/** The Content-Encoding header a body of this encoding is sent with. */
export function headerOf(encoding: Encoding): string | undefined {
  if (encoding === 'identity') return undefined;
  // Many real servers label raw deflate as `deflate`; clients must cope.
  return encoding === 'deflate-raw' ? 'deflate' : encoding;
}

/** Picks what a real server would: brotli, then gzip, when the client offers it. */
export function negotiate(req: IncomingMessage): Encoding {
  const offered = String(req.headers['accept-encoding'] ?? '')
    .split(',')
    .map((e) => e.trim().split(';')[0]);
  if (offered.includes('br')) return 'br';
  if (offered.includes('gzip')) return 'gzip';
  return 'identity';
}

export interface SendOptions {
  headers?: OutgoingHttpHeaders;
  /** Negotiate compression with the client (deterministic bodies only: the result is cached). */
  compress?: boolean;
  /** Force this encoding whatever the client offered. */
  encoding?: Encoding;
}

export class Responder {
  readonly #cache = new Map<string, Buffer>();
  constructor(private readonly compressByDefault: boolean) {}

  send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    type: string | undefined,
    body: string | Buffer,
    opts: SendOptions = {},
  ): void {
    const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const encoding = opts.encoding ?? ((opts.compress ?? this.compressByDefault) ? negotiate(req) : 'identity');
    const key = `${encoding} ${req.url}`;
    let payload = encoding === 'identity' ? raw : this.#cache.get(key);
    if (!payload) {
      payload = encode(raw, encoding);
      this.#cache.set(key, payload);
    }
    const headers: OutgoingHttpHeaders = { 'content-length': payload.length, ...opts.headers };
    if (type) headers['content-type'] = type;
    const header = headerOf(encoding);
    if (header) headers['content-encoding'] = header;
    if (opts.compress !== false) headers.vary = 'Accept-Encoding';
    res.writeHead(status, headers);
    res.end(payload);
  }

  html(req: IncomingMessage, res: ServerResponse, body: string, status = 200, opts: SendOptions = {}): void {
    this.send(req, res, status, 'text/html; charset=utf-8', body, opts);
  }
}
