// Input no well-behaved client sends, through a real fleet's gateway: bytes
// Node's HTTP parser refuses, JSON nested past reason, bodies that do not
// decode as their Content-Encoding says, host names DNS cannot carry. Each is
// answered with a 4xx and the Error object (docs/errors.md): never a 500, never an
// empty body, never a stack trace. Also here: the replay page refuses to be
// framed, and a followed network log of a lost browser says so.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { ERRORS, type ErrorCode } from '@wap/errors';
import type { Fleet } from '@wap/fleet';
import { readLogLines, startFleet, until } from '@wap/testkit';
import { chromium } from 'playwright-core';
import { call } from './api.js';

let fleet: Fleet;
let key: string;
let site: Server;
let siteOrigin: string;

before(async () => {
  // The page a session visits, and a page of another origin that tries to frame the replay.
  site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    if (url.pathname === '/framer')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><iframe id="replay" src="${url.searchParams.get('src') ?? ''}"></iframe>`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Visited</title><p>Visited</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as net.AddressInfo).port}`;
  fleet = await startFleet({ env: { EGRESS_ALLOW: '127.0.0.0/8' } });
  ({ apiKey: key } = await fleet.workspace('pro'));
});

after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  site?.close();
});

/** The Error object (docs/errors.md) and nothing else: a code of the closed set, its fixed message, no stack. */
function assertError(body: unknown, code: ErrorCode): { issues?: { path: string; message: string }[] } {
  const b = body as { code?: string; message?: string; details?: Record<string, unknown> };
  assert.equal(b.code, code, JSON.stringify(body));
  assert.equal(b.message, ERRORS[code].message);
  assert.deepEqual(
    Object.keys(b).filter((k) => !['code', 'message', 'details'].includes(k)),
    [],
    'nothing beside code, message and details',
  );
  assert.ok(!/\n\s+at /.test(JSON.stringify(body)), 'no stack trace');
  return (b.details ?? {}) as { issues?: { path: string; message: string }[] };
}

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Sends bytes as they are to the gateway and reads the answer until the connection closes. */
function raw(bytes: string | Buffer): Promise<RawReply> {
  const { hostname, port } = new URL(fleet.gatewayUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const bodyText = rest.join('\r\n\r\n');
      let body: unknown = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {
        // kept as text for the assertion's message
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

const request = (line: string, headers: string[] = []) =>
  Buffer.from(`${line}\r\n${['Host: gateway', ...headers].map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1');

describe("what Node's HTTP parser refuses is answered with the Error object", () => {
  const cases: [string, Buffer, number, string][] = [
    [
      'a raw non-ASCII byte in the path',
      Buffer.concat([Buffer.from('GET /v1/caf'), Buffer.from([0xe9]), request(' HTTP/1.1')]),
      400,
      'path',
    ],
    [
      'raw UTF-8 in the query',
      Buffer.concat([Buffer.from('GET /v1/usage?from='), Buffer.from('é', 'utf8'), request(' HTTP/1.1')]),
      400,
      'query',
    ],
    ['a method HTTP does not have', request('BREW /v1/credits HTTP/1.1'), 400, 'method'],
    [
      'too many headers',
      request(
        'GET /v1/credits HTTP/1.1',
        Array.from({ length: 2_000 }, (_, i) => `X-Header-${i}: value`),
      ),
      431,
      'headers',
    ],
    ['one header too large', request('GET /v1/credits HTTP/1.1', [`X-Big: ${'a'.repeat(20_000)}`]), 431, 'headers'],
    ['a header name with a space', request('GET /v1/credits HTTP/1.1', ['Bad Name: x']), 400, 'request'],
    [
      'Content-Length with Transfer-Encoding',
      request('POST /v1/scrape HTTP/1.1', ['Content-Length: 3', 'Transfer-Encoding: chunked']),
      400,
      'request',
    ],
    ['HTTP/1.1 without Host', Buffer.from('GET /v1/credits HTTP/1.1\r\n\r\n'), 400, 'header.Host'],
    [
      'an expectation other than 100-continue',
      request('GET /v1/credits HTTP/1.1', ['Expect: tea']),
      417,
      'header.Expect',
    ],
  ];
  for (const [name, bytes, status, path] of cases) {
    test(`${name}: ${status} bad_request naming ${path}`, async () => {
      const r = await raw(bytes);
      assert.equal(r.status, status, JSON.stringify(r));
      assert.match(r.headers['content-type'] ?? '', /^application\/json/);
      assert.match(r.headers['x-request-id'] ?? '', /^req_[0-9a-f]{32}$/);
      assert.deepEqual(
        assertError(r.body, 'bad_request').issues?.map((i) => i.path),
        [path],
      );
    });
  }

  test('a method HTTP has that the route does not serve stays 405 with Allow', async () => {
    const r = await raw(request('PROPFIND /v1/credits HTTP/1.1', [`Authorization: Bearer ${key}`]));
    assert.equal(r.status, 405);
    assert.equal(r.headers.allow, 'GET, HEAD');
    assertError(r.body, 'method_not_allowed');
  });
});

describe('bodies', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  test('JSON nested past any route (200,000 levels) is 400 bad_request, on REST and on MCP', async () => {
    const rest = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key,
      rawBody: `{"url":"https://example.com/","headers":${deep(200_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(rest.status, 400, JSON.stringify(rest.body).slice(0, 300));
    const [issue] = assertError(rest.body, 'bad_request').issues ?? [];
    assert.match(issue?.message ?? '', /nests deeper than \d+ levels/);
    assert.match(issue?.path ?? '', /^body\.headers\.0\.0/);

    const mcp = await call<string>(fleet.gatewayUrl, 'POST', '/mcp', {
      key,
      rawBody: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_scrape_page","arguments":{"url":"https://example.com/","headers":${deep(200_000)}}}}`,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    assert.equal(mcp.status, 200, JSON.stringify(mcp.body).slice(0, 300));
    // One server-sent event carrying the JSON-RPC answer: a tool result with isError.
    const answer = JSON.parse(/^data: (.*)$/m.exec(mcp.body)?.[1] ?? '{}') as {
      result?: { isError?: boolean; content?: { text: string }[] };
    };
    assert.equal(answer.result?.isError, true, mcp.body.slice(0, 300));
    assertError(JSON.parse(answer.result?.content?.[0]?.text ?? '{}'), 'bad_request');
  });

  const junk = Buffer.from('these bytes are compressed by nothing at all');
  for (const [encoding, broken] of [
    ['gzip', junk],
    ['gzip', gzipSync('{"url":"https://example.com/"}').subarray(0, 12)],
    ['deflate', junk],
    ['br', junk],
  ] as const) {
    test(`a body that does not decode as Content-Encoding: ${encoding} is 400 bad_request (${broken.length} bytes)`, async () => {
      const r = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
        key,
        rawBody: broken,
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.deepEqual(
        assertError(r.body, 'bad_request').issues?.map((i) => i.path),
        ['body'],
      );
    });
  }

  test('a body that decodes is read: each encoding reaches validation', async () => {
    const body = Buffer.from('{"formats":["markdown"]}');
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['br', brotliCompressSync(body)],
    ] as const) {
      const r = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
        key,
        rawBody: bytes,
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      assert.equal(r.status, 400, encoding);
      assert.deepEqual(
        assertError(r.body, 'bad_request').issues?.map((i) => i.path),
        ['body.url'],
        encoding,
      );
    }
  });
});

describe('URLs whose host DNS cannot carry', () => {
  const label = (c: string, n = 63) => c.repeat(n);
  // 259 characters (getaddrinfo answers EINVAL), and one label of 64.
  const hosts = [`${label('a')}.${label('b')}.${label('c')}.${label('d')}.com`, `${label('e', 64)}.example`];
  const routes: [string, (url: string) => Record<string, unknown>][] = [
    ['/v1/scrape', (url) => ({ url })],
    ['/v1/scrape', (url) => ({ url, engine: 'browser' })],
    ['/v1/crawl', (url) => ({ url, limit: 1 })],
    ['/v1/monitors', (url) => ({ url, schedule: { every: '1h' }, notify: { webhook: 'https://hooks.example.com/x' } })],
  ];
  for (const host of hosts)
    for (const [path, body] of routes) {
      test(`${path} ${JSON.stringify(Object.keys(body('')))} with a ${host.length}-character host: 400 naming body.url`, async () => {
        const r = await call(fleet.gatewayUrl, 'POST', path, { key, body: body(`https://${host}/page`) });
        assert.equal(r.status, 400, JSON.stringify(r.body));
        const issues = assertError(r.body, 'bad_request').issues ?? [];
        assert.deepEqual(
          issues.map((i) => i.path),
          ['body.url'],
        );
        assert.match(issues[0]?.message ?? '', /longer than DNS allows/);
      });
    }

  test('a monitor whose webhook has such a host is refused when it is made, not when it first fires', async () => {
    const r = await call(fleet.gatewayUrl, 'POST', '/v1/monitors', {
      key,
      body: { url: 'https://example.com/', schedule: { every: '1h' }, notify: { webhook: `https://${hosts[0]}/hook` } },
    });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(assertError(r.body, 'bad_request').issues?.[0]?.message ?? '', /longer than DNS allows/);
  });
});

describe('sessions: the replay page and the network log', () => {
  let sessionId: string;
  let replayUrl: string;
  let cdpUrl: string;
  /** The session's client: its ticket is good for one connection, so both tests drive this one. */
  let driver: Awaited<ReturnType<typeof chromium.connectOverCDP>>;

  before(async () => {
    const opened = await call<{ webSocketDebuggerUrl: string }>(fleet.gatewayUrl, 'GET', '/connect/json/version', {
      key,
    });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    cdpUrl = opened.body.webSocketDebuggerUrl;
    sessionId = /\/devtools\/browser\/([0-9a-f-]{36})/.exec(cdpUrl)?.[1] as string;
  });
  // Its host was killed by the last test: closing asks nothing of it, and gives up after 30 s at most.
  after(() =>
    Promise.race([driver?.close().catch(() => undefined), new Promise((r) => setTimeout(r, 30_000).unref())]),
  );

  test('the replay page may be framed by the gateway alone, and a page of another origin cannot', async () => {
    driver = await chromium.connectOverCDP(cdpUrl);
    const page = await (driver.contexts()[0] ?? (await driver.newContext())).newPage();
    await page.goto(`${siteOrigin}/visited`);
    await until('the session has a replay link', async () => {
      const r = await call<{ session: { replayUrl: string | null } }>(
        fleet.gatewayUrl,
        'GET',
        `/v1/sessions/${sessionId}`,
        { key },
      );
      replayUrl = r.body.session?.replayUrl ?? '';
      return replayUrl !== '';
    });
    // The browser stays connected: the network log's test below needs the session live.

    const res = await fetch(replayUrl);
    assert.equal(res.status, 200);
    // The console, on the gateway's origin, embeds it (docs/console.md); nobody else may.
    assert.match(res.headers.get('content-security-policy') ?? '', /(^|;\s*)frame-ancestors 'self'(;|$)/);
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');

    const viewer = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    try {
      const tab = await viewer.newPage();
      const refusals: string[] = [];
      tab.on('console', (m) => {
        if (m.text().includes("frame-ancestors 'self'")) refusals.push(m.text());
      });
      await tab.goto(`${siteOrigin}/framer?src=${encodeURIComponent(replayUrl)}`);
      // A frame Chromium refused shows its error page instead of the replay.
      const framed = () => tab.frames().find((f) => f !== tab.mainFrame());
      await until('the frame has loaded something', async () => (framed()?.url() ?? '') !== '');
      assert.equal(framed()?.url(), 'chrome-error://chromewebdata/');
      await until('Chromium says why', async () => refusals.length > 0);
      // Opened as itself, the page still plays: its own player frame is not another page framing it.
      const own = await viewer.newPage();
      await own.goto(replayUrl);
      await until('the player is up', async () => (await own.evaluate('window.wapReplay !== undefined')) === true);
    } finally {
      await viewer.close();
    }
  });

  test('a followed network log whose browser host died ends with page_lost; following it after is 422', async () => {
    // A stream that never ends fails the test after two minutes, not the file after its budget.
    const res = await fetch(`${fleet.gatewayUrl}/v1/sessions/${sessionId}/network?follow=true`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(120_000),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = (async () =>
      (await res.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)))();

    // The host running the session dies; restarted under the same URL, it finds the session lost.
    await fleet.stopOne('browser-host', 'SIGKILL');
    fleet.startOne('browser-host');
    await fleet.waitReady(60_000);

    const frames = (await lines.catch(async (err) => {
      const now = await call<{ session: unknown }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, { key });
      throw new Error(`the followed log did not end; the session reads ${JSON.stringify(now.body.session)}`, {
        cause: err,
      });
    })) as { type?: string; error?: { code: string; message: string } }[];
    assert.equal(frames[0]?.type, 'header');
    assert.ok(
      frames.some((f) => f.type === 'request'),
      'the rows from before',
    );
    const outcome = (
      await call<{ session: { outcome: string } }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}`, { key })
    ).body.session?.outcome;
    assert.equal(outcome, 'host_lost');
    assert.deepEqual(frames.at(-1), { error: { code: 'page_lost', message: ERRORS.page_lost.message } });

    const after = await call(fleet.gatewayUrl, 'GET', `/v1/sessions/${sessionId}/network?follow=true`, { key });
    assert.equal(after.status, 422);
    assert.deepEqual(assertError(after.body, 'page_lost'), { reason: 'crashed' });
    // Without follow, the log as it stands.
    const read = await fetch(`${fleet.gatewayUrl}/v1/sessions/${sessionId}/network`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(read.status, 200);
    assert.match(await read.text(), /"type":"request"/);
  });
});

test('none of it made the gateway fail: no line at error level in its log', () => {
  const failures = readLogLines(fleet.logFile('gateway')).filter((l) => l.level === 'error' || l.level === 'fatal');
  assert.deepEqual(
    failures.map((l) => l.msg),
    [],
  );
});
