import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createFetchAgent } from '@wap/fetch';
import { AllowList } from '@wap/netguard';
import { startTestSite, type TestSite } from '@wap/testsite';
import { fetchRobotsTxt, parseRobots, sitemapUrls } from './site-files.js';

let site: TestSite;
const agent = createFetchAgent({ allow: AllowList.parse('127.0.0.0/8') });

before(async () => {
  site = await startTestSite({ pages: 250, extras: false, crawlDelay: 2, disallow: ['/private/', '/articles/7'] });
});
after(async () => {
  await site.close();
  await agent.close();
});

test("robots.txt: our agent follows the '*' group, its Crawl-delay and its sitemaps", async () => {
  const robots = parseRobots(site.url, await fetchRobotsTxt(site.url, agent));
  assert.equal(robots.allowed(`${site.url}/articles/1`), true);
  assert.equal(robots.allowed(`${site.url}/articles/7`), false);
  assert.equal(robots.allowed(`${site.url}/private/secret`), false);
  assert.equal(robots.delayMs, 2_000);
  assert.deepEqual(robots.sitemaps, [`${site.url}/sitemap.xml`, `${site.url}/sitemap_index.xml`]);
});

test('no robots.txt (or an unreachable one) allows everything', async () => {
  const robots = parseRobots('http://127.0.0.1:1', await fetchRobotsTxt('http://127.0.0.1:1', agent));
  assert.equal(robots.allowed('http://127.0.0.1:1/anything'), true);
  assert.equal(robots.delayMs, undefined);
});

test('a robots.txt behind the guard is not fetched: everything it would say is unknown, not leaked', async () => {
  const strict = createFetchAgent();
  try {
    assert.equal(await fetchRobotsTxt(site.url, strict), null);
  } finally {
    await strict.close();
  }
});

test('sitemaps: a urlset, an index of child sitemaps, a gzipped one, and the cap', async () => {
  const all = site.paths.map((p) => `${site.url}${p}`).sort();
  assert.deepEqual((await sitemapUrls([`${site.url}/sitemap.xml`], { agent, maxUrls: 10_000 })).sort(), all);
  assert.deepEqual((await sitemapUrls([`${site.url}/sitemap_index.xml`], { agent, maxUrls: 10_000 })).sort(), all);
  assert.deepEqual((await sitemapUrls([`${site.url}/sitemap.xml.gz`], { agent, maxUrls: 10_000 })).sort(), all);
  assert.equal((await sitemapUrls([`${site.url}/sitemap_index.xml`], { agent, maxUrls: 120 })).length, 120);
  assert.deepEqual(await sitemapUrls([`${site.url}/missing.xml`], { agent, maxUrls: 10 }), []);
});

test('sitemaps read several files at once still list URLs in the order one at a time would', async () => {
  const index = [`${site.url}/sitemap_index.xml`];
  const oneByOne = await sitemapUrls(index, { agent, maxUrls: 10_000, concurrency: 1 });
  assert.ok(oneByOne.length > 200);
  assert.deepEqual(await sitemapUrls(index, { agent, maxUrls: 10_000, concurrency: 4 }), oneByOne);
  assert.deepEqual(await sitemapUrls(index, { agent, maxUrls: 150, concurrency: 4 }), oneByOne.slice(0, 150));
  // The index itself is a file: with at most 1, only it is read, and it lists no page.
  assert.deepEqual(await sitemapUrls(index, { agent, maxUrls: 10_000, maxFiles: 1, concurrency: 4 }), []);
});
