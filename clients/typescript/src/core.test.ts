// The core's behaviour on the wire, against a scripted loopback HTTP server: what is retried
// and how long it waits, the timeout per attempt beside a caller's signal, errors by status,
// pages, streams and raw answers. The real gateway's side is in e2e/src/sdk-typescript.suite.ts.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { backoffMs, retryAfterMs } from './core.js';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  Client,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  RateLimitError,
  ServiceUnavailableError,
} from './index.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}
type Handler = (req: Seen, res: ServerResponse, n: number) => void;

let seen: Seen[] = [];
let handler: Handler = (_req, res) => res.end('{}');
let baseUrl = '';
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => {
    body += c.toString();
  });
  req.on('end', () => {
    const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() };
    seen.push(entry);
    handler(entry, res, seen.length);
  });
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  seen = [];
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res
    .writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_test', ...headers })
    .end(JSON.stringify(body));
const client = (options: ConstructorParameters<typeof Client>[0] = {}) =>
  new Client({ apiKey: 'ock_test.secret', baseUrl, login: false, ...options });

describe('retries', () => {
  test('a GET is retried on 503 and 429, honouring Retry-After, and the third attempt answers', async () => {
    handler = (_req, res, n) => {
      if (n === 1) return json(res, 503, { code: 'capability_unavailable', message: 'x' }, { 'retry-after-ms': '300' });
      if (n === 2) return json(res, 429, { code: 'concurrency_limit', message: 'x' }, { 'retry-after': '0' });
      json(res, 200, { remaining: 5 });
    };
    const answer = await client().credits.get();
    assert.deepEqual(answer, { remaining: 5 });
    assert.equal(seen.length, 3);
    const [a, b] = seen;
    assert.ok((b?.at ?? 0) - (a?.at ?? 0) >= 290, `waited ${(b?.at ?? 0) - (a?.at ?? 0)} ms for Retry-After 300 ms`);
  });

  test('a POST is retried with one Idempotency-Key, sent on every attempt', async () => {
    handler = (_req, res, n) =>
      n < 3 ? json(res, 500, { code: 'internal', message: 'x' }) : json(res, 200, { success: true, data: {} });
    await client().scrape.start({ url: 'https://example.com/' });
    assert.equal(seen.length, 3);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    assert.match(keys[0] as string, /^sdk-[0-9a-f-]{36}$/);
    assert.deepEqual(new Set(keys).size, 1, 'the same key on every attempt');
    assert.deepEqual(
      seen.map((s) => JSON.parse(s.body)),
      Array(3).fill({ url: 'https://example.com/' }),
    );
    // A second call is another operation: another key.
    handler = (_req, res) => json(res, 200, { success: true, data: {} });
    await client().scrape.start({ url: 'https://example.com/' }, { idempotencyKey: 'mine-1' });
    assert.equal(seen.at(-1)?.headers['idempotency-key'], 'mine-1');
  });

  test('a DELETE is not retried after a 500 (it may have been done) but is after a 503 refusal', async () => {
    handler = (_req, res) => json(res, 500, { code: 'internal', message: 'x', details: { requestId: 'r1' } });
    await assert.rejects(client().profiles.delete('p1'), InternalServerError);
    assert.equal(seen.length, 1);
    seen = [];
    handler = (_req, res, n) =>
      n === 1 ? json(res, 503, { code: 'no_capacity', message: 'x' }, { 'retry-after': '0' }) : json(res, 200, {});
    await client().profiles.delete('p1');
    assert.equal(seen.length, 2);
  });

  test('errors that retrying cannot fix are thrown at once; maxRetries bounds the rest', async () => {
    handler = (_req, res) =>
      json(res, 402, { code: 'quota_exceeded', message: 'x', details: { needed: 5, available: 1 } });
    await assert.rejects(client().credits.get(), PaymentRequiredError);
    assert.equal(seen.length, 1);
    seen = [];
    handler = (_req, res) => json(res, 503, { code: 'capability_unavailable', message: 'x' }, { 'retry-after': '0' });
    await assert.rejects(client({ maxRetries: 0 }).credits.get(), ServiceUnavailableError);
    assert.equal(seen.length, 1);
    seen = [];
    await assert.rejects(client().withOptions({ maxRetries: 1 }).credits.get(), ServiceUnavailableError);
    assert.equal(seen.length, 2);
  });

  test('a Retry-After longer than a minute is not waited for: the error carries it', async () => {
    handler = (_req, res) => json(res, 429, { code: 'concurrency_limit', message: 'x' }, { 'retry-after': '120' });
    const err = await client()
      .credits.get()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof RateLimitError);
    assert.equal(err.retryAfterMs, 120_000);
    assert.equal(seen.length, 1);
  });

  test('a refused connection is retried, then thrown as APIConnectionError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const started = Date.now();
    await assert.rejects(client({ baseUrl: url, maxRetries: 1 }).credits.get(), APIConnectionError);
    assert.ok(Date.now() - started >= 370, 'one backoff of 0.5 s less at most a quarter');
  });

  test('backoff doubles from 0.5 s to 8 s with up to a quarter of jitter; Retry-After reads seconds, dates and ms', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((n) => backoffMs(n, () => 0)),
      [500, 1000, 2000, 4000, 8000, 8000],
    );
    assert.equal(
      backoffMs(0, () => 1),
      375,
    );
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000), 6_000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' })), 150);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
  });
});

describe('timeouts', () => {
  const slow: Handler = (_req, res) => {
    setTimeout(() => json(res, 200, { remaining: 1 }), 1_000).unref();
  };

  test('timeoutMs bounds each attempt, and each timed-out GET is retried', async () => {
    handler = slow;
    const started = Date.now();
    const err = await client({ timeoutMs: 150, maxRetries: 1 })
      .credits.get()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof APITimeoutError, String(err));
    assert.equal(err.timeoutMs, 150);
    assert.equal(seen.length, 2, 'two attempts');
    assert.ok(Date.now() - started < 1_000, 'neither attempt waited for the slow answer');
  });

  test("a caller's signal does not remove the timeout; aborting it ends the call without a retry", async () => {
    handler = slow;
    const quiet = new AbortController();
    await assert.rejects(
      client({ maxRetries: 0 }).credits.get({ signal: quiet.signal, timeoutMs: 100 }),
      APITimeoutError,
    );
    seen = [];
    const mine = new AbortController();
    setTimeout(() => mine.abort(), 100);
    await assert.rejects(client({ timeoutMs: 5_000 }).credits.get({ signal: mine.signal }), APIUserAbortError);
    assert.equal(seen.length, 1, 'an abort is never retried');
  });

  test("a body's own timeout (the server's deadline, ms) gets its time before the attempt gives up", async () => {
    handler = (_req, res) => setTimeout(() => json(res, 200, { success: true }), 300).unref();
    await client({ timeoutMs: 100, maxRetries: 0 }).scrape.start({ url: 'https://example.com/', timeout: 1_000 });
  });
});

describe('answers', () => {
  test('an error carries its class, code, details, status and request id; unknown statuses are APIError', async () => {
    handler = (_req, res) => json(res, 404, { code: 'not_found', message: 'Nothing', details: { resource: 'crawl' } });
    const err = await client()
      .crawl.get('c1')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof NotFoundError && err instanceof APIError);
    assert.deepEqual(
      [err.status, err.code, err.details, err.requestId],
      [404, 'not_found', { resource: 'crawl' }, 'req_test'],
    );
    assert.deepEqual(err.error, { code: 'not_found', message: 'Nothing', details: { resource: 'crawl' } });
    handler = (_req, res) => res.writeHead(418, { 'content-type': 'text/html' }).end('<h1>teapot</h1>');
    const odd = await client()
      .crawl.get('c1')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(odd instanceof APIError && odd.constructor === APIError);
    assert.deepEqual([odd.status, odd.code, odd.message], [418, 'unknown', '418 unknown: <h1>teapot</h1>']);
  });

  test('fields and enum values the SDK does not know pass through', async () => {
    const crawl = { id: 'c1', status: 'paused_by_moon', brandNew: { x: 1 } };
    handler = (_req, res) => json(res, 200, { success: true, crawl, status: 'hibernating', extra: [1] });
    const answer = (await client().crawl.get('c1')) as unknown as Record<string, unknown>;
    assert.deepEqual(answer, { success: true, crawl, status: 'hibernating', extra: [1] });
  });

  test('path values are escaped, query values serialised, body fields sent as JSON', async () => {
    handler = (_req, res) => json(res, 200, { success: true, data: [], nextCursor: null, status: 'settled' });
    await client().crawl.results('a/b c', { limit: 5 });
    assert.equal(seen[0]?.url, '/v1/crawl/a%2Fb%20c/results?limit=5');
    assert.equal(seen[0]?.headers.authorization, 'Bearer ock_test.secret');
    await assert.rejects(client().crawl.get(''), /`id` must be a non-empty string/);
  });

  test('iterating a paged list reads every page; a growing list is polled until its cursor ends', async () => {
    handler = (req, res) => {
      const cursor = new URL(req.url, baseUrl).searchParams.get('cursor');
      if (!cursor)
        return json(res, 200, { success: true, status: 'running', data: [{ n: 1 }, { n: 2 }], nextCursor: 'a' });
      if (cursor === 'a') return json(res, 200, { success: true, status: 'running', data: [], nextCursor: 'b' });
      json(res, 200, { success: true, status: 'settled', data: [{ n: 3 }], nextCursor: null });
    };
    const items: unknown[] = [];
    for await (const page of client().crawl.results('c1')) items.push(page);
    assert.deepEqual(items, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    assert.deepEqual(
      seen.map((s) => new URL(s.url, baseUrl).searchParams.get('cursor')),
      [null, 'a', 'b'],
    );
    const first = await client().crawl.results('c1');
    assert.equal(first.nextCursor, 'a', 'awaited: the first page');
  });

  test('an NDJSON stream yields each line and throws the error of its last frame', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"type":"header","total":2}\n{"type":"request","url":"https://a.test/');
      setTimeout(() => res.end('"}\n{"error":{"code":"page_lost","message":"gone"}}\n'), 50);
    };
    const stream = await client().sessions.network('s1', { follow: 'true' });
    const items: unknown[] = [];
    const err = await (async () => {
      for await (const item of stream) items.push(item);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.deepEqual(items, [
      { type: 'header', total: 2 },
      { type: 'request', url: 'https://a.test/' },
    ]);
    assert.ok(err instanceof APIError);
    assert.deepEqual([err.code, err.status], ['page_lost', 422]);
    assert.match(seen[0]?.url ?? '', /follow=true/);
  });

  test('server-sent events yield the JSON of each data; abort() ends the stream quietly', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': hello\n\ndata: {"session":{"id":"s1","status":"live"}}\n\n');
    };
    const stream = await client().sessions.live('s1');
    const items: unknown[] = [];
    for await (const item of stream) {
      items.push(item);
      stream.abort();
    }
    assert.deepEqual(items, [{ session: { id: 's1', status: 'live' } }]);
  });

  test('a stream is not cut by the attempt timeout once its headers came', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"n":1}\n');
      setTimeout(() => res.end('{"n":2}\n'), 300);
    };
    const items: unknown[] = [];
    for await (const item of await client({ timeoutMs: 100 }).sessions.network('s1')) items.push(item);
    assert.deepEqual(items, [{ n: 1 }, { n: 2 }]);
  });

  test('withResponse and asResponse give the HTTP answer beside, or instead of, the data', async () => {
    handler = (_req, res) => json(res, 200, { remaining: 3 }, { ratelimit: '"workspace";r=9;t=60' });
    const { data, response, requestId } = await client().credits.get().withResponse();
    assert.deepEqual([data, response.status, requestId], [{ remaining: 3 }, 200, 'req_test']);
    assert.equal(response.headers.get('ratelimit'), '"workspace";r=9;t=60');
    const raw = await client().credits.get().asResponse();
    assert.deepEqual(await raw.json(), { remaining: 3 });
  });

  test('a redirect answers its location without following it', async () => {
    handler = (_req, res) => res.writeHead(302, { location: 'ws://host.test/devtools?ticket=t' }).end();
    assert.deepEqual(await client().browsers.connect(), { location: 'ws://host.test/devtools?ticket=t' });
  });
});
