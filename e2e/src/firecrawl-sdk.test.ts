// Firecrawl's own clients pointed at a fleet by their base URL and nothing else:
// @mendable/firecrawl-js (its `.v1` client) and firecrawl-py (its v1 client, run by
// e2e/src/firecrawl_sdk.py). Each method a team moving from Firecrawl calls, called as they
// would call it, billed exactly as the same call made as plain HTTP (`json` answered by a
// loopback stand-in of an OpenAI-compatible endpoint, the deployment's model). Where we answer other
// than Firecrawl, what the client sees is asserted here and written in
// docs/migrating-from-firecrawl.md.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import Firecrawl from '@mendable/firecrawl-js';
import { type Fleet, ROOT } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import {
  type FakeModel,
  type FakeSearch,
  startFakeOpenAi,
  startFakeSearxng,
  startTestSite,
  type TestSite,
} from '@wap/testsite';
import { call } from './api.js';

const PYTHON = path.join(ROOT, '.tools/firecrawl-py/bin/python');
const PYTHON_CLIENT = path.join(ROOT, 'e2e/src/firecrawl_sdk.py');
/** The Python client's default (v2) methods, as e2e/src/firecrawl-v2.suite.ts calls them. */
const PYTHON_V2_CLIENT = path.join(ROOT, 'e2e/src/firecrawl_v2.py');
const run = promisify(execFile);

let fleet: Fleet;
/** 110 articles: a crawl of it delivers more pages than one GET /v1/crawl/{id} answers, so `next` is followed. */
let site: TestSite;
/** Every answer late: a crawl of it is still running when it is cancelled. */
let slowSite: TestSite;
let searxng: FakeSearch;
/** The deployment's model (an OpenAI-compatible endpoint on loopback): `json` answers the page's title line. */
let model: FakeModel;
/** A workspace per client, so each bill is the client's own. */
const keys = { js: '', py: '', http: '' };

/** A word every article's search entry has, and one only the slow page's has. */
const ARTICLES_WORD = 'harbour';
const SLOW_WORD = 'tortoise';

before(async () => {
  site = await startTestSite({ pages: 110, extras: false });
  slowSite = await startTestSite({ pages: 40, extras: false, latencyMs: 250 });
  // The search API is the one third party here: SearXNG's wire format on loopback, hits on the test site.
  searxng = await startFakeSearxng([
    ...Array.from({ length: 10 }, (_, i) => ({
      url: `${site.url}/articles/${i}`,
      title: site.article(i).title,
      content: `${ARTICLES_WORD} ${site.article(i).description}`,
    })),
    { url: `${site.url}/slow/5000`, title: 'A page that takes five seconds', content: SLOW_WORD },
  ]);
  model = await startFakeOpenAi({
    reply: (r) => {
      const title = /^Title: (.*)$/m.exec(JSON.stringify(r.body.messages).replaceAll('\\n', '\n'))?.[1] ?? null;
      const asked = r.body.response_format?.json_schema?.name ?? r.body.tools?.[0]?.function?.name;
      return asked === 'summary' ? { summary: `A page titled ${title}.` } : { title };
    },
  });
  fleet = await startFleet({
    env: {
      AGENT_MODELS: JSON.stringify([{ name: 'loopback', kind: 'openai', baseUrl: model.url, model: 'loopback-1' }]),
      AGENT_DEFAULT_MODEL: 'loopback',
      LOG_LEVEL: 'info',
      // The allow-list lets the fleet reach the loopback test sites; production never sets it.
      EGRESS_ALLOW: '127.0.0.0/8',
      SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: searxng.url,
    },
  });
  for (const client of ['js', 'py', 'http'] as const) keys[client] = (await fleet.workspace('pro')).apiKey;
});
after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
  await site?.close();
  await slowSite?.close();
  await searxng?.close();
  await model?.close();
});

/** The JS client as a migrating team builds it: Firecrawl's class, our base URL, its v1 methods. */
const js = () => new Firecrawl({ apiKey: keys.js, apiUrl: fleet.gatewayUrl }).v1;

interface PyAnswer<T> {
  ok: boolean;
  result: T;
  error?: string;
  status?: number;
}

/** One call of the Python client (`.v1`, or V1FirecrawlApp for what `.v1` lacks), in its own process. */
async function py<T>(
  client: 'v1' | 'V1FirecrawlApp',
  method: string,
  args: unknown[],
  kwargs: Record<string, unknown> = {},
): Promise<PyAnswer<T>> {
  const { stdout } = await run(
    PYTHON,
    [PYTHON_CLIENT, fleet.gatewayUrl, keys.py, JSON.stringify({ client, method, args, kwargs })],
    { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 },
  );
  return JSON.parse(stdout) as PyAnswer<T>;
}
const pyOk = <T>(answer: PyAnswer<T>): T => {
  assert.equal(answer.ok, true, answer.error);
  return answer.result;
};

/** What the ledger has billed a workspace so far, by meter (GET /v1/usage). */
const billed = async (key: string) =>
  (await call<{ total: { meters: Record<string, number> } }>(fleet.gatewayUrl, 'GET', '/v1/usage', { key })).body.total
    .meters;

/** What some work added to a workspace's bill, by meter. */
async function billOf<T>(key: string, work: () => Promise<T>): Promise<[T, Record<string, number>]> {
  const before = await billed(key);
  const result = await work();
  const after = await billed(key);
  const added = Object.entries(after)
    .map(([meter, quantity]) => [meter, quantity - (before[meter] ?? 0)] as const)
    .filter(([, quantity]) => quantity !== 0);
  return [result, Object.fromEntries(added)];
}

interface Doc {
  markdown?: string;
  links?: string[];
  metadata?: { sourceURL?: string; url?: string; title?: string };
}
interface CrawlStatus {
  success: boolean;
  status: string;
  total: number;
  completed: number;
  creditsUsed: number;
  expiresAt: string | Date;
  next?: string | null;
  data: Doc[];
  crawl?: { id: string; status: string; completed: number };
}
/** What cancelCrawl and cancel_crawl return: the answer of DELETE /v1/crawl/{id} as it came. */
interface Cancelled {
  success: boolean;
  status: string;
  crawl: { id: string; status: string };
}
interface Hit extends Doc {
  url: string;
  title: string;
  description: string;
}

/** A crawl started and read to its end as plain HTTP: the bill a client's crawl must match. */
async function plainCrawl(body: Record<string, unknown>) {
  const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', { key: keys.http, body });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  return settled(started.body.id, keys.http);
}
async function settled(id: string, key: string) {
  let crawl: { status: string; completed: number } | undefined;
  await until(
    `crawl ${id} settled`,
    async () => {
      crawl = (await call<{ crawl: typeof crawl }>(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}`, { key })).body.crawl;
      return crawl?.status === 'settled';
    },
    120_000,
  );
  return crawl as { status: string; completed: number };
}

const pathsOf = (docs: Doc[]) => docs.map((d) => new URL(String(d.metadata?.sourceURL ?? d.metadata?.url)).pathname);

describe('scrape', () => {
  test('scrapeUrl and scrape_url answer markdown and links, billed as a plain scrape', async () => {
    const url = `${site.url}/articles/3`;
    const article = site.article(3);
    const formats = ['markdown', 'links'];
    const [plain, plainBill] = await billOf(keys.http, () =>
      call(fleet.gatewayUrl, 'POST', '/v1/scrape', { key: keys.http, body: { url, formats } }),
    );
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.deepEqual(plainBill, { page_load: 1 });

    const [doc, jsBill] = await billOf(
      keys.js,
      async () => (await js().scrapeUrl(url, { formats: ['markdown', 'links'] })) as Doc & { success: boolean },
    );
    assert.equal(doc.success, true);
    assert.ok(doc.markdown?.includes(article.title), 'the page’s markdown');
    assert.ok(
      doc.links?.some((link) => link.startsWith(`${site.url}/articles/`)),
      JSON.stringify(doc.links),
    );
    assert.equal(doc.metadata?.sourceURL, url);
    assert.deepEqual(jsBill, plainBill);

    const [pyDoc, pyBill] = await billOf(keys.py, async () =>
      pyOk(await py<Doc>('v1', 'scrape_url', [url], { formats })),
    );
    assert.ok(pyDoc.markdown?.includes(article.title), 'the page’s markdown');
    assert.deepEqual(pyDoc.links, doc.links);
    assert.equal(pyDoc.metadata?.sourceURL, url);
    assert.deepEqual(pyBill, plainBill);
  });
});

describe('scrape: json', () => {
  test('formats json with jsonOptions: both clients get the page’s data, billed as the plain call', async () => {
    const url = `${site.url}/articles/4`;
    const title = site.article(4).title;
    const body = {
      url,
      formats: ['json'],
      jsonOptions: { schema: { type: 'object', properties: { title: { type: 'string' } } } },
    };
    const [plain, plainBill] = await billOf(keys.http, () =>
      call<{ data: { json?: { title?: string } } }>(fleet.gatewayUrl, 'POST', '/v1/scrape', { key: keys.http, body }),
    );
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.ok(plain.body.data.json?.title?.includes(title), JSON.stringify(plain.body.data));
    assert.equal(plainBill.page_load, 1);
    assert.ok((plainBill.tokens ?? 0) > 0, JSON.stringify(plainBill));

    // The JS client types `schema` as a zod schema and sends a JSON Schema as it is.
    const [doc, jsBill] = await billOf(
      keys.js,
      async () =>
        (await js().scrapeUrl(url, { formats: ['json'], jsonOptions: body.jsonOptions as never })) as Doc & {
          success: boolean;
          json?: unknown;
        },
    );
    assert.equal(doc.success, true);
    assert.deepEqual(doc.json, plain.body.data.json);
    assert.deepEqual(jsBill, plainBill);

    const [pyDoc, pyBill] = await billOf(keys.py, async () =>
      pyOk(
        await py<Doc & { json?: unknown }>('v1', 'scrape_url', [url], {
          formats: ['json'],
          json_options: body.jsonOptions,
        }),
      ),
    );
    assert.deepEqual(pyDoc.json, plain.body.data.json);
    assert.deepEqual(pyBill, plainBill);
  });
});

describe('scrape: json and summary with the v2 clients', () => {
  test("v2's json object and summary in formats: both clients get them, billed as the plain call", async () => {
    const url = `${site.url}/articles/5`;
    const title = site.article(5).title;
    const formats = [
      { type: 'json', schema: { type: 'object', properties: { title: { type: 'string' } } } },
      'summary',
    ];
    type Answer = { json?: { title?: string }; summary?: string };
    const [plain, plainBill] = await billOf(keys.http, () =>
      call<{ data: Answer }>(fleet.gatewayUrl, 'POST', '/v2/scrape', { key: keys.http, body: { url, formats } }),
    );
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.ok(plain.body.data.json?.title?.includes(title), JSON.stringify(plain.body.data));
    assert.match(plain.body.data.summary ?? '', /^A page titled /);
    assert.equal(plainBill.page_load, 1);

    // Firecrawl's JS client as its documentation shows it: the default (v2) methods.
    const [doc, jsBill] = await billOf(keys.js, async () =>
      new Firecrawl({ apiKey: keys.js, apiUrl: fleet.gatewayUrl }).scrape(url, { formats: formats as never }),
    );
    assert.deepEqual((doc as Answer).json, plain.body.data.json);
    assert.equal((doc as Answer).summary, plain.body.data.summary);
    assert.deepEqual(jsBill, plainBill);

    const [pyDoc, pyBill] = await billOf(keys.py, async () => {
      const { stdout } = await run(
        PYTHON,
        [
          PYTHON_V2_CLIENT,
          fleet.gatewayUrl,
          keys.py,
          JSON.stringify({ method: 'scrape', args: [url], kwargs: { formats } }),
        ],
        { timeout: 120_000 },
      );
      return pyOk(JSON.parse(stdout) as PyAnswer<Answer>);
    });
    assert.deepEqual(pyDoc.json, plain.body.data.json);
    assert.equal(pyDoc.summary, plain.body.data.summary);
    assert.deepEqual(pyBill, plainBill);
  });
});

describe('crawl', () => {
  const formats = ['markdown'];

  test('crawlUrl and crawl_url poll to the end and read every page through next, billed as a plain crawl', async () => {
    const url = `${site.url}/`;
    const [plain, plainBill] = await billOf(keys.http, () =>
      plainCrawl({ url, limit: 200, scrapeOptions: { formats } }),
    );
    assert.equal(plain.completed, site.paths.length);
    assert.deepEqual(plainBill, { page_load: site.paths.length });

    const [done, jsBill] = await billOf(
      keys.js,
      async () =>
        (await js().crawlUrl(url, { limit: 200, scrapeOptions: { formats: ['markdown'] } }, 2)) as CrawlStatus,
    );
    assert.equal(done.status, 'completed', JSON.stringify({ ...done, data: done.data?.length }));
    assert.equal(done.completed, site.paths.length);
    assert.equal(done.total, site.paths.length);
    assert.equal(done.creditsUsed, site.paths.length);
    assert.deepEqual(pathsOf(done.data).sort(), [...site.paths].sort(), 'every page once, across two answers');
    assert.ok(done.data.every((d) => (d.markdown ?? '').length > 0));
    assert.deepEqual(jsBill, plainBill);

    const [pyDone, pyBill] = await billOf(keys.py, async () =>
      pyOk(
        await py<CrawlStatus>('v1', 'crawl_url', [url], { limit: 200, scrape_options: { formats }, poll_interval: 2 }),
      ),
    );
    assert.equal(pyDone.status, 'completed');
    assert.equal(pyDone.completed, site.paths.length);
    assert.deepEqual(pathsOf(pyDone.data).sort(), [...site.paths].sort());
    assert.ok(!Number.isNaN(Date.parse(String(pyDone.expiresAt))), 'expiresAt is a date the client parsed');
    assert.deepEqual(pyBill, plainBill);

    // The pages a status answer holds, and the rest by `next`, as checkCrawlStatus reads them.
    const id = String(done.crawl?.id);
    const [first, firstBill] = await billOf(keys.js, async () => (await js().checkCrawlStatus(id)) as CrawlStatus);
    assert.equal(first.data.length, 100);
    assert.ok(first.next?.startsWith(`${fleet.gatewayUrl}/v1/crawl/${id}?cursor=`), String(first.next));
    const all = (await js().checkCrawlStatus(id, true)) as CrawlStatus;
    assert.equal(all.data.length, site.paths.length, 'checkCrawlStatus(id, true) followed next');
    assert.deepEqual(firstBill, {}, 'reading a crawl is free');

    // Python's way of waiting: async_crawl_url, then check_crawl_status until completed (it follows `next` then).
    const [pyAll, pyAllBill] = await billOf(keys.py, async () => {
      const { id: pyId } = pyOk(
        await py<{ id: string }>('v1', 'async_crawl_url', [url], { limit: 200, scrape_options: { formats } }),
      );
      let status: CrawlStatus | undefined;
      await until(
        'check_crawl_status says completed',
        async () => {
          status = pyOk(await py<CrawlStatus>('v1', 'check_crawl_status', [pyId]));
          return status.status === 'completed';
        },
        120_000,
      );
      return status as CrawlStatus;
    });
    assert.deepEqual(pathsOf(pyAll.data).sort(), [...site.paths].sort(), 'check_crawl_status followed next');
    assert.equal(pyAll.next, null);
    assert.deepEqual(pyAllBill, plainBill);
  });

  test('asyncCrawlUrl and checkCrawlStatus follow a crawl; cancelCrawl stops it, free', async () => {
    const url = `${slowSite.url}/`;
    const [outcome, bill] = await billOf(keys.js, async () => {
      const started = (await js().asyncCrawlUrl(url, { limit: 40, maxConcurrency: 1 })) as {
        success: boolean;
        id: string;
        url: string;
      };
      assert.equal(started.success, true);
      assert.equal(started.url, `${fleet.gatewayUrl}/v1/crawl/${started.id}`);
      let running: CrawlStatus | undefined;
      await until('the crawl delivered pages', async () => {
        running = (await js().checkCrawlStatus(started.id)) as CrawlStatus;
        return running.completed >= 2;
      });
      assert.equal(running?.status, 'scraping');
      assert.deepEqual(running?.data, [], 'a running crawl’s pages are read from its results, not its status');
      // Firecrawl's clients cancel with DELETE /v1/crawl/{id}: the same call as POST /v1/crawl/{id}/cancel.
      const cancelled = (await js().cancelCrawl(started.id)) as unknown as Cancelled;
      assert.equal(cancelled.status, 'cancelled', JSON.stringify(cancelled));
      assert.equal(cancelled.success, true);
      assert.equal(cancelled.crawl.id, started.id);
      assert.equal(cancelled.crawl.status, 'cancelled');
      await assert.rejects(js().cancelCrawl('no-such-crawl'), /Status code: 404/);
      const crawl = await settled(started.id, keys.js);
      return { crawl, status: (await js().checkCrawlStatus(started.id)) as CrawlStatus };
    });
    assert.equal(outcome.status.status, 'cancelled');
    assert.ok(outcome.crawl.completed < 40, 'cancelled before its end');
    assert.equal(outcome.status.completed, outcome.crawl.completed);
    assert.equal(outcome.status.data.length, outcome.crawl.completed, 'the pages it reached stay readable');
    assert.equal(outcome.status.creditsUsed, outcome.crawl.completed);
    assert.deepEqual(bill, { page_load: outcome.crawl.completed }, 'billed for the pages it delivered, as any crawl');
  });

  test('async_crawl_url and check_crawl_status follow a crawl; cancel_crawl stops it, free', async () => {
    const url = `${slowSite.url}/`;
    const [outcome, bill] = await billOf(keys.py, async () => {
      const started = pyOk(
        await py<{ id: string; url: string }>('v1', 'async_crawl_url', [url], { limit: 40, max_concurrency: 1 }),
      );
      assert.equal(started.url, `${fleet.gatewayUrl}/v1/crawl/${started.id}`);
      let running: CrawlStatus | undefined;
      await until('the crawl delivered pages', async () => {
        running = pyOk(await py<CrawlStatus>('v1', 'check_crawl_status', [started.id]));
        return running.completed >= 2;
      });
      assert.equal(running?.status, 'scraping');
      // `.v1` has no cancel_crawl; the class behind it does, and sends DELETE /v1/crawl/{id}.
      const cancelled = pyOk(await py<Cancelled>('V1FirecrawlApp', 'cancel_crawl', [started.id]));
      assert.equal(cancelled.status, 'cancelled', JSON.stringify(cancelled));
      assert.equal(cancelled.success, true);
      assert.equal(cancelled.crawl.id, started.id);
      const unknown = await py('V1FirecrawlApp', 'cancel_crawl', ['no-such-crawl']);
      assert.equal(unknown.status, 404, unknown.error);
      const crawl = await settled(started.id, keys.py);
      return { crawl, status: pyOk(await py<CrawlStatus>('v1', 'check_crawl_status', [started.id])) };
    });
    assert.equal(outcome.status.status, 'cancelled');
    assert.equal(outcome.status.data.length, outcome.crawl.completed, 'the pages it reached stay readable');
    assert.deepEqual(bill, { page_load: outcome.crawl.completed }, 'billed for the pages it delivered, as any crawl');
  });
});

describe('idempotency', () => {
  /** Few pages of the large site: a crawl started twice would bill twice as many. */
  const limit = 5;

  test('a crawl start retried with the same key (x-idempotency-key) starts one crawl, billed once', async () => {
    const url = `${site.url}/`;
    const [jsRun, jsBill] = await billOf(keys.js, async () => {
      const key = `js-${randomUUID()}`;
      const first = (await js().asyncCrawlUrl(url, { limit }, key)) as { id: string };
      const again = (await js().asyncCrawlUrl(url, { limit }, key)) as { id: string };
      return { ids: [first.id, again.id], crawl: await settled(first.id, keys.js) };
    });
    assert.equal(jsRun.ids[1], jsRun.ids[0], 'the retry answered the first crawl');
    assert.equal(jsRun.crawl.completed, limit);
    assert.deepEqual(jsBill, { page_load: limit }, 'one crawl billed');

    const [pyRun, pyBill] = await billOf(keys.py, async () => {
      const key = `py-${randomUUID()}`;
      const start = async () =>
        pyOk(await py<{ id: string }>('v1', 'async_crawl_url', [url], { limit, idempotency_key: key })).id;
      const ids = [await start(), await start()];
      return { ids, crawl: await settled(String(ids[0]), keys.py) };
    });
    assert.equal(pyRun.ids[1], pyRun.ids[0], 'the retry answered the first crawl');
    assert.deepEqual(pyBill, { page_load: limit }, 'one crawl billed');
  });

  test('Idempotency-Key and x-idempotency-key with different keys are refused, naming the header', async () => {
    const [refused, bill] = await billOf(keys.http, () =>
      call<{ code: string; details: { issues: { path: string }[] } }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
        key: keys.http,
        body: { url: `${site.url}/`, limit },
        headers: { 'idempotency-key': `a-${randomUUID()}`, 'x-idempotency-key': `b-${randomUUID()}` },
      }),
    );
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'bad_request');
    assert.deepEqual(
      refused.body.details.issues.map((i) => i.path),
      ['header.X-Idempotency-Key'],
    );
    assert.deepEqual(bill, {}, 'no crawl started');
  });
});

describe('search', () => {
  const urlsOf = (hits: Hit[]) => hits.map((h) => h.url);

  test('search answers the provider’s hits unrendered (formats: []), billed as a plain search', async () => {
    const [plain, plainBill] = await billOf(keys.http, () =>
      call<{ data: Hit[] }>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key: keys.http,
        body: { query: ARTICLES_WORD, limit: 5, lang: 'en', country: 'us' },
      }),
    );
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.equal(plain.body.data.length, 5);
    assert.deepEqual(plainBill, { search_result: 5 });

    const [found, jsBill] = await billOf(keys.js, async () => await js().search(ARTICLES_WORD, { limit: 5 }));
    assert.equal(found.success, true);
    assert.deepEqual(urlsOf(found.data as Hit[]), urlsOf(plain.body.data));
    assert.equal((found.data[0] as Hit).title, site.article(0).title);
    assert.ok(
      found.data.every((hit) => hit.markdown === undefined),
      'the JS client’s scrapeOptions: { formats: [] } renders nothing',
    );
    assert.deepEqual(jsBill, plainBill);

    // `.v1` has no search; the class behind it does.
    const [pyFound, pyBill] = await billOf(keys.py, async () =>
      pyOk(await py<{ data: Hit[] }>('V1FirecrawlApp', 'search', [ARTICLES_WORD], { limit: 5 })),
    );
    assert.deepEqual(urlsOf(pyFound.data), urlsOf(plain.body.data));
    assert.deepEqual(pyBill, plainBill);
  });

  test('with formats every hit is rendered and billed as a page, as through plain HTTP', async () => {
    const scrapeOptions = { formats: ['markdown'] };
    const [plain, plainBill] = await billOf(keys.http, () =>
      call<{ data: Hit[] }>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key: keys.http,
        body: { query: ARTICLES_WORD, limit: 2, scrapeOptions },
      }),
    );
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.deepEqual(plainBill, { search_result: 2, page_load: 2 });

    const [found, jsBill] = await billOf(keys.js, () =>
      js().search(ARTICLES_WORD, { limit: 2, scrapeOptions: { formats: ['markdown'] } }),
    );
    assert.ok(
      found.data.every((hit) => (hit.markdown ?? '').length > 0),
      JSON.stringify(found.data),
    );
    assert.deepEqual(jsBill, plainBill);

    const [pyFound, pyBill] = await billOf(keys.py, async () =>
      pyOk(
        await py<{ data: Hit[] }>('V1FirecrawlApp', 'search', [ARTICLES_WORD], {
          limit: 2,
          scrape_options: scrapeOptions,
        }),
      ),
    );
    assert.ok(pyFound.data.every((hit) => (hit.markdown ?? '').length > 0));
    assert.deepEqual(pyBill, plainBill);
  });

  test('timeout bounds a search: past it the answer is 408 and nothing is billed, whatever the client', async () => {
    const scrapeOptions = { formats: ['markdown'] };
    const [plain, plainBill] = await billOf(keys.http, () =>
      call<{ code: string; details: { timeoutMs: number } }>(fleet.gatewayUrl, 'POST', '/v1/search', {
        key: keys.http,
        body: { query: SLOW_WORD, limit: 1, timeout: 1_500, scrapeOptions },
      }),
    );
    assert.equal(plain.status, 408, JSON.stringify(plain.body));
    assert.equal(plain.body.code, 'deadline_exceeded');
    assert.equal(plain.body.details.timeoutMs, 1_500);
    assert.deepEqual(plainBill, {});

    const [, jsBill] = await billOf(keys.js, () =>
      assert.rejects(
        js().search(SLOW_WORD, { limit: 1, timeout: 1_500, scrapeOptions: { formats: ['markdown'] } }),
        /status code 408/,
      ),
    );
    assert.deepEqual(jsBill, {});

    const [refused, pyBill] = await billOf(keys.py, () =>
      py('V1FirecrawlApp', 'search', [SLOW_WORD], { limit: 1, timeout: 1_500, scrape_options: scrapeOptions }),
    );
    assert.equal(refused.status, 408, refused.error);
    assert.deepEqual(pyBill, {});
  });
});

describe('bookkeeping fields', () => {
  test('origin and integration are accepted on scrape, crawl and search; a field no route has is still refused by name', async () => {
    const bookkeeping = { origin: 'js-sdk@4.42.0', integration: 'a-partner' };
    const bodies = {
      '/v1/scrape': { url: `${site.url}/articles/1` },
      '/v1/crawl': { url: `${site.url}/`, limit: 1 },
      '/v1/search': { query: ARTICLES_WORD },
    };
    for (const [route, body] of Object.entries(bodies)) {
      const r = await call<{ code: string; details: { issues: { path: string; message: string }[] } }>(
        fleet.gatewayUrl,
        'POST',
        route,
        { key: keys.http, body: { ...body, ...bookkeeping, ignoreSitemap: true } },
      );
      assert.equal(r.status, 400, `${route}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'bad_request');
      assert.deepEqual(
        r.body.details.issues,
        [{ path: 'body.ignoreSitemap', message: 'is not a field of this route' }],
        `${route}: only the unknown field is named`,
      );
    }
  });
});
