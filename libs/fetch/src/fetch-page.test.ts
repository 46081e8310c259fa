import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isApiError } from '@wap/errors';
import { AllowList } from '@wap/netguard';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import {
  createFetchAgent,
  DESKTOP_USER_AGENT,
  type FetchAgent,
  FetchFailure,
  fetchPage,
  fetchText,
  MOBILE_USER_AGENT,
  requireText,
} from './index.js';

async function failure(call: Promise<unknown>): Promise<{ details: unknown; kind: string }> {
  const err = await call.then(
    () => assert.fail('the fetch succeeded'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err) && err.code === 'page_unreachable', String(err));
  assert.ok(err.cause instanceof FetchFailure);
  return { details: err.details, kind: err.cause.kind };
}

/** Polls `check` until it holds, every 10 ms; throws after `timeoutMs` (a ceiling, not a pace). */
const waitFor = (what: string, check: () => boolean, timeoutMs = 30_000) => until(what, check, timeoutMs, 10);

describe('fetchPage', () => {
  let site: TestSite;
  let agent: FetchAgent;
  before(async () => {
    site = await startTestSite({ pages: 10, hugeBytes: 3 * 1024 * 1024, bombBytes: 16 * 1024 * 1024 });
    agent = createFetchAgent({ allow: AllowList.parse('127.0.0.0/8, ::1/128') });
  });
  after(async () => {
    await agent.close();
    await site.close();
  });

  it('returns a page with its metadata and timings', async () => {
    const page = await fetchPage(`${site.url}/articles/3#ignored`, { agent });
    assert.equal(page.finalUrl, `${site.url}/articles/3`);
    assert.equal(page.status, 200);
    assert.equal(page.mediaType, 'text/html');
    assert.deepEqual(page.redirects, []);
    assert.ok(page.body?.includes(site.article(3).sections[0]?.paragraphs[0] ?? '?'));
    assert.ok(page.timings.headersMs > 0 && page.timings.totalMs >= page.timings.headersMs);
  });

  it('records a redirect chain hop by hop, with each status', async () => {
    const page = await fetchPage(`${site.url}/redirect/chain/4`, { agent });
    assert.equal(page.finalUrl, `${site.url}/articles/1`);
    assert.deepEqual(
      page.redirects.map((r) => [new URL(r.url).pathname, r.status]),
      [
        ['/redirect/chain/4', 301],
        ['/redirect/chain/3', 308],
        ['/redirect/chain/2', 307],
        ['/redirect/chain/1', 302],
      ],
    );
    const relative = await fetchPage(`${site.url}/redirect/relative`, { agent });
    assert.equal(relative.finalUrl, `${site.url}/articles/2`);
  });

  it('detects a redirect loop and a chain longer than the limit', async () => {
    const loop = await failure(fetchPage(`${site.url}/redirect/loop/a`, { agent }));
    assert.equal(loop.kind, 'too_many_redirects');
    assert.deepEqual(loop.details, { url: `${site.url}/redirect/loop/a`, reason: 'too_many_redirects' });
    assert.equal((await failure(fetchPage(`${site.url}/redirect/self`, { agent }))).kind, 'too_many_redirects');
    const long = await failure(fetchPage(`${site.url}/redirect/chain/4`, { agent, maxRedirects: 3 }));
    assert.equal(long.kind, 'too_many_redirects');
  });

  it('answers 404 and 500 as pages, and a redirect without Location as itself', async () => {
    for (const status of [404, 500]) {
      const page = await fetchPage(`${site.url}/status/${status}`, { agent });
      assert.equal(page.status, status);
      assert.match(page.body ?? '', new RegExp(`Error ${status}`));
    }
    assert.equal((await fetchPage(`${site.url}/no/such/page`, { agent })).status, 404);
    assert.equal((await fetchPage(`${site.url}/redirect/no-location`, { agent })).status, 302);
  });

  it('bounds a page that never finishes, by the overall timeout', async () => {
    // /hang never ends its body: only the timeout can end the fetch.
    const r = await failure(fetchPage(`${site.url}/hang`, { agent, timeoutMs: 300 }));
    assert.equal(r.kind, 'timeout');
    assert.deepEqual(r.details, { url: `${site.url}/hang`, reason: 'timeout' });
  });

  it('bounds silent headers and a stalled body by their own timeouts', async () => {
    const headers = await failure(fetchPage(`${site.url}/hang-headers`, { agent, headersTimeoutMs: 200 }));
    assert.equal(headers.kind, 'timeout');
    const body = await failure(fetchPage(`${site.url}/hang`, { agent, bodyTimeoutMs: 200 }));
    assert.equal(body.kind, 'timeout');
    const slow = await failure(fetchPage(`${site.url}/slow/3000`, { agent, timeoutMs: 200 }));
    assert.equal(slow.kind, 'timeout');
  });

  it('honours a budget longer than 15 s for the headers of a slow page', async () => {
    const page = await fetchPage(`${site.url}/slow/16000`, { agent, timeoutMs: 60_000 });
    assert.equal(page.status, 200);
  });

  it('refuses a header no engine can send, before any connection: bad_request naming it', async () => {
    for (const [name, value] of [
      ['bad name', 'x'],
      ['x-nul', 'a\u0000b'],
      ['x-split', 'a\r\nInjected: yes'],
      ['x-accent', 'caf\u00e9'],
      ['', 'empty name'],
    ] as const) {
      const err = await fetchPage(`${site.url}/articles/1`, { agent, headers: { [name]: value } }).then(
        () => assert.fail(`${JSON.stringify(name)} was sent`),
        (e: unknown) => e,
      );
      assert.ok(isApiError(err) && err.code === 'bad_request', String(err));
      assert.deepEqual(
        ((err.details?.issues ?? []) as { path: string }[]).map((i) => i.path),
        [`headers.${name}`],
      );
    }
  });

  it('keeps no pooled connection after any kind of failure', { timeout: 60_000 }, async () => {
    // Two connections to the site: three failures of one kind in a row would use them all up if one leaked.
    const small = createFetchAgent({ allow: AllowList.parse('127.0.0.0/8'), connectionsPerOrigin: 2 });
    const kinds: [string, () => Promise<unknown>][] = [
      ['a bad header name', () => fetchPage(`${site.url}/articles/1`, { agent: small, headers: { 'bad name': 'x' } })],
      ['a NUL in a value', () => fetchPage(`${site.url}/articles/1`, { agent: small, headers: { x: 'a\u0000' } })],
      ['a stalled body', () => fetchPage(`${site.url}/hang`, { agent: small, timeoutMs: 150 })],
      ['silent headers', () => fetchPage(`${site.url}/hang-headers`, { agent: small, timeoutMs: 150 })],
      ["the caller's abort", () => fetchPage(`${site.url}/hang`, { agent: small, signal: AbortSignal.timeout(150) })],
      ['a body over the cap', () => fetchPage(`${site.url}/huge/chunked`, { agent: small, maxBytes: 64 * 1024 })],
      ['a declared body over the cap', () => fetchPage(`${site.url}/huge`, { agent: small, maxBytes: 64 * 1024 })],
      ['a decompression bomb', () => fetchPage(`${site.url}/bomb.gz`, { agent: small, maxBytes: 64 * 1024 })],
      ['a redirect loop', () => fetchPage(`${site.url}/redirect/loop/a`, { agent: small })],
      ['a redirect to a private address', () => fetchPage(`${site.url}/redirect/private`, { agent: small })],
    ];
    try {
      for (const [kind, fail] of kinds) {
        for (let i = 0; i < 3; i++)
          await fail().then(
            () => assert.fail(`${kind} succeeded`),
            () => undefined,
          );
        const page = await fetchPage(`${site.url}/articles/2`, { agent: small, timeoutMs: 5_000 }).catch(
          (err: unknown) => assert.fail(`after ${kind}: ${String(err)}`),
        );
        assert.equal(page.status, 200, kind);
      }
    } finally {
      await small.close();
    }
  });

  it("rethrows the caller's abort reason instead of a page error", async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const before = site.stats.count('/hang');
    const fetching = fetchPage(`${site.url}/hang`, { agent, signal: controller.signal });
    await waitFor('the site has the request', () => site.stats.count('/hang') > before);
    controller.abort(reason);
    await assert.rejects(fetching, (e) => e === reason);
  });

  it('stops at the size cap: declared length, chunked stream, and decompression bomb', async () => {
    for (const path of ['/huge', '/huge/chunked', '/bomb.gz']) {
      const r = await failure(fetchPage(`${site.url}${path}`, { agent, maxBytes: 1024 * 1024 }));
      assert.equal(r.kind, 'too_large', path);
    }
    const whole = await fetchPage(`${site.url}/huge`, { agent, maxBytes: 4 * 1024 * 1024 });
    assert.equal(whole.bytes.length, 3 * 1024 * 1024);
  });

  for (const encoding of ['gzip', 'x-gzip', 'deflate', 'deflate-raw', 'br', 'zstd', 'identity']) {
    it(`decodes ${encoding} bodies`, async () => {
      const page = await fetchPage(`${site.url}/compressed/${encoding}`, { agent });
      assert.equal(page.status, 200);
      assert.ok(page.body?.includes(site.article(0).title), encoding);
      assert.ok(page.body?.trimEnd().endsWith('</html>'));
    });
  }

  it('negotiates compression on ordinary pages', async () => {
    const page = await fetchPage(`${site.url}/articles/4`, { agent });
    assert.equal(page.headers['content-encoding'], 'br');
  });

  it('caps a body by its type when asked: a document may be larger than a page', async () => {
    const url = `${site.url}/files/report.pdf`;
    await assert.rejects(
      fetchPage(url, { agent, maxBytes: 100 }),
      (e) => isApiError(e) && e.details?.reason === 'too_large',
    );
    const forPdf = (type: string) => (type.startsWith('application/pdf') ? 1024 * 1024 : undefined);
    const pdf = await fetchPage(url, { agent, maxBytes: 100, maxBytesFor: forPdf });
    assert.ok(pdf.bytes.length > 100);
    await assert.rejects(
      fetchPage(`${site.url}/articles/1`, { agent, maxBytes: 100, maxBytesFor: forPdf }),
      (e) => isApiError(e) && e.details?.reason === 'too_large',
    );
  });

  it('returns binary bodies as bytes only, and requireText refuses them', async () => {
    const pdf = await fetchPage(`${site.url}/files/report.pdf`, { agent });
    assert.equal(pdf.body, undefined);
    assert.equal(pdf.bytes.subarray(0, 5).toString(), '%PDF-');
    assert.throws(
      () => requireText(pdf, ['markdown']),
      (e) => isApiError(e) && e.code === 'document_unrepresentable' && e.details?.contentType === 'application/pdf',
    );
    const png = await fetchPage(`${site.url}/files/image.png`, { agent });
    assert.equal(png.body, undefined);
    const untyped = await fetchPage(`${site.url}/files/report-untyped`, { agent });
    assert.equal(untyped.contentType, '');
    assert.equal(untyped.body, undefined);
    const json = await fetchPage(`${site.url}/files/data.json`, { agent });
    assert.equal(requireText(json, ['rawHtml']).trim(), '{"archive":"county","items":3}');
  });

  it('sends a desktop or a mobile User-Agent, and custom headers', async () => {
    const desktop = await fetchPage(`${site.url}/ua`, { agent });
    assert.match(desktop.body ?? '', /desktop/);
    const mobile = await fetchPage(`${site.url}/ua`, { agent, mobile: true });
    assert.match(mobile.body ?? '', /mobile/);
    const echo = await fetchPage(`${site.url}/headers`, {
      agent,
      headers: { 'X-Test': 'yes', 'User-Agent': 'custom/1.0', 'Accept-Encoding': 'identity', Host: 'evil.example' },
    });
    const sent = JSON.parse(echo.body ?? '{}') as Record<string, string>;
    assert.equal(sent['x-test'], 'yes');
    assert.equal(sent['user-agent'], 'custom/1.0');
    assert.match(sent['accept-encoding'] ?? '', /gzip/);
    assert.notEqual(sent.host, 'evil.example');
    assert.notEqual(DESKTOP_USER_AGENT, MOBILE_USER_AGENT);
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const headers = { Authorization: 'Bearer secret', Cookie: 'sid=1', 'X-Keep': 'kept' };
    const same = await fetchPage(`${site.url}/redirect/to?url=/headers`, { agent, headers });
    assert.equal((JSON.parse(same.body ?? '{}') as Record<string, string>).authorization, 'Bearer secret');
    const target = encodeURIComponent(`http://localhost:${site.port}/headers`);
    const other = await fetchPage(`${site.url}/redirect/to?url=${target}`, { agent, headers });
    const sent = JSON.parse(other.body ?? '{}') as Record<string, string>;
    assert.equal(sent.authorization, undefined);
    assert.equal(sent.cookie, undefined);
    assert.equal(sent['x-keep'], 'kept');
  });
});

describe('fetchText', () => {
  let site: TestSite;
  let agent: FetchAgent;
  before(async () => {
    site = await startTestSite({ pages: 30, crawlDelay: 2 });
    agent = createFetchAgent({ allow: AllowList.parse('127.0.0.0/8') });
  });
  after(async () => {
    await agent.close();
    await site.close();
  });

  it('reads robots.txt and sitemaps, gzipped ones included', async () => {
    assert.match((await fetchText(`${site.url}/robots.txt`, { agent })).text, /Crawl-delay: 2/);
    const plain = await fetchText(`${site.url}/sitemap.xml`, { agent });
    const gz = await fetchText(`${site.url}/sitemap.xml.gz`, { agent });
    assert.equal(gz.text, plain.text);
    assert.equal(plain.text.match(/<loc>/g)?.length, site.paths.length);
  });

  it('applies its small cap, also after gunzip', async () => {
    assert.equal((await failure(fetchText(`${site.url}/sitemap.xml`, { agent, maxBytes: 512 }))).kind, 'too_large');
    assert.equal((await failure(fetchText(`${site.url}/sitemap.xml.gz`, { agent, maxBytes: 2048 }))).kind, 'too_large');
  });
});
