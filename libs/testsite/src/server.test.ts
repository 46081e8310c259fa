import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { until } from '@wap/testkit';
import { mainText, STATIC_PAGES, startTestSite, type TestSite } from './index.js';

/** Polls `check` until it holds, every 5 ms; throws after `timeoutMs` (a ceiling, not a pace). */
const waitFor = (what: string, check: () => boolean, timeoutMs = 30_000) => until(what, check, timeoutMs, 5);

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { redirect: 'manual', headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8') };
}

function hrefs(html: string, base: string): string[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((m) => new URL(m[1] as string, base).href);
}

describe('startTestSite', () => {
  let site: TestSite;
  before(async () => {
    site = await startTestSite({ pages: 40, crawlDelay: 1, disallow: ['/private/', '/trap/'] });
  });
  after(() => site.close());

  it('is deterministic for a seed and different for another', async () => {
    const other = await startTestSite({ pages: 40, seed: 2 });
    const same = await startTestSite({ pages: 40 });
    try {
      const body = (s: TestSite) => get(`${s.url}/articles/7`).then((r) => r.text.replaceAll(s.url, ''));
      assert.equal(await body(same), await body(site));
      assert.notEqual(await body(other), await body(site));
      assert.equal(mainText(site.article(7)), mainText(same.article(7)));
    } finally {
      await Promise.all([other.close(), same.close()]);
    }
  });

  it('serves articles with their main text inside boilerplate', async () => {
    const a = site.article(5);
    const r = await get(`${site.url}${a.path}`);
    assert.equal(r.status, 200);
    for (const p of a.sections.flatMap((s) => s.paragraphs)) assert.ok(r.text.includes(p));
    assert.match(r.text, /<nav class="main-nav">[\s\S]*<footer class="site-footer">/);
    assert.match(r.text, new RegExp(`<link rel="canonical" href="${site.url}/articles/5">`));
  });

  it('links every page from the home page within a few hops, and nothing else when extras are off', async () => {
    const small = await startTestSite({ pages: 100, extras: false });
    try {
      const seen = new Set([`${small.url}/`]);
      let frontier = [`${small.url}/`];
      let depth = 0;
      while (frontier.length > 0) {
        const next: string[] = [];
        for (const url of frontier) {
          const r = await get(url);
          assert.equal(r.status, 200, url);
          for (const href of hrefs(r.text, url).filter((h) => !seen.has(h))) {
            seen.add(href);
            next.push(href);
          }
        }
        frontier = next;
        depth++;
      }
      assert.deepEqual([...seen].map((u) => new URL(u).pathname).sort(), [...small.paths].sort());
      assert.equal(small.paths.length, 1 + STATIC_PAGES.length + 100);
      assert.ok(depth <= 10, `depth ${depth}`);
    } finally {
      await small.close();
    }
  });

  it('renders script pages only after load', async () => {
    const r = await get(`${site.url}/rendered/0`);
    assert.match(r.text, /<p class="loading">/);
    assert.ok(!r.text.includes(`<p>${site.renderedArticle(0).sections[0]?.paragraphs[0]}</p>`));
    assert.match(r.text, /addEventListener\('load'/);
  });

  it('serves robots.txt with the configured rules and sitemaps that list every page', async () => {
    const robots = (await get(`${site.url}/robots.txt`)).text;
    assert.match(robots, /User-agent: \*\nDisallow: \/private\/\nDisallow: \/trap\/\nCrawl-delay: 1/);
    assert.match(robots, new RegExp(`Sitemap: ${site.url}/sitemap_index.xml`));
    const all = (await get(`${site.url}/sitemap.xml`)).text.match(/<loc>/g)?.length;
    assert.equal(all, site.paths.length);
    const index = (await get(`${site.url}/sitemap_index.xml`)).text;
    const children = [...index.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] as string);
    assert.equal(children.length, 1);
    const listed = (await get(children[0] as string)).text.match(/<loc>/g)?.length;
    assert.equal(listed, site.paths.length);
    const gz = await get(`${site.url}/sitemap.xml.gz`);
    assert.equal(gunzipSync(gz.bytes).toString(), (await get(`${site.url}/sitemap.xml`)).text);
  });

  it('redirects as its table says', async () => {
    const cases: [string, number, string][] = [
      ['/redirect/301', 301, '/articles/0'],
      ['/redirect/308', 308, '/articles/0'],
      ['/redirect/chain/2', 307, '/redirect/chain/1'],
      ['/redirect/chain/1', 302, '/articles/1'],
      ['/redirect/loop/a', 302, '/redirect/loop/b'],
      ['/redirect/private', 302, 'http://10.0.0.1/'],
      ['/redirect/metadata', 302, 'http://169.254.169.254/latest/meta-data/'],
      ['/redirect/to?url=http%3A%2F%2F192.168.0.1%2F&status=307', 307, 'http://192.168.0.1/'],
    ];
    for (const [path, status, location] of cases) {
      const r = await get(`${site.url}${path}`);
      assert.deepEqual([r.status, r.headers.get('location')], [status, location], path);
    }
  });

  it('serves errors, binary files, charsets and forced encodings', async () => {
    assert.equal((await get(`${site.url}/status/500`)).status, 500);
    assert.equal((await get(`${site.url}/nowhere`)).status, 404);
    const pdf = await get(`${site.url}/files/report.pdf`);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(pdf.bytes.subarray(0, 5).toString(), '%PDF-');
    const png = await get(`${site.url}/files/image.png`);
    assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const sjis = await get(`${site.url}/charset/shift_jis`, { 'accept-encoding': 'identity' });
    assert.ok(sjis.bytes.includes(Buffer.from([0x8c, 0xe1, 0x94, 0x79])), 'Shift_JIS bytes of 吾輩');
    const w1252 = await get(`${site.url}/charset/windows-1252`, { 'accept-encoding': 'identity' });
    assert.ok(w1252.bytes.includes(0x80), 'windows-1252 euro sign');
    const raw = await new Promise<string | undefined>((resolve) => {
      request(`${site.url}/compressed/zstd`, (res) => {
        res.resume();
        resolve(res.headers['content-encoding']);
      }).end();
    });
    assert.equal(raw, 'zstd');
  });

  it('streams huge pages and can hang, until closed', async () => {
    const small = await startTestSite({ hugeBytes: 300_000 });
    const huge = await get(`${small.url}/huge`);
    assert.equal(huge.bytes.length, 300_000);
    assert.match(huge.text, /<\/html>\n$/);
    const hanging = fetch(`${small.url}/hang`).then((r) => r.text());
    await waitFor('the site has the request', () => small.stats.count('/hang') === 1);
    assert.equal(await Promise.race([hanging, Promise.resolve('still hanging')]), 'still hanging');
    await small.close();
    await assert.rejects(hanging);
  });

  it('holds its sitemaps until the test lets them go', async () => {
    let release = () => {};
    const held = await startTestSite({ sitemapsHeldUntil: new Promise<void>((resolve) => (release = resolve)) });
    try {
      const sitemap = get(`${held.url}/sitemap.xml`);
      await waitFor('the site has the request', () => held.stats.count('/sitemap.xml') === 1);
      assert.equal((await get(`${held.url}/`)).status, 200, 'pages are answered meanwhile');
      assert.equal(await Promise.race([sitemap.then(() => 'answered'), Promise.resolve('held')]), 'held');
      release();
      assert.equal((await sitemap).status, 200);
    } finally {
      await held.close();
    }
  });

  it('delays slow pages', async () => {
    const started = Date.now();
    assert.equal((await get(`${site.url}/slow/300`)).status, 200);
    assert.ok(Date.now() - started >= 290);
  });

  it('counts requests per target and concurrency per host', async () => {
    site.stats.reset();
    // Five requests that never get headers, all in flight at once until the client gives up.
    const abort = new AbortController();
    const silent = Array.from({ length: 5 }, () =>
      fetch(`${site.url}/hang-headers`, { signal: abort.signal }).catch(() => 'aborted'),
    );
    await waitFor('five requests in flight', () => site.stats.concurrent === 5);
    abort.abort();
    assert.deepEqual(await Promise.all(silent), Array(5).fill('aborted'));
    await waitFor('the site saw them go', () => site.stats.concurrent === 0);
    await get(`${site.url}/articles/1?a=1`);
    assert.equal(site.stats.count('/hang-headers'), 5);
    assert.equal(site.stats.count('/articles/1'), 1);
    assert.equal(site.stats.count('/articles/1?a=1'), 1);
    assert.equal(site.stats.total, 6);
    assert.equal(site.stats.maxConcurrentByHost.get(new URL(site.url).host), 5);
  });

  it('adds the configured latency to every response, which makes concurrency visible', async () => {
    // Long enough that four requests sent together all arrive before the first is answered, on a busy machine too.
    const slow = await startTestSite({ latencyMs: 300 });
    try {
      const started = Date.now();
      await Promise.all(Array.from({ length: 4 }, (_, i) => get(`${slow.url}/articles/${i}`)));
      assert.ok(Date.now() - started >= 295);
      assert.equal(slow.stats.maxConcurrent, 4);
    } finally {
      await slow.close();
    }
  });

  it('links URL variants of one article, all served', async () => {
    const r = await get(`${site.url}/variants`);
    const main = r.text.slice(r.text.indexOf('<main>'), r.text.indexOf('</main>'));
    const links = hrefs(main, `${site.url}/variants`);
    assert.ok(links.length >= 10);
    for (const link of links) assert.equal((await get(link)).status, 200, link);
    assert.equal(new Set(links.map((l) => l.replace(/[?#].*$/, '').replace(/\/$/, ''))).size, 2); // /articles/3 and %33
  });
});
