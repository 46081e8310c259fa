// make bench: map and batch scrape through the fleet. Map (POST /v1/map) of the
// 1,005-page bench site (1,000 articles + home + 4 static pages) with its sitemaps,
// then with `sitemap: skip` (links followed from the start page): p50 of
// BENCH_MAP_ROUNDS calls each. Then a batch scrape (POST /v1/batch/scrape) of the
// 100 pages of a smaller copy against a crawl of the same site (POST /v1/crawl,
// limit 100), each polled until settled, at the same concurrency, alternating
// over BENCH_ROUNDS pairs (default 7): the figure is the median ratio of pages per second.
import { goal, printGoals, startBenchFleet } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { table } from './run-load.js';

const MAP_ROUNDS = Number(process.env.BENCH_MAP_ROUNDS ?? 11);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CONCURRENCY = 8;
const POLL_MS = 50;

interface Job {
  status: 'running' | 'cancelled' | 'settled';
  completed: number;
}

const median = (xs: number[]) => {
  const s = xs.toSorted((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

async function post<T>(base: string, key: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Map calls, each timed from the request to the whole answer. */
async function mapTimes(base: string, key: string, site: TestSite, sitemap: 'include' | 'skip') {
  const times: number[] = [];
  let found = 0;
  for (let i = 0; i < MAP_ROUNDS; i++) {
    const t0 = performance.now();
    const out = await post<{ links: unknown[] }>(base, key, '/v1/map', { url: `${site.url}/`, sitemap, limit: 5_000 });
    times.push(performance.now() - t0);
    found = out.links.length;
  }
  return { p50: median(times), found };
}

/** Starts a job, polls it until settled; ms from the start and the pages delivered. */
async function untilSettled(base: string, key: string, path: string, body: unknown) {
  const t0 = performance.now();
  const { id } = await post<{ id: string }>(base, key, path, body);
  for (;;) {
    const res = await fetch(`${base}/v1/crawl/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const { crawl } = (await res.json()) as { crawl: Job };
    if (crawl.status === 'settled') return { ms: performance.now() - t0, pages: crawl.completed };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function main() {
  const big = await startTestSite({ pages: 1000, extras: false });
  const fleet = await startBenchFleet({ env: { LOG_LEVEL: 'warn', EGRESS_ALLOW: '127.0.0.0/8' } });
  try {
    const { apiKey } = await fleet.workspace('scale');
    const base = fleet.gatewayUrl;
    const withSitemap = await mapTimes(base, apiKey, big, 'include');
    const linksOnly = await mapTimes(base, apiKey, big, 'skip');

    const ratios: number[] = [];
    const rounds: { batch: number; crawl: number }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // A fresh copy for each side (95 articles + home + 4 static pages = 100), batch first on even rounds.
      const [a, b] = [
        await startTestSite({ pages: 95, extras: false }),
        await startTestSite({ pages: 95, extras: false }),
      ];
      try {
        const batch = () =>
          untilSettled(base, apiKey, '/v1/batch/scrape', {
            urls: a.paths.map((p) => `${a.url}${p}`),
            maxConcurrency: CONCURRENCY,
          });
        const crawl = () =>
          untilSettled(base, apiKey, '/v1/crawl', { url: `${b.url}/`, limit: 100, maxConcurrency: CONCURRENCY });
        const first = i % 2 === 0 ? await batch() : await crawl();
        const second = i % 2 === 0 ? await crawl() : await batch();
        const [x, y] = i % 2 === 0 ? [first, second] : [second, first];
        if (x.pages !== 100 || y.pages !== 100) throw new Error(`pages delivered: batch ${x.pages}, crawl ${y.pages}`);
        const perSecond = (r: { ms: number; pages: number }) => (r.pages / r.ms) * 1000;
        rounds.push({ batch: perSecond(x), crawl: perSecond(y) });
        ratios.push(perSecond(x) / perSecond(y));
      } finally {
        await a.close();
        await b.close();
      }
    }
    const ratio = median(ratios);
    console.log(
      table([
        {
          figure: 'map, 1,005-page site with sitemaps, p50',
          value: `${withSitemap.p50.toFixed(0)} ms`,
          found: withSitemap.found,
        },
        { figure: 'map, same site, links only, p50', value: `${linksOnly.p50.toFixed(0)} ms`, found: linksOnly.found },
        ...rounds.map((r, i) => ({
          figure: `round ${i + 1}: batch / crawl pages/s`,
          value: `${r.batch.toFixed(1)} / ${r.crawl.toFixed(1)}`,
          found: 100,
        })),
      ]),
    );
    if (withSitemap.found < big.paths.length)
      console.log(`WARNING: the map found ${withSitemap.found} of ${big.paths.length}`);
    const goals = [
      goal('map of the 1,005-page site with a sitemap, p50', withSitemap.p50, '<=', 300, 'ms'),
      goal('map of the same site without a sitemap (links only), p50', linksOnly.p50, '<=', 3_000, 'ms'),
      goal('batch scrape of 100 local pages, pages/s, / a crawl of the same', ratio, '>=', 1, '×'),
    ];
    printGoals(goals);
    console.log(
      JSON.stringify({
        bench: 'map-batch',
        mapWithSitemapMs: Math.round(withSitemap.p50),
        mapWithSitemapFound: withSitemap.found,
        mapLinksOnlyMs: Math.round(linksOnly.p50),
        mapLinksOnlyFound: linksOnly.found,
        batchOverCrawl: Number(ratio.toFixed(3)),
        rounds,
        goals,
      }),
    );
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
    await big.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
