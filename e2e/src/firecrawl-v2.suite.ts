// Firecrawl's current clients as their documentation shows them: the default export of
// @mendable/firecrawl-js and firecrawl-py's `Firecrawl`, whose methods call Firecrawl's v2 API,
// given our base URL and nothing else. Each method we have works against a local site with a
// robots.txt and sitemaps, billed as the same call made natively; what we do not have raises
// the clients' typed errors saying so (docs/migrating-from-firecrawl.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call, upgrade } from './api.js';
import { pyCall, pyOk } from './firecrawl-py.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: TestSite;
/** Every answer late: a crawl of it is still running when it is cancelled. */
let slowSite: TestSite;
/** A workspace per client, so each bill is the client's own. */
const keys = { js: '', py: '', http: '' };

const js = () => new Firecrawl({ apiKey: keys.js, apiUrl: fleet.gatewayUrl });

/** One call of the Python client's default class, in its own process. */
const py = <T>(method: string, args: unknown[], kwargs: Record<string, unknown> = {}) =>
  pyCall<T>(fleet.gatewayUrl, keys.py, method, args, kwargs);

/** What the JS client threw: its SdkError carries the status, our code and our details. */
async function jsError(work: () => Promise<unknown>) {
  try {
    await work();
  } catch (err) {
    return err as Error & { status?: number; code?: string; details?: unknown };
  }
  assert.fail('the call did not throw');
}

const spent = async (key: string, work: () => Promise<unknown>) => {
  const before = await availableCredits(fleet.gatewayUrl, key);
  await work();
  return before - (await availableCredits(fleet.gatewayUrl, key));
};

describe('Firecrawl v2 clients', () => {
  before(async () => {
    // 127.0.0.2 is the one address the site fleet's egress lets through. The site's robots.txt
    // names /sitemap.xml and /sitemap_index.xml (an index of child sitemaps).
    site = await startTestSite({ pages: 30, host: '127.0.0.2', extras: false });
    slowSite = await startTestSite({ pages: 40, host: '127.0.0.2', extras: false, latencyMs: 250 });
    await sharedFleet('site');
    for (const client of ['js', 'py', 'http'] as const) keys[client] = (await fleet.workspace('pro')).apiKey;
  });
  after(async () => {
    await site?.close();
    await slowSite?.close();
  });

  /** What the sitemaps list: the home page and every article, among the site's other pages. */
  const every = () => [`${site.url}/`, ...Array.from({ length: 30 }, (_, i) => `${site.url}/articles/${i}`)];

  describe('map', () => {
    test('JS map lists every page the sitemaps name, billed one credit as POST /v1/map', async () => {
      let links: { url: string }[] = [];
      const jsCost = await spent(keys.js, async () => {
        ({ links } = await js().map(site.url));
      });
      const urls = new Set(links.map((l) => l.url));
      for (const url of every()) assert.ok(urls.has(url), url);
      const native = await call<{ links: unknown[]; usage: { credits: number } }>(fleet.gatewayUrl, 'POST', '/v1/map', {
        key: keys.http,
        body: { url: site.url },
      });
      assert.equal(native.status, 200, JSON.stringify(native.body));
      assert.equal(native.body.links.length, links.length);
      assert.equal(native.body.usage.credits, 1);
      assert.equal(jsCost, 1);
    });

    test('Python map ranks by search and keeps to the limit', async () => {
      const out = pyOk(await py<{ links: { url: string }[] }>('map', [site.url], { search: 'articles 7', limit: 3 }));
      assert.equal(out.links.length, 3);
      assert.equal(out.links[0]?.url, `${site.url}/articles/7`);
    });

    test('without the sitemaps, the links from the start page find the site', async () => {
      const { links } = await js().map(site.url, { sitemap: 'skip' });
      const urls = new Set(links.map((l) => l.url));
      for (const i of [0, 12, 29]) assert.ok(urls.has(`${site.url}/articles/${i}`), `article ${i}`);
    });

    test('a private address is refused: both clients raise it with our code, nothing billed', async () => {
      const err = await jsError(() => js().map('http://127.0.0.1:9/'));
      assert.equal(err.status, 422);
      assert.equal(err.code, 'page_unreachable');
      const answer = await py('map', ['http://127.0.0.1:9/']);
      assert.ok(!answer.ok);
      assert.equal(answer.code, 'page_unreachable');
      assert.equal(answer.status, 422);
    });
  });

  describe('scrape', () => {
    test('JS scrape answers the formats asked, as objects too, billed as POST /v1/scrape', async () => {
      const article = site.article(4);
      let doc: { markdown?: string; links?: string[]; html?: string; metadata?: { statusCode?: number } } | undefined;
      const cost = await spent(keys.js, async () => {
        doc = await js().scrape(`${site.url}/articles/4`, { formats: ['markdown', 'links', 'html'] });
      });
      assert.ok(doc?.markdown?.includes(article.title));
      assert.ok(doc?.links?.some((l) => l.startsWith(site.url)));
      assert.ok(doc?.html?.includes('<'));
      assert.equal(doc?.metadata?.statusCode, 200);
      assert.equal(cost, 1);
    });

    test('Python scrape, with the defaults it sends on every call', async () => {
      const article = site.article(5);
      const doc = pyOk(await py<{ markdown: string }>('scrape', [`${site.url}/articles/5`], { formats: ['markdown'] }));
      assert.ok(doc.markdown.includes(article.title));
    });

    test('a field we do not take: BadRequestError naming it, with our code and details', async () => {
      const err = await jsError(() =>
        js().scrape(`${site.url}/articles/1`, { formats: ['markdown'], proxy: 'stealth' } as never),
      );
      assert.equal(err.status, 400);
      assert.equal(err.code, 'bad_request');
      assert.match(JSON.stringify(err.details), /body\.proxy/);
      const answer = await py('scrape', [`${site.url}/articles/1`], { proxy: 'stealth' });
      assert.ok(!answer.ok);
      assert.equal(answer.type, 'BadRequestError');
      assert.equal(answer.code, 'bad_request');
      assert.match(answer.error, /body\.proxy/);
    });
  });

  describe('crawl', () => {
    test('JS crawl waits for the crawl and reads its pages', async () => {
      const job = await js().crawl(site.url, { limit: 8, pollInterval: 1 });
      assert.equal(job.status, 'completed');
      assert.equal(job.data.length, 8);
      assert.equal(job.creditsUsed, 8);
      const running = await js().startCrawl(slowSite.url, { limit: 20 });
      assert.equal(await js().cancelCrawl(running.id), true);
      assert.equal((await js().getCrawlStatus(running.id)).status, 'cancelled');
      const errors = await js().getCrawlErrors(running.id);
      assert.deepEqual(errors, { errors: [], robotsBlocked: [] });
    });

    test('Python crawl, then its status, errors and cancel', async () => {
      const job = pyOk(
        await py<{ status: string; data: unknown[] }>('crawl', [site.url], { limit: 5, poll_interval: 1 }),
      );
      assert.equal(job.status, 'completed');
      assert.equal(job.data.length, 5);
      // Its start page answers after 8 s: the crawl is running when the next process cancels it.
      const started = pyOk(await py<{ id: string }>('start_crawl', [`${slowSite.url}/slow/8000`], { limit: 5 }));
      assert.equal(pyOk(await py<boolean>('cancel_crawl', [started.id])), true);
      const status = pyOk(await py<{ status: string }>('get_crawl_status', [started.id]));
      assert.equal(status.status, 'cancelled');
      const errors = pyOk(await py<{ errors: unknown[] }>('get_crawl_errors', [started.id]));
      assert.deepEqual(errors.errors, []);
    });

    test('Python wait_crawl and get_crawl_status_page read a started crawl to its end', async () => {
      const started = pyOk(await py<{ id: string }>('start_crawl', [site.url], { limit: 4 }));
      const job = pyOk(await py<{ status: string; data: unknown[] }>('wait_crawl', [started.id], { poll_interval: 1 }));
      assert.equal(job.status, 'completed');
      assert.equal(job.data.length, 4);
      // A page of the results by its URL, as `next` gives one (the status URL is the first).
      const page = pyOk(
        await py<{ status: string; data: { metadata?: { url?: string } }[] }>('get_crawl_status_page', [
          `${fleet.gatewayUrl}/v2/crawl/${started.id}`,
        ]),
      );
      assert.equal(page.status, 'completed');
      assert.equal(page.data.length, 4);
    });

    test('watchers: progress over our WebSocket, each page once as it comes, then how it ended', async () => {
      const started = pyOk(await py<{ id: string }>('start_crawl', [site.url], { limit: 3 }));
      const watched = pyOk(await py<{ status: string; pages: number }>('watch', [started.id, 'crawl']));
      assert.deepEqual(watched, { status: 'completed', pages: 3, documents: 3, error: null });

      /** The JS watcher to its end: the pages it announced, and its socket (undefined had it polled). */
      const watchJs = async (id: string, kind: 'crawl' | 'batch', whileOpen?: () => Promise<unknown>) => {
        const watcher = js().watcher(id, { kind, pollInterval: 1 });
        const urls: string[] = [];
        watcher.on('document', (doc: { metadata?: { url?: string } }) => urls.push(doc.metadata?.url ?? ''));
        const ended = new Promise<{ status: string; error?: string }>((resolve) => {
          watcher.on('done', resolve);
          watcher.on('error', resolve);
        });
        const running = watcher.start();
        const socket = () => (watcher as unknown as { ws?: { protocol: string; readyState: number } }).ws;
        if (whileOpen) {
          await until('the watcher’s socket is open', () => socket()?.readyState === 1);
          await whileOpen();
        }
        const end = await ended;
        await running;
        watcher.close();
        return { end, urls, protocol: socket()?.protocol };
      };
      const crawl = await js().startCrawl(site.url, { limit: 3 });
      const watched3 = await watchJs(crawl.id, 'crawl');
      assert.equal(watched3.end.status, 'completed', JSON.stringify(watched3.end));
      assert.equal(new Set(watched3.urls).size, 3, watched3.urls.join(' '));
      // The key rode as the one subprotocol (the JS WebSocket sets no header) and was named back.
      assert.equal(watched3.protocol, keys.js);

      const batch = await js().startBatchScrape([`${site.url}/articles/1`, `${site.url}/articles/2`]);
      const batchWatched = await watchJs(batch.id, 'batch');
      assert.equal(batchWatched.end.status, 'completed');
      assert.equal(batchWatched.urls.length, 2);

      // Its start page answers after 8 s: cancelled while the watcher is open, it says so.
      const slow = await js().startCrawl(`${slowSite.url}/slow/8000`, { limit: 5 });
      const cancelled = await watchJs(slow.id, 'crawl', () => js().cancelCrawl(slow.id));
      assert.equal(cancelled.end.status, 'cancelled', JSON.stringify(cancelled.end));
    });

    test('watchers: the upgrade is refused with our Error object without a valid key or for another’s crawl', async () => {
      const { id } = await js().startCrawl(site.url, { limit: 1 });
      const url = `${fleet.gatewayUrl}/v2/crawl/${id}`;
      const stranger = await upgrade(url, { 'Sec-WebSocket-Protocol': 'ock_nobody.nothing' });
      assert.equal(stranger.res.statusCode, 401);
      assert.equal(JSON.parse(stranger.body).code, 'unauthorized');
      const other = await upgrade(url, { Authorization: `Bearer ${keys.http}` });
      assert.equal(other.res.statusCode, 404);
      assert.equal(JSON.parse(other.body).code, 'not_found');
      const own = await upgrade(url, { Authorization: `Bearer ${keys.js}` });
      assert.equal(own.res.statusCode, 101);
    });

    test('watchers: a workspace keeps at most 10 open on a gateway; one closed makes room', async () => {
      const { apiKey } = await fleet.workspace('pro');
      const app = new Firecrawl({ apiKey, apiUrl: fleet.gatewayUrl });
      // Its start page answers after 20 s: the crawl runs while its watchers stay open.
      const { id } = await app.startCrawl(`${slowSite.url}/slow/20000`, { limit: 2 });
      const url = `${fleet.gatewayUrl}/v2/crawl/${id}`;
      const open = () => upgrade(url, { Authorization: `Bearer ${apiKey}` }, true);
      const sockets = [];
      try {
        for (let i = 0; i < 10; i++) {
          const opened = await open();
          assert.equal(opened.res.statusCode, 101, opened.body);
          sockets.push(opened.socket);
        }
        const refused = await open();
        assert.equal(refused.res.statusCode, 429, refused.body);
        assert.deepEqual(JSON.parse(refused.body).details, { kind: 'watchers', limit: 10, active: 10 });
        sockets.pop()?.destroy();
        let again: Awaited<ReturnType<typeof open>> | undefined;
        await until('a closed watcher makes room for another', async () => {
          again?.socket?.destroy();
          again = await open();
          return again.res.statusCode === 101;
        });
        sockets.push(again?.socket);
      } finally {
        for (const socket of sockets) socket?.destroy();
        await app.cancelCrawl(id);
      }
    });

    test('active crawls: a running crawl is listed to its own workspace', async () => {
      const started = pyOk(await py<{ id: string }>('start_crawl', [`${slowSite.url}/slow/6000`], { limit: 2 }));
      const listed = pyOk(await py<{ crawls: { id: string; url: string }[] }>('get_active_crawls', []));
      // Crawls cancelled earlier may still be finishing their page in flight: listed too.
      assert.ok(
        listed.crawls.some((c) => c.id === started.id && c.url === `${slowSite.url}/slow/6000`),
        JSON.stringify(listed),
      );
      const alias = pyOk(await py<{ crawls: { id: string }[] }>('active_crawls', []));
      assert.ok(alias.crawls.some((c) => c.id === started.id));
      const { crawls } = await js().getActiveCrawls();
      assert.ok(!crawls.some((c) => c.id === started.id), 'another workspace’s crawl is not listed');
    });

    test('a crawl id that does not exist: a typed not-found error', async () => {
      const answer = await py('get_crawl_status', ['00000000-0000-4000-8000-000000000000']);
      assert.ok(!answer.ok);
      assert.equal(answer.status, 404);
      assert.equal(answer.code, 'not_found');
    });
  });

  describe('batch scrape', () => {
    const urls = () => [1, 2, 3, 4].map((i) => `${site.url}/articles/${i}`);

    test('JS batchScrape scrapes each page once, billed a credit each', async () => {
      let job: Awaited<ReturnType<ReturnType<typeof js>['batchScrape']>> | undefined;
      const cost = await spent(keys.js, async () => {
        job = await js().batchScrape([...urls(), urls()[0] as string], {
          options: { formats: ['markdown'] },
          pollInterval: 1,
        });
      });
      assert.equal(job?.status, 'completed');
      assert.equal(job?.data.length, 4);
      const titles = job?.data.map((d) => d.metadata?.title).sort();
      assert.deepEqual(titles, [1, 2, 3, 4].map((i) => site.article(i).title).sort());
      assert.equal(cost, 4);
    });

    test('Python batch_scrape, a page that fails listed in its errors', async () => {
      const job = pyOk(
        await py<{ status: string; data: unknown[]; completed: number }>(
          'batch_scrape',
          [[...urls(), 'http://127.0.0.2:9/gone']],
          {
            formats: ['markdown'],
            poll_interval: 1,
          },
        ),
      );
      assert.equal(job.status, 'completed');
      assert.equal(job.data.length, 4);
      const started = pyOk(await py<{ id: string }>('start_batch_scrape', [['http://127.0.0.2:9/gone']]));
      await until('the batch’s page failed', async () => {
        const errors = pyOk(
          await py<{ errors: { url: string; code: string }[] }>('get_batch_scrape_errors', [started.id]),
        );
        return errors.errors[0]?.code === 'page_unreachable';
      });
      assert.equal(typeof pyOk(await py<boolean>('cancel_batch_scrape', [started.id])), 'boolean');
    });

    test('JS getBatchScrapeStatus, getBatchScrapeErrors and cancelBatchScrape', async () => {
      const started = await js().startBatchScrape(urls(), { options: { formats: ['markdown'] } });
      let status: Awaited<ReturnType<ReturnType<typeof js>['getBatchScrapeStatus']>> | undefined;
      await until('the batch completed', async () => {
        status = await js().getBatchScrapeStatus(started.id);
        return status.status === 'completed';
      });
      assert.equal(status?.data.length, 4);
      assert.equal(status?.creditsUsed, 4);
      assert.deepEqual(await js().getBatchScrapeErrors(started.id), { errors: [], robotsBlocked: [] });
      const slow = await js().startBatchScrape(
        Array.from({ length: 20 }, (_, i) => `${slowSite.url}/articles/${i}`),
        { options: { formats: ['markdown'] } },
      );
      assert.equal(await js().cancelBatchScrape(slow.id), true);
      assert.equal((await js().getBatchScrapeStatus(slow.id)).status, 'cancelled');
    });

    test('Python get_batch_scrape_status and get_batch_scrape_status_page', async () => {
      const started = pyOk(await py<{ id: string }>('start_batch_scrape', [urls()], { formats: ['markdown'] }));
      await until('the batch completed', async () => {
        const status = pyOk(await py<{ status: string }>('get_batch_scrape_status', [started.id]));
        return status.status === 'completed';
      });
      const page = pyOk(
        await py<{ status: string; data: unknown[] }>('get_batch_scrape_status_page', [
          `${fleet.gatewayUrl}/v2/batch/scrape/${started.id}`,
        ]),
      );
      assert.equal(page.status, 'completed');
      assert.equal(page.data.length, 4);
    });

    test('a retried start with the same idempotency key is the same batch', async () => {
      const first = pyOk(await py<{ id: string }>('start_batch_scrape', [urls()], { idempotency_key: 'batch-once-1' }));
      const again = pyOk(await py<{ id: string }>('start_batch_scrape', [urls()], { idempotency_key: 'batch-once-1' }));
      assert.equal(again.id, first.id);
    });
  });

  describe('search, usage and what is not offered', () => {
    test('search finds the workspace’s scraped pages, grouped under web', async () => {
      const article = site.article(9);
      await js().scrape(`${site.url}/articles/9`, { formats: ['markdown'] });
      const word = article.title.split(' ').find((w) => w.length > 5) ?? article.title;
      const out = await js().search(word, { limit: 5 });
      assert.ok(
        out.web?.some((hit) => 'url' in hit && hit.url === `${site.url}/articles/9`),
        JSON.stringify(out),
      );
    });

    test('Python search finds the workspace’s scraped pages under web, billed as POST /v1/search', async () => {
      const article = site.article(11);
      pyOk(await py('scrape', [`${site.url}/articles/11`], { formats: ['markdown'] }));
      const word = article.title.split(' ').find((w) => w.length > 5) ?? article.title;
      let out: { web?: { url?: string }[] } = {};
      const cost = await spent(keys.py, async () => {
        out = pyOk(await py<{ web?: { url?: string }[] }>('search', [word], { limit: 5 }));
      });
      assert.ok(
        out.web?.some((hit) => hit.url === `${site.url}/articles/11`),
        JSON.stringify(out),
      );
      // The same search made as plain HTTP on the same index (the workspace's pages) bills the same.
      const native = await call<{ usage: { credits: number } }>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key: keys.py,
        body: { query: word, limit: 5 },
      });
      assert.equal(native.status, 200, JSON.stringify(native.body));
      assert.equal(cost, native.body.usage.credits);
    });

    test('credit usage is the balance, in whole credits', async () => {
      const usage = await js().getCreditUsage();
      assert.equal(usage.remainingCredits, Math.floor(await availableCredits(fleet.gatewayUrl, keys.js)));
      const answer = pyOk(await py<{ remaining_credits: number }>('get_credit_usage', []));
      assert.equal(answer.remaining_credits, Math.floor(await availableCredits(fleet.gatewayUrl, keys.py)));
      // The last 30 days as one period: this workspace spent whole credits on its pages and maps.
      const history = await js().getCreditUsageHistorical();
      assert.equal(history.periods.length, 1);
      assert.ok((history.periods[0]?.creditsUsed ?? 0) >= 1, JSON.stringify(history));
      const tokens = await js().getTokenUsageHistorical();
      assert.deepEqual(
        tokens.periods.map((p) => p.tokensUsed),
        [0],
      );
      // firecrawl-py's Firecrawl does not expose the historical methods: its v2 class does.
      const pyHistory = pyOk(await py<{ periods: { creditsUsed: number }[] }>('v2.get_credit_usage_historical', []));
      assert.equal(pyHistory.periods.length, 1);
      assert.ok((pyHistory.periods[0]?.creditsUsed ?? 0) >= 1, JSON.stringify(pyHistory));
      const pyTokens = pyOk(await py<{ periods: { tokensUsed: number }[] }>('v2.get_token_usage_historical', []));
      assert.deepEqual(
        pyTokens.periods.map((p) => p.tokensUsed),
        [0],
      );
    });

    test('a key we do not know: UnauthorizedError with our code', async () => {
      const stranger = new Firecrawl({ apiKey: 'ock_nobody.nothing', apiUrl: fleet.gatewayUrl });
      const err = await jsError(() => stranger.scrape(`${site.url}/articles/1`, { formats: ['markdown'] }));
      assert.equal(err.status, 401);
      assert.equal(err.code, 'unauthorized');
      const answer = await pyCall(fleet.gatewayUrl, 'ock_nobody.nothing', 'get_credit_usage', []);
      assert.ok(!answer.ok);
      assert.equal(answer.type, 'UnauthorizedError');
      assert.equal(answer.code, 'unauthorized');
    });

    test('agent runs are not offered on /v2: both clients say so', async () => {
      const err = await jsError(() => js().startAgent({ prompt: 'find the title' }));
      assert.equal(err.status, 404);
      assert.match(err.message, /not offered by this server/);
      const answer = await py('get_token_usage', []);
      assert.ok(!answer.ok);
      assert.match(answer.error, /not offered by this server/);
    });
  });
});
