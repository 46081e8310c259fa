// make bench: scrape throughput and latency through the whole fleet (POST
// /v1/scrape, markdown, engine fetch, maxAge 0: auth, rate limit, a billing
// hold and settle, the page cache and search index writes, gRPC both ways)
// against the same pipeline (loadPage + toDocument from the crawl service)
// called in one process. Both sides fetch the same loopback article pages, N
// requests K at a time; the in-process side runs in a child process so that,
// as for the fleet, the test site has the bench process to itself.

import { goal, printGoals, startBenchFleet } from '@wap/testkit';
import { startTestSite } from '@wap/testsite';
import pg from 'pg';
import { answerParent, runInChild } from './child.js';
import { cpuMeter, waitForQuiet } from './cpu.js';
import { table } from './run-load.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
/** Requests before the measured ones on each side (other pages), so neither side is timed cold. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 40);
const CHILD = 'in-process-child';
/**
 * Fleets compared in one run: each `;`-separated list of NAME=value settings starts
 * a fleet of its own, in turn each round (BENCH_ROUNDS, default 1), e.g.
 * BENCH_VARIANTS='SCRAPE_HOLD_AHEAD=0;' for scrapes held alone, then drawn
 * (decision 0031). The goals read the first variant's first round.
 */
const VARIANTS: Record<string, string>[] = (process.env.BENCH_VARIANTS ?? '').split(';').map((v) =>
  Object.fromEntries(
    v
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => kv.split('=', 2) as [string, string]),
  ),
);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const variantName = (settings: Record<string, string>) => {
  const text = Object.entries(settings)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return text ? ` (${text})` : '';
};

interface Run {
  ms: number;
  ok: number;
  latencies: number[];
  failures: string[];
  /** User+system CPU of the process that did the work, in process runs only. */
  cpuMs?: number;
}

/** The workspace's holds and usage rows in the ledger's database, counted. */
function ledgerRows(url: string, workspaceId: string) {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ holds: string; usage: string }>(
        `SELECT (SELECT count(*) FROM holds WHERE workspace_id = $1) AS holds,
                (SELECT count(*) FROM usage_records WHERE workspace_id = $1) AS usage`,
        [workspaceId],
      );
      return { holds: Number(rows[0]?.holds), usage: Number(rows[0]?.usage) };
    } finally {
      await client.end();
    }
  };
}

/** Runs `one` over `urls`, `concurrency` at a time; each page's markdown must hold its title. */
async function drive(
  urls: string[],
  titles: string[],
  one: (url: string) => Promise<string>,
  concurrency = CONCURRENCY,
): Promise<Run> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let ok = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const i = next++;
        const started = performance.now();
        try {
          const markdown = await one(urls[i] as string);
          latencies.push(performance.now() - started);
          if (markdown.includes(titles[i] as string)) ok++;
          else failures.push(`${urls[i]}: title missing from the markdown`);
        } catch (err) {
          failures.push(`${urls[i]}: ${(err as Error).message}`);
        }
      }
    }),
  );
  return { ms: performance.now() - t0, ok, latencies, failures };
}

/** In the child: the crawl service's pipeline, called directly. */
async function inProcessChild(work: { urls: string[]; titles: string[]; warmUrls: string[]; warmTitles: string[] }) {
  const { create } = await import('@bufbuild/protobuf');
  const { loadPage, toDocument } = await import('@wap/crawl/dist/pipeline/scrape.js');
  const { createFetchAgent } = await import('@wap/fetch');
  const { AllowList } = await import('@wap/netguard');
  const { crawl } = await import('@wap/proto');
  const allow = AllowList.parse('127.0.0.0/8');
  const deps = { agent: createFetchAgent({ allow }), allow };
  const options = create(crawl.ScrapeOptionsSchema, { formats: [crawl.Format.MARKDOWN], engine: crawl.Engine.FETCH });
  const one = async (url: string) => {
    const { page, extracted } = await loadPage(deps, url, options, AbortSignal.timeout(30_000));
    return toDocument(page, options, false, extracted).markdown;
  };
  await drive(work.warmUrls, work.warmTitles, one);
  const before = process.cpuUsage();
  const run = await drive(work.urls, work.titles, one);
  const spent = process.cpuUsage(before);
  return { ...run, cpuMs: (spent.user + spent.system) / 1000 };
}

function runChild(work: Parameters<typeof inProcessChild>[0]): Promise<Run> {
  return runInChild<Run>(__filename, [CHILD], { BENCH_CONCURRENCY: String(CONCURRENCY) }, work);
}

function summary(run: Run) {
  const sorted = [...run.latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return {
    perSecond: sorted.length / (run.ms / 1000),
    p50: pct(0.5),
    p90: pct(0.9),
    p99: pct(0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    ok: run.ok,
    failed: run.failures.length,
  };
}

async function main() {
  const site = await startTestSite({ pages: 1000, extras: false });
  if (REQUESTS + WARMUP > 1000)
    throw new Error('at most 1,000 distinct articles: lower BENCH_REQUESTS or BENCH_WARMUP');
  const articles = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  // The measured requests take articles 0..N-1; the warm-up ones the last articles.
  const measured = articles(0, REQUESTS);
  const warm = articles(1000 - WARMUP, WARMUP);
  const urlsOf = (ids: number[]) => ids.map((i) => `${site.url}/articles/${i}`);
  const titlesOf = (ids: number[]) => ids.map((i) => site.article(i).title);
  try {
    // In process first, on a quiet machine (the fleet is not started yet).
    const inProcess = await runChild({
      urls: urlsOf(measured),
      titles: titlesOf(measured),
      warmUrls: urlsOf(warm),
      warmTitles: titlesOf(warm),
    });
    const inProcessRequests = site.stats.total;

    interface FleetRun {
      variant: string;
      run: Run;
      cpu: Record<string, number>;
      /** Holds authorized and usage rows written per measured page (the ledger's rows). */
      ledger: { holds: number; usageRows: number };
      siteRequests: number;
    }
    const fleetRuns: FleetRun[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const settings of VARIANTS) {
        const fetchedBefore = site.stats.total;
        const fleet = await startBenchFleet({ env: { LOG_LEVEL: 'warn', EGRESS_ALLOW: '127.0.0.0/8', ...settings } });
        try {
          const { apiKey, workspaceId } = await fleet.workspace('scale');
          const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
          const one = async (url: string) => {
            const res = await fetch(`${fleet.gatewayUrl}/v1/scrape`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ url, formats: ['markdown'], maxAge: 0, engine: 'fetch' }),
            });
            const body = (await res.json()) as { data?: { markdown?: string }; code?: string };
            if (res.status !== 200) throw new Error(`${res.status} ${body.code}`);
            return body.data?.markdown ?? '';
          };
          await waitForQuiet();
          await drive(urlsOf(warm), titlesOf(warm), one);
          const rows = ledgerRows(fleet.databaseUrl('billing-ledger'), workspaceId);
          const rowsBefore = await rows();
          const cpu = cpuMeter();
          const run = await drive(urlsOf(measured), titlesOf(measured), one);
          const spentCpu = cpu();
          const rowsAfter = await rows();
          fleetRuns.push({
            variant: variantName(settings),
            run,
            cpu: spentCpu,
            ledger: {
              holds: (rowsAfter.holds - rowsBefore.holds) / REQUESTS,
              usageRows: (rowsAfter.usage - rowsBefore.usage) / REQUESTS,
            },
            siteRequests: site.stats.total - fetchedBefore,
          });
        } finally {
          await fleet.stop();
          await fleet.dropDatabases();
        }
      }
    }

    const p = summary(inProcess);
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    const row = (target: string, s: ReturnType<typeof summary>, siteRequests: number) => ({
      target,
      'pages/s': s.perSecond.toFixed(1),
      p50: ms(s.p50),
      p90: ms(s.p90),
      p99: ms(s.p99),
      max: ms(s.max),
      ok: s.ok,
      failed: s.failed,
      'site requests': siteRequests,
    });
    console.log(
      `\nScrapes of ${REQUESTS} distinct article pages, ${CONCURRENCY} at a time, markdown, engine fetch, after ${WARMUP} warm-up requests each\n`,
    );
    console.log(
      table([
        ...fleetRuns.map((r) => row(`fleet${r.variant}: POST /v1/scrape (maxAge 0)`, summary(r.run), r.siteRequests)),
        row('in process: loadPage + toDocument', p, inProcessRequests),
      ]),
    );
    const round = (v: number) => Number(v.toFixed(1));
    // Where the fleet's CPU went, per page: the services, Postgres, NATS (the test site and client are not counted).
    const perPageOf = (cpu: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(cpu)
          .filter(([label, s]) => label !== 'bench process' && s > 0)
          .sort((a, b) => b[1] - a[1])
          .map(([label, s]) => [label, round((s * 1000) / REQUESTS)]),
      );
    const total = (perPage: Record<string, number>) => Object.values(perPage).reduce((a, b) => a + b, 0);
    for (const r of fleetRuns) {
      const f = summary(r.run);
      const perPage = perPageOf(r.cpu);
      console.log(
        `\nfleet${r.variant}: throughput ratio fleet/in-process ${(f.perSecond / p.perSecond).toFixed(2)}; p50 ${(f.p50 / p.p50).toFixed(1)}x, p99 ${(f.p99 / p.p99).toFixed(1)}x the in-process latency`,
      );
      console.log(
        `ledger rows per page: ${r.ledger.holds.toFixed(2)} holds authorized, ${r.ledger.usageRows.toFixed(2)} usage rows`,
      );
      console.log(
        `fleet CPU per page: ${total(perPage).toFixed(1)} ms (${Object.entries(perPage)
          .map(([label, ms]) => `${label} ${ms}`)
          .join(', ')}); in process: ${((inProcess.cpuMs ?? Number.NaN) / REQUESTS).toFixed(1)} ms`,
      );
    }
    // The goals read the first variant's first round.
    const first = fleetRuns[0] as FleetRun;
    const viaFleet = first.run;
    const f = summary(viaFleet);
    const ratio = f.perSecond / p.perSecond;
    const perPage = perPageOf(first.cpu);
    const fleetCpuMs = total(perPage);
    const goals = [
      goal('scrape throughput, fleet / in process', ratio, '>=', 0.5, '×'),
      goal('fleet CPU per scraped page', fleetCpuMs, '<=', 6, 'ms'),
    ];
    printGoals(goals);
    for (const failure of [...fleetRuns.flatMap((r) => r.run.failures), ...inProcess.failures].slice(0, 10))
      console.log(`  ${failure}`);
    console.log(
      JSON.stringify({
        bench: 'scrape',
        requests: REQUESTS,
        concurrency: CONCURRENCY,
        fleet: { perSecond: round(f.perSecond), p50: round(f.p50), p99: round(f.p99), failed: f.failed },
        inProcess: { perSecond: round(p.perSecond), p50: round(p.p50), p99: round(p.p99), failed: p.failed },
        ratio: Number(ratio.toFixed(3)),
        cpuMsPerPage: { fleet: perPage, inProcess: round((inProcess.cpuMs ?? Number.NaN) / REQUESTS) },
        ...(fleetRuns.length > 1 && {
          variants: fleetRuns.map((r) => ({
            variant: r.variant,
            perSecond: round(summary(r.run).perSecond),
            ratio: Number((summary(r.run).perSecond / p.perSecond).toFixed(3)),
            cpuMsPerPage: round(total(perPageOf(r.cpu))),
            ledgerPerPage: r.ledger,
          })),
        }),
        goals,
      }),
    );
    if (fleetRuns.some((r) => r.run.failures.length > 0) || p.failed > 0) process.exitCode = 1;
  } finally {
    await site.close();
  }
}

if (process.argv[2] === CHILD) {
  process.once('message', (work) => answerParent(inProcessChild(work as Parameters<typeof inProcessChild>[0])));
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
