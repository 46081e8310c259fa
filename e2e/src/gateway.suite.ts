import assert from 'node:assert/strict';
import { request } from 'node:http';
import { before, describe, test } from 'node:test';
import { ERRORS } from '@wap/errors';
import { call } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let key: string;
let keyId: string;

before(async () => {
  await sharedFleet('plain');
  ({ apiKey: key, keyId } = await fleet.workspace('pro'));
});

const isError = (body: unknown, code: keyof typeof ERRORS) => {
  const b = body as { code: string; message: string };
  assert.equal(b.code, code, JSON.stringify(body));
  assert.equal(b.message, ERRORS[code].message);
};

/** Two Authorization header lines, which fetch would fold into one. */
function twoCredentials(
  url: string,
  a: string,
  b: string,
): Promise<{ status: number; body: unknown; challenge: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/credits`, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(text),
          challenge: res.headers['www-authenticate'],
        }),
      );
    });
    req.setHeader('authorization', [`Bearer ${a}`, `Bearer ${b}`]);
    req.on('error', reject);
    req.end();
  });
}

/** The RFC 6750 challenges a 401 carries (docs/api.md, Requests). */
const CHALLENGE = (gateway = fleet.gatewayUrl) => {
  // The gateway is also the OAuth server of its API: each challenge says where the resource's metadata is (RFC 9728).
  const realm = `Bearer realm="api", resource_metadata="${gateway}/.well-known/oauth-protected-resource/v1"`;
  return {
    none: realm,
    request: `${realm}, error="invalid_request", error_description="send exactly one Authorization: Bearer <credential>"`,
    token: `${realm}, error="invalid_token", error_description="the credential is unknown, expired or revoked"`,
  };
};
const challengeOf = (r: { headers: Headers }) => r.headers.get('www-authenticate');

describe('auth', () => {
  test('a valid key reads credits', async () => {
    const r = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(typeof r.body.remaining, 'number');
    assert.ok(r.headers.get('x-request-id'));
    assert.equal(challengeOf(r), null, 'only a 401 carries a challenge');
  });

  type Challenge = keyof ReturnType<typeof CHALLENGE>;
  const cases: [string, Record<string, string>, string, Challenge][] = [
    ['no header', {}, 'missing', 'none'],
    ['not Bearer', { authorization: 'Basic dXNlcjpwYXNz' }, 'malformed', 'request'],
    ['Bearer with nothing', { authorization: 'Bearer ' }, 'malformed', 'request'],
    ['not a credential', { authorization: 'Bearer hello' }, 'malformed', 'request'],
    [
      'unknown key',
      { authorization: 'Bearer ock_aaaaaaaaaaaaaaaa.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      'invalid',
      'token',
    ],
    ['two credentials in one header', { authorization: 'Bearer a, Bearer b' }, 'malformed', 'request'],
  ];
  for (const [name, headers, reason, challenge] of cases) {
    test(`401 unauthorized: ${name}`, async () => {
      const r = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { headers });
      assert.equal(r.status, 401);
      isError(r.body, 'unauthorized');
      assert.equal((r.body.details as { reason: string }).reason, reason);
      assert.equal(challengeOf(r), CHALLENGE()[challenge]);
    });
  }

  test('401 unauthorized: right key id, wrong secret', async () => {
    const forged = `ock_${keyId}.${'B'.repeat(43)}`;
    const r = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: forged });
    assert.equal(r.status, 401);
    isError(r.body, 'unauthorized');
    assert.equal(challengeOf(r), CHALLENGE().token);
  });

  test('401 unauthorized: two Authorization headers', async () => {
    const r = await twoCredentials(fleet.gatewayUrl, key, key);
    assert.equal(r.status, 401);
    isError(r.body, 'unauthorized');
    assert.equal((r.body as { details: { reason: string } }).details.reason, 'multiple');
    assert.equal(r.challenge, CHALLENGE().request);
  });

  test('an OAuth token nobody issued is refused', async () => {
    const r = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: 'oat_notissued' });
    assert.equal(r.status, 401);
    isError(r.body, 'unauthorized');
    assert.equal(challengeOf(r), CHALLENGE().token);
  });

  test('a 401 on a POST route and on an unknown route carries the challenge too', async () => {
    const scrape = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', { body: { url: 'https://example.com' } });
    assert.equal(scrape.status, 401);
    assert.equal(challengeOf(scrape), CHALLENGE().none);
    // An unknown route is 404 whatever the credential: no challenge.
    const unknown = await call(fleet.gatewayUrl, 'GET', '/v1/nope');
    assert.equal(unknown.status, 404);
    assert.equal(challengeOf(unknown), null);
  });

  test('revocation takes effect on the next request, on every gateway that cached the key', async () => {
    const second = await fleet.extraGateway();
    try {
      const { apiKey, keyId: id } = await fleet.workspace('pro');
      // Both gateways have now read the key, and keep it in memory.
      for (const url of [fleet.gatewayUrl, second.url, fleet.gatewayUrl, second.url]) {
        assert.equal((await call(url, 'GET', '/v1/credits', { key: apiKey })).status, 200);
      }
      const revoked = await fleet.admin<{ gateways: number; acknowledged: number }>('key', 'revoke', id);
      assert.equal(revoked.gateways, 2);
      assert.equal(revoked.acknowledged, 2, 'both gateways confirmed they dropped the key');
      for (const url of [fleet.gatewayUrl, second.url]) {
        const r = await call(url, 'GET', '/v1/credits', { key: apiKey });
        assert.equal(r.status, 401);
        assert.equal((r.body.details as { reason: string }).reason, 'revoked');
        assert.equal(challengeOf(r), CHALLENGE(url).token);
      }
    } finally {
      await second.stop();
    }
  });

  test('a key issued for MCP only is 403 tenant_scope on REST; a REST-only key works', async () => {
    const { workspaceId } = await fleet.workspace('free');
    const mcpOnly = await fleet.admin<{ apiKey: string }>('key', 'create', workspaceId, '--surfaces', 'mcp');
    const r = await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: mcpOnly.apiKey });
    assert.equal(r.status, 403);
    isError(r.body, 'tenant_scope');
    assert.equal((r.body.details as { surface: string }).surface, 'rest');
    const restOnly = await fleet.admin<{ apiKey: string }>('key', 'create', workspaceId, '--surfaces', 'rest');
    assert.equal((await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: restOnly.apiKey })).status, 200);
    // A wrong secret on a scoped key is still 401: scope is checked only for a valid credential.
    const forged = `${mcpOnly.apiKey.slice(0, mcpOnly.apiKey.indexOf('.'))}.${'C'.repeat(43)}`;
    assert.equal((await call(fleet.gatewayUrl, 'GET', '/v1/credits', { key: forged })).status, 401);
    await assert.rejects(fleet.admin('key', 'create', workspaceId, '--surfaces', 'ftp'), /surfaces are rest, mcp/);
  });

  test('public routes need no credential', async () => {
    for (const path of ['/v1/openapi.json', '/docs', '/docs/scalar.js', '/healthz', '/readyz']) {
      const r = await call(fleet.gatewayUrl, 'GET', path);
      assert.equal(r.status, 200, path);
    }
    const bundle = await fetch(`${fleet.gatewayUrl}/docs/scalar.js`);
    assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000, 'the reference page script is served whole');
  });
});

describe('errors', () => {
  test('unknown route: 404 not_found', async () => {
    const r = await call(fleet.gatewayUrl, 'GET', '/v1/nope', { key });
    assert.equal(r.status, 404);
    isError(r.body, 'not_found');
  });

  test('wrong method: 405 with Allow', async () => {
    const r = await call(fleet.gatewayUrl, 'DELETE', '/v1/credits', { key });
    assert.equal(r.status, 405);
    isError(r.body, 'method_not_allowed');
    assert.equal(r.headers.get('allow'), 'GET, HEAD');
    assert.deepEqual((r.body.details as { allow: string[] }).allow, ['GET', 'HEAD']);
  });

  test('schema violation: 400 with the field path', async () => {
    const r = await call(fleet.gatewayUrl, 'GET', '/v1/usage?from=yesterday', { key });
    assert.equal(r.status, 400);
    isError(r.body, 'bad_request');
    const issues = (r.body.details as { issues: { path: string }[] }).issues;
    assert.deepEqual(
      issues.map((i) => i.path),
      ['query.from'],
    );
  });

  test('a usage range backwards or over 366 days: 400 naming query.from (docs/api.md)', async () => {
    for (const range of [
      'from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=2024-01-01T00:00:00Z&to=2025-01-02T00:00:00Z',
    ]) {
      const r = await call(fleet.gatewayUrl, 'GET', `/v1/usage?${range}`, { key });
      assert.equal(r.status, 400, range);
      isError(r.body, 'bad_request');
      const issues = (r.body.details as { issues: { path: string }[] }).issues;
      assert.deepEqual(
        issues.map((i) => i.path),
        ['query.from'],
      );
    }
    const year = await call(fleet.gatewayUrl, 'GET', '/v1/usage?from=2024-01-01T00:00:00Z&to=2024-12-31T00:00:00Z', {
      key,
    });
    assert.equal(year.status, 200, JSON.stringify(year.body));
  });

  test('an oversized body: 413 bad_request with the limit', async () => {
    const r = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key,
      rawBody: `{"url":"${'a'.repeat(2_000_000)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 413);
    isError(r.body, 'bad_request');
    assert.equal((r.body.details as { limit: number }).limit, 1_048_576);
  });

  test('a body that is not JSON: 400 naming the body', async () => {
    const r = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key,
      rawBody: '{"url": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 400);
    isError(r.body, 'bad_request');
    assert.deepEqual(
      (r.body.details as { issues: { path: string }[] }).issues.map((i) => i.path),
      ['body'],
    );
  });

  const issuePaths = (body: unknown) =>
    (body as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path);

  test('a body sent as text/plain or with no content type: 415 bad_request, nothing done', async () => {
    const json = '{"url":"https://example.com/"}';
    const sent: [string, string | Uint8Array, Record<string, string>][] = [
      ['text/plain', json, { 'content-type': 'text/plain' }],
      ['no content type', new TextEncoder().encode(json), {}],
      ['a form', json, { 'content-type': 'application/x-www-form-urlencoded' }],
    ];
    for (const [what, rawBody, headers] of sent) {
      const r = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', { key, rawBody, headers });
      assert.equal(r.status, 415, what);
      isError(r.body, 'bad_request');
      assert.deepEqual(issuePaths(r.body), ['header.Content-Type']);
    }
    const vendor = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key,
      rawBody: '{"url": 5}',
      headers: { 'content-type': 'application/merge-patch+json; charset=utf-8' },
    });
    assert.equal(vendor.status, 400, 'a +json type is JSON: read, then validated');
    assert.deepEqual(issuePaths(vendor.body), ['body.url']);
  });

  test('a JSON body that is not an object is 400 naming the body, not taken for broken JSON', async () => {
    for (const rawBody of ['"AAA"', 'null', '0', '[]']) {
      const r = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
        key,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400, rawBody);
      const issues = (r.body.details as { issues: { path: string; message: string }[] }).issues;
      assert.deepEqual(
        issues.map((i) => i.path),
        ['body'],
      );
      assert.doesNotMatch(issues[0]?.message ?? '', /valid JSON/, rawBody);
    }
  });

  test('an unknown field is refused by name, at any depth, in the body and the query', async () => {
    const typo = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key,
      body: { url: 'https://example.com/', format: ['markdown'] },
    });
    assert.equal(typo.status, 400, JSON.stringify(typo.body));
    assert.deepEqual(issuePaths(typo.body), ['body.format']);
    const deep = await call(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: { url: 'https://example.com/', scrapeOptions: { onlyMainContents: false } },
    });
    assert.deepEqual(issuePaths(deep.body), ['body.scrapeOptions.onlyMainContents']);
    const query = await call(fleet.gatewayUrl, 'GET', '/v1/credits?verbose=1', { key });
    assert.equal(query.status, 400);
    assert.deepEqual(issuePaths(query.body), ['query.verbose']);
  });

  test('a NUL anywhere in the input is 400 naming where, never a 500', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', '/v1/crawl', { url: 'https://example.com/', includePaths: ['/a\u0000'] }, 'body.includePaths.0'],
      ['POST', '/v1/crawl', { url: 'https://example.com/', excludePaths: ['\u0000'] }, 'body.excludePaths.0'],
      [
        'POST',
        '/v1/crawl',
        { url: 'https://example.com/', scrapeOptions: { excludeTags: ['p\u0000'] } },
        'body.scrapeOptions.excludeTags.0',
      ],
      ['POST', '/v1/scrape', { url: 'https://example.com/', headers: { 'x-a': 'b\u0000' } }, 'body.headers.x-a'],
      ['POST', '/v1/scrape', { url: 'https://example.com/', headers: { 'x\u0000': 'b' } }, 'body.headers'],
      ['POST', '/v1/search', { query: 'herons\u0000' }, 'body.query'],
    ];
    for (const [method, path, body, at] of cases) {
      const r = await call(fleet.gatewayUrl, method, path, { key, body });
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(issuePaths(r.body), [at]);
    }
    const query = await call(fleet.gatewayUrl, 'GET', '/v1/usage?from=%00', { key });
    assert.equal(query.status, 400);
    assert.deepEqual(issuePaths(query.body), ['query.from']);
  });

  test('headers no engine can send are 400 naming the header', async () => {
    for (const [headers, at] of [
      [{ 'bad name': 'x' }, 'body.headers.bad name'],
      [{ 'x-split': 'a\r\nInjected: 1' }, 'body.headers.x-split'],
      [{ 'x-accent': 'caf\u00e9' }, 'body.headers.x-accent'],
    ] as const) {
      for (const engine of ['fetch', 'browser']) {
        const r = await call(fleet.gatewayUrl, 'POST', '/v1/scrape', {
          key,
          body: { url: 'https://example.com/', headers, engine },
        });
        assert.equal(r.status, 400, `${engine} ${JSON.stringify(headers)}: ${JSON.stringify(r.body)}`);
        assert.ok(issuePaths(r.body).includes(at), JSON.stringify(r.body));
      }
    }
  });

  test('bad percent-encoding in a path is 400, with or without a credential', async () => {
    for (const path of ['/v1/crawl/%FF', '/v1/crawl/%C3%28', '/v1/crawl/%', '/v1/crawl/%FF/results']) {
      for (const withKey of [true, false]) {
        const r = await call(fleet.gatewayUrl, 'GET', path, withKey ? { key } : {});
        assert.ok(r.status === 400 || (!withKey && r.status === 401), `${path}: ${r.status} ${JSON.stringify(r.body)}`);
        if (r.status === 400) isError(r.body, 'bad_request');
      }
    }
  });

  test('every response carries a request id, errors included', async () => {
    const r = await call(fleet.gatewayUrl, 'GET', '/v1/nope');
    assert.match(r.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  });
});

describe('rate limits', () => {
  // The limiter counts per minute of the clock (rate_limit_take: epoch minutes, on this machine's clock) and
  // weighs the previous minute in: a burst across a boundary is admitted more than the budget, by design.
  const minute = () => Math.floor(Date.now() / 60_000);
  /** Starts `burst` with at least `roomMs` of the current minute left (waiting for the next when less is). */
  async function inOneMinute<T>(burst: () => Promise<T>, roomMs = 30_000): Promise<T> {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < roomMs) await new Promise((r) => setTimeout(r, left + 20));
    const started = minute();
    const result = await burst();
    assert.equal(minute(), started, `the burst fit in one minute's window (it took over ${roomMs / 1000} s)`);
    return result;
  }

  test('two gateway replicas share one workspace budget', async () => {
    const second = await fleet.extraGateway();
    try {
      const { apiKey } = await fleet.workspace('free'); // 120 requests per minute
      const statuses: number[] = [];
      const burst = async (url: string) => {
        for (let i = 0; i < 20; i++) {
          const batch = await Promise.all(
            Array.from({ length: 8 }, () => call(url, 'GET', '/v1/credits', { key: apiKey })),
          );
          statuses.push(...batch.map((r) => r.status));
        }
      };
      // The request after the burst too: a new minute could admit it.
      const r = await inOneMinute(async () => {
        await Promise.all([burst(fleet.gatewayUrl), burst(second.url)]);
        return call(second.url, 'GET', '/v1/credits', { key: apiKey });
      });
      const accepted = statuses.filter((s) => s === 200).length;
      const limited = statuses.filter((s) => s === 429).length;
      assert.equal(accepted + limited, 320);
      assert.ok(Math.abs(accepted - 120) <= 6, `accepted ${accepted}, the plan allows 120 (±5%)`);

      assert.equal(r.status, 429);
      isError(r.body, 'concurrency_limit');
      assert.equal((r.body.details as { kind: string }).kind, 'requests_per_minute');
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      assert.match(r.headers.get('ratelimit-policy') ?? '', /q=120;w=60/);
      assert.match(r.headers.get('ratelimit') ?? '', /r=0;t=\d+/);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });

  test('a busy pro workspace (taken in batches of up to 15) is held to its budget across two replicas', async () => {
    const second = await fleet.extraGateway();
    try {
      const { apiKey } = await fleet.workspace('pro'); // 1,500 requests per minute: batches of up to 15
      let accepted = 0;
      let limited = 0;
      let lowest = Number.POSITIVE_INFINITY;
      const burst = async (url: string) => {
        for (let i = 0; i < 100; i++) {
          const batch = await Promise.all(
            Array.from({ length: 10 }, () => call(url, 'GET', '/v1/credits', { key: apiKey })),
          );
          for (const r of batch) {
            if (r.status === 200) {
              accepted++;
              const left = Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]);
              lowest = Math.min(lowest, left);
            } else {
              assert.equal(r.status, 429, JSON.stringify(r.body));
              limited++;
            }
          }
        }
      };
      await inOneMinute(async () => {
        await Promise.all([burst(fleet.gatewayUrl), burst(second.url)]);
      });
      assert.equal(accepted + limited, 2000);
      assert.ok(accepted <= 1500, `accepted ${accepted}: never more than the plan allows`);
      assert.ok(accepted >= 1425, `accepted ${accepted}, the plan allows 1,500 (within 5%)`);
      assert.equal(lowest, 0, 'the last admitted requests report the budget spent');
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });
});
