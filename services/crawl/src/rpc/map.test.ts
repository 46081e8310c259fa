// crawl.Map served in-process as production wires it (real Postgres, NATS and ledger) against
// local sites: the sitemaps robots.txt names (an index, a gzipped file), links when there are
// none, the ranking by words, the SSRF guard, and one credit per map.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { crawl, ledger } from '@wap/proto';
import { startTestSite, type TestSite } from '@wap/testsite';
import { type InProcessCrawl, proWorkspace, serveCrawl } from '../test-support.js';
import { rank } from './map.js';

let served: InProcessCrawl;
/** robots.txt names /sitemap.xml and /sitemap_index.xml (an index of child sitemaps of 10 URLs). */
let site: TestSite;

before(async () => {
  site = await startTestSite({ pages: 40, extras: false, sitemapChunk: 10 });
  served = await serveCrawl();
});
after(async () => {
  await served?.close();
  await site?.close();
});

const workspace = () => proWorkspace(served);

const map = (workspaceId: string, url: string, more: Partial<Omit<crawl.MapRequest, '$typeName'>> = {}) =>
  served.client.map({ workspaceId, requestId: randomUUID(), url, ...more });

const articles = (base: string, n: number) => Array.from({ length: n }, (_, i) => `${base}/articles/${i}`);

test('the sitemaps robots.txt names list the site, one URL per page, billed one page load', async () => {
  const workspaceId = await workspace();
  const out = await map(workspaceId, `${site.url}/`);
  const urls = out.links.map((l) => l.url);
  for (const url of articles(site.url, 40)) assert.ok(urls.includes(url), url);
  assert.equal(new Set(urls).size, urls.length, 'each page once');
  assert.ok(out.sitemapsRead >= 2, 'the sitemap and the index’s children were read');
  assert.deepEqual(
    out.usage?.meters.map((m) => [m.meter, m.quantity]),
    [[ledger.Meter.PAGE_LOAD, 1n]],
  );
});

test('a gzipped sitemap is read as the plain one', async () => {
  const port = await freePort();
  const gz = await startTestSite({
    pages: 12,
    extras: false,
    port,
    robotsTxt: `User-agent: *\nAllow: /\nSitemap: http://127.0.0.1:${port}/sitemap.xml.gz\n`,
  });
  try {
    const out = await map(await workspace(), `${gz.url}/`, { sitemap: crawl.SitemapMode.ONLY });
    const urls = out.links.map((l) => l.url);
    for (const url of articles(gz.url, 12)) assert.ok(urls.includes(url), url);
    assert.equal(out.pagesRead, 0, '`only` reads no page');
  } finally {
    await gz.close();
  }
});

test('without sitemaps, links are followed from the start page', async () => {
  const out = await map(await workspace(), `${site.url}/`, { sitemap: crawl.SitemapMode.SKIP });
  const urls = out.links.map((l) => l.url);
  for (const url of articles(site.url, 40)) assert.ok(urls.includes(url), url);
  assert.equal(out.sitemapsRead, 0);
  assert.ok(out.pagesRead >= 1);
});

test('limit bounds the answer, and search ranks whole words first', async () => {
  const out = await map(await workspace(), `${site.url}/`, { search: 'articles 7', limit: 2 });
  assert.equal(out.links.length, 2);
  assert.equal(out.links[0]?.url, `${site.url}/articles/7`);
});

test('rank: more words first, whole words before parts of words, ties in the order found', () => {
  const links = ['https://a.test/blog/17', 'https://a.test/docs', 'https://a.test/blog/7', 'https://a.test/about'].map(
    (url) => create(crawl.MapLinkSchema, { url }),
  );
  assert.deepEqual(
    rank(links, 'Blog 7').map((l) => l.url),
    ['https://a.test/blog/7', 'https://a.test/blog/17', 'https://a.test/docs', 'https://a.test/about'],
  );
  assert.deepEqual(rank(links, '  '), links);
});

test('a private address is refused before anything is fetched or billed', async () => {
  const workspaceId = await workspace();
  const before = await served.ledger.client.credits({ workspaceId });
  await assert.rejects(map(workspaceId, 'http://10.1.2.3/'), (err: { code?: string; details?: unknown }) => {
    assert.equal(err.code, 'page_unreachable');
    assert.deepEqual(err.details, { url: 'http://10.1.2.3/', reason: 'private_address' });
    return true;
  });
  const after = await served.ledger.client.credits({ workspaceId });
  assert.equal(after.availableMillicredits, before.availableMillicredits);
});

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
