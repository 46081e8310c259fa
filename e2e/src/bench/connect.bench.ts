// make bench: cloud browsers over CDP, side by side with Browserless
// (@browserless.io/browserless, on the same Debian Chromium, on loopback).
//
// - connect to first navigation: from Playwright's connectOverCDP until a
//   loopback page has loaded, then close; N sessions one after another, after
//   warm-ups (our warm pool: SESSION_WARM=1);
// - CDP round trips per second: Runtime.evaluate('1') in a tight loop through
//   the gateway-chosen host and through Browserless, each call in turns with
//   one straight to a Chromium launched here, so a machine others share
//   slows both sides of a ratio alike;
// - memory per idle session: the proportional set size (Pss) of every
//   Chromium process on the machine, before and after K idle sessions with one
//   about:blank page each, divided by K.
//
// Browserless runs in a child process; if it cannot start, the bench reports
// ours and says why loudly.
import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { goal, printGoals, startBenchFleet } from '@wap/testkit';
import { type Browser, chromium } from 'playwright-core';
import { chromiumPssMiB } from './chromium-memory.js';
import { table } from './run-load.js';

const CHROMIUM = '/usr/bin/chromium';
const SESSIONS = Number(process.env.BENCH_CONNECT_SESSIONS ?? 30);
const WARMUP = Number(process.env.BENCH_CONNECT_WARMUP ?? 3);
const ROUND_TRIPS = Number(process.env.BENCH_CDP_ROUND_TRIPS ?? 2_000);
const IDLE = Number(process.env.BENCH_IDLE_SESSIONS ?? 5);
/** Between measured sessions of the warm figure: time for a pool to refill. */
const GAP_MS = Number(process.env.BENCH_CONNECT_GAP_MS ?? 1_500);
const BROWSERLESS_CHILD = 'browserless-child';

interface Side {
  /** Opens a browser session over CDP the way a client does. */
  connect(): Promise<Browser>;
}

/**
 * Connect to first navigation, `n` times one after another; milliseconds
 * each. `gapMs` between sessions lets a warm pool refill (a launch takes about
 * half a second here); without it, back-to-back sessions drain the pool.
 */
async function connectLatencies(side: Side, url: string, n: number, gapMs = 0): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    if (gapMs > 0) await pause(gapMs);
    const t0 = performance.now();
    const browser = await side.connect();
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url);
    out.push(performance.now() - t0);
    await browser.close();
  }
  return out;
}

/** One round trip over one page's session, in milliseconds. */
async function evaluateOnce(browser: Browser): Promise<() => Promise<number>> {
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  for (let i = 0; i < 100; i++) await cdp.send('Runtime.evaluate', { expression: '1' });
  return async () => {
    const t0 = performance.now();
    await cdp.send('Runtime.evaluate', { expression: '1' });
    return performance.now() - t0;
  };
}

/**
 * CDP round trips per second through `side` and straight to `direct`, `n`
 * each, one and one in turns (which goes first alternating), so what else
 * runs on the machine meets both alike.
 */
async function roundTrips(side: Browser, direct: Browser, n: number): Promise<{ rtps: number; directRtps: number }> {
  const through = await evaluateOnce(side);
  const straight = await evaluateOnce(direct);
  let sideMs = 0;
  let directMs = 0;
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) directMs += await straight();
    sideMs += await through();
    if (i % 2 === 1) directMs += await straight();
  }
  return { rtps: n / (sideMs / 1000), directRtps: n / (directMs / 1000) };
}

/** Added Chromium memory per idle session: K sessions open, one about:blank page each. */
async function idleMemory(side: Side, k: number, settle: () => Promise<unknown>): Promise<number> {
  await settle();
  const before = chromiumPssMiB();
  const open: Browser[] = [];
  try {
    for (let i = 0; i < k; i++) {
      const browser = await side.connect();
      const context = browser.contexts()[0] ?? (await browser.newContext());
      if (context.pages().length === 0) await context.newPage();
      open.push(browser);
    }
    await settle();
    return (chromiumPssMiB() - before) / k;
  } finally {
    for (const b of open) await b.close().catch(() => undefined);
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** In the child: Browserless on loopback with Debian's Chromium; sends its port, runs until killed. */
async function browserlessChild(): Promise<void> {
  const port = Number(process.env.BROWSERLESS_PORT);
  process.env.PORT = String(port);
  process.env.HOST = '127.0.0.1';
  process.env.TOKEN = 'bench';
  process.env.CONCURRENT = String(IDLE + 2);
  process.env.TIMEOUT = '600000';
  const { startBrowserless } = await import('./browserless.js');
  await startBrowserless(CHROMIUM);
  process.send?.({ port });
}

function startBrowserlessChild(port: number): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [BROWSERLESS_CHILD], {
      env: { ...process.env, BROWSERLESS_PORT: String(port) },
      // Its meta route reads node_modules/playwright-core from the working directory: e2e/'s.
      cwd: path.resolve(__dirname, '..', '..'),
      execArgv: ['--enable-source-maps', '--disable-warning=ExperimentalWarning'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let err = '';
    child.stderr?.on('data', (d) => {
      err += String(d);
    });
    child.on('message', () => resolve({ child, url: `ws://127.0.0.1:${port}/chromium?token=bench` }));
    child.on('exit', (code) => reject(new Error(`Browserless exited ${code}: ${err.trim().slice(-600)}`)));
  });
}

async function main() {
  const site = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title><p>first page'),
  );
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  const results: Record<
    string,
    {
      p50?: number;
      p99?: number;
      b2b50?: number;
      b2b99?: number;
      rtps?: number;
      directRtps?: number;
      mib?: number;
      error?: string;
    }
  > = {};
  // Straight to a local Chromium: the round-trip ceiling, measured beside each side in turns.
  const direct = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    // Ours, through the gateway.
    const fleet = await startBenchFleet({
      env: { LOG_LEVEL: 'warn', EGRESS_ALLOW: '127.0.0.0/8', SESSION_WARM: '1', SESSION_CAPACITY: '16' },
    });
    try {
      const { apiKey } = await fleet.workspace('pro');
      const ours: Side = {
        connect: () =>
          chromium.connectOverCDP(`${fleet.gatewayUrl}/connect`, { headers: { Authorization: `Bearer ${apiKey}` } }),
      };
      await connectLatencies(ours, url, WARMUP);
      const latencies = await connectLatencies(ours, url, SESSIONS, GAP_MS);
      const backToBack = await connectLatencies(ours, url, SESSIONS);
      const browser = await ours.connect();
      let trips: { rtps: number; directRtps: number };
      try {
        trips = await roundTrips(browser, direct, ROUND_TRIPS);
      } finally {
        await browser.close();
      }
      // The warm pool refills after each connect: let it, before and after, so both counts hold one warm browser.
      const mib = await idleMemory(ours, IDLE, () => pause(3_000));
      results.ours = {
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        b2b50: quantile(backToBack, 0.5),
        b2b99: quantile(backToBack, 0.99),
        ...trips,
        mib,
      };
    } finally {
      await fleet.stop();
      await fleet.dropDatabases();
    }

    // Browserless, on the same Chromium.
    let browserless: { child: ChildProcess; url: string } | undefined;
    try {
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const p = (probe.address() as { port: number }).port;
          probe.close(() => resolve(p));
        });
      });
      browserless = await startBrowserlessChild(port);
      const side: Side = { connect: () => chromium.connectOverCDP((browserless as { url: string }).url) };
      await connectLatencies(side, url, WARMUP);
      const latencies = await connectLatencies(side, url, SESSIONS, GAP_MS);
      const backToBack = await connectLatencies(side, url, SESSIONS);
      const browser = await side.connect();
      let trips: { rtps: number; directRtps: number };
      try {
        trips = await roundTrips(browser, direct, ROUND_TRIPS);
      } finally {
        await browser.close();
      }
      const mib = await idleMemory(side, IDLE, () => pause(3_000));
      results.browserless = {
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        b2b50: quantile(backToBack, 0.5),
        b2b99: quantile(backToBack, 0.99),
        ...trips,
        mib,
      };
    } catch (err) {
      results.browserless = { error: (err as Error).message };
      console.error(`\n!!! Browserless did not run: ${(err as Error).message}\n`);
    } finally {
      browserless?.child.kill('SIGTERM');
    }
  } finally {
    await direct.close();
    site.close();
  }

  const ms = (v?: number) => (v === undefined ? '—' : `${v.toFixed(0)} ms`);
  const ours = results.ours ?? {};
  const peer = results.browserless ?? {};
  const directRtps = ours.directRtps ?? Number.NaN;
  const ratio = (side: { rtps?: number; directRtps?: number }) =>
    (side.rtps ?? Number.NaN) / (side.directRtps ?? Number.NaN);
  console.log(
    `\nCDP sessions: connect to first navigation over ${SESSIONS} sessions ${GAP_MS} ms apart (a warm pool refilled) and back-to-back (after ${WARMUP} warm-ups), ${ROUND_TRIPS} Runtime.evaluate round trips, ${IDLE} idle sessions\n`,
  );
  console.log(
    table([
      {
        target: 'ours: gateway /connect',
        'connect→nav p50': ms(ours.p50),
        p99: ms(ours.p99),
        'back-to-back p50': ms(ours.b2b50),
        'b2b p99': ms(ours.b2b99),
        'CDP rt/s': ours.rtps?.toFixed(0) ?? '—',
        'vs direct': ratio(ours).toFixed(2),
        'MiB/idle session': ours.mib?.toFixed(0) ?? '—',
      },
      {
        target: 'Browserless 2.42.0',
        'connect→nav p50': ms(peer.p50),
        p99: ms(peer.p99),
        'back-to-back p50': ms(peer.b2b50),
        'b2b p99': ms(peer.b2b99),
        'CDP rt/s': peer.rtps?.toFixed(0) ?? '—',
        'vs direct': ratio(peer).toFixed(2),
        'MiB/idle session': peer.mib?.toFixed(0) ?? '—',
      },
      {
        target: 'direct Chromium',
        'connect→nav p50': '—',
        p99: '—',
        'back-to-back p50': '—',
        'b2b p99': '—',
        'CDP rt/s': directRtps.toFixed(0),
        'vs direct': '1.00',
        'MiB/idle session': '—',
      },
      {
        target: 'goal',
        'connect→nav p50': '≤ 150 ms, below Browserless',
        p99: '',
        'back-to-back p50': '',
        'b2b p99': '',
        'CDP rt/s': '',
        'vs direct': '≥ 0.90',
        'MiB/idle session': '',
      },
    ]),
  );
  const round = (v?: number) => (v === undefined ? null : Number(v.toFixed(1)));
  const goals = [
    goal(
      '/connect back-to-back p50, ours / Browserless',
      (ours.b2b50 ?? Number.NaN) / (peer.b2b50 ?? Number.NaN),
      '<=',
      1,
      '×',
    ),
    goal('CDP round trips, gateway-chosen host / direct', ratio(ours), '>=', 0.9, '×'),
  ];
  printGoals(goals);
  console.log(
    JSON.stringify({
      bench: 'connect',
      sessions: SESSIONS,
      ours: {
        p50: round(ours.p50),
        p99: round(ours.p99),
        backToBackP50: round(ours.b2b50),
        backToBackP99: round(ours.b2b99),
        rtps: round(ours.rtps),
        mibPerIdle: round(ours.mib),
      },
      browserless: peer.error
        ? { error: peer.error }
        : {
            p50: round(peer.p50),
            p99: round(peer.p99),
            backToBackP50: round(peer.b2b50),
            backToBackP99: round(peer.b2b99),
            rtps: round(peer.rtps),
            directRtps: round(peer.directRtps),
            mibPerIdle: round(peer.mib),
          },
      direct: { rtps: round(directRtps) },
      rtpsRatio: Number(ratio(ours).toFixed(3)),
      goals,
    }),
  );
}

if (process.argv[2] === BROWSERLESS_CHILD)
  browserlessChild().catch((err) => {
    console.error(err);
    process.exit(1);
  });
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
