// make bench: how many browser sessions a host holds, for docs/scale.md. K sessions through the
// gateway's /connect (one browser-host), each on an article of a loopback test site: Chromium's
// memory per session with a page loaded (Pss, as connect.bench counts the idle one); then each
// session reads the site's articles one after another for BENCH_DENSITY_SECONDS: the navigations
// a second, and the CPU each navigation costs Chromium and the browser host.
//   node e2e/dist/bench/session-density.bench.js   (BENCH_DENSITY_SESSIONS, default 8)
import { startBenchFleet } from '@wap/testkit';
import { startTestSite } from '@wap/testsite';
import { type Browser, chromium, type Page } from 'playwright-core';
import { chromiumCpuSeconds, chromiumPssMiB } from './chromium-memory.js';
import { cpuMeter, formatCpu } from './cpu.js';

const K = Number(process.env.BENCH_DENSITY_SESSIONS ?? 8);
const SECONDS = Number(process.env.BENCH_DENSITY_SECONDS ?? 20);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const site = await startTestSite({ pages: 200, extras: false });
  const fleet = await startBenchFleet({
    env: { LOG_LEVEL: 'warn', EGRESS_ALLOW: '127.0.0.0/8', SESSION_WARM: '1', SESSION_CAPACITY: String(K + 2) },
  });
  const open: Browser[] = [];
  try {
    const { apiKey } = await fleet.workspace('scale');
    // The warm pool refills after each connect: let it, before and after, so both counts hold one warm browser.
    await pause(3_000);
    // Only this fleet's browsers: other work on the machine may run browsers of its own.
    const host = fleet.pid('browser-host');
    if (host === undefined) throw new Error('the fleet has no browser host');
    const before = chromiumPssMiB(host);
    const pages: Page[] = [];
    for (let i = 0; i < K; i++) {
      const browser = await chromium.connectOverCDP(`${fleet.gatewayUrl}/connect`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      open.push(browser);
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${site.url}/articles/${i}`);
      pages.push(page);
    }
    await pause(3_000);
    const loadedMiB = (chromiumPssMiB(host) - before) / K;

    const cpu = cpuMeter();
    const chromiumBefore = chromiumCpuSeconds(host);
    const until = Date.now() + SECONDS * 1_000;
    let navigations = 0;
    await Promise.all(
      pages.map(async (page, i) => {
        for (let n = 0; Date.now() < until; n++) {
          await page.goto(`${site.url}/articles/${(i * 25 + n) % 200}`);
          navigations++;
        }
      }),
    );
    const spent: Record<string, number> = { ...cpu(), chromium: chromiumCpuSeconds(host) - chromiumBefore };
    const perNavigation = (label: string) => ((spent[label] ?? 0) * 1_000) / Math.max(navigations, 1);
    console.log(`${K} sessions, each on a loaded article: ${loadedMiB.toFixed(0)} MiB of Chromium per session (Pss)`);
    console.log(
      `reading articles for ${SECONDS} s: ${(navigations / SECONDS).toFixed(1)} navigations/s; CPU per navigation: chromium ${perNavigation('chromium').toFixed(1)} ms, browser-host ${perNavigation('browser-host').toFixed(1)} ms`,
    );
    // The services' figures count every process of that name on the machine; Chromium's, this fleet's alone.
    console.log(`CPU during the reading: ${formatCpu(spent)}`);
    console.log(
      JSON.stringify({
        bench: 'session-density',
        sessions: K,
        loadedMiBPerSession: Math.round(loadedMiB),
        navigationsPerSecond: Number((navigations / SECONDS).toFixed(2)),
        cpuMsPerNavigation: { chromium: perNavigation('chromium'), browserHost: perNavigation('browser-host') },
        goals: [],
      }),
    );
  } finally {
    for (const b of open) await b.close().catch(() => undefined);
    await fleet.stop();
    await fleet.dropDatabases();
    await site.close();
  }
}

void main();
