import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** A tiny client for the REST API as a user sees it: status, headers, JSON body. */
export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    rawBody?: string | Uint8Array;
    headers?: Record<string, string>;
    /** Give up after this long (a request to a server that vanished would otherwise wait minutes). */
    timeoutMs?: number;
  } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  // A string goes as text/plain unless a type is given; bytes go with no Content-Type at all.
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const signal = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body, signal });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the assertion message
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Credits a workspace can spend now (`available` of GET /v1/credits). */
export async function availableCredits(baseUrl: string, key: string): Promise<number> {
  return (await call<{ available: number }>(baseUrl, 'GET', '/v1/credits', { key })).body.available;
}

/**
 * A WebSocket handshake sent by hand: what the gateway answers before any upgrade. An upgraded
 * socket is closed at once, or with `keep` handed back open (`socket`), for the caller to end.
 */
export function upgrade(
  url: string,
  headers: Record<string, string> = {},
  keep = false,
): Promise<{ res: IncomingMessage; body: string; socket?: Duplex }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url.replace(/^ws/, 'http'), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      if (!keep) socket.destroy();
      resolve({ res, body: '', ...(keep && { socket }) });
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ res, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
