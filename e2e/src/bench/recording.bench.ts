// make bench: what recording a CDP session costs (docs/sessions.md).
//
// - A 50-page walk of loopback articles (Playwright over CDP straight to a
//   session browser, page.goto of each, then a scroll and a click), with the
//   recorder extension and the network log on versus off: the page load time
//   each way (goal: at most 10% slower recorded);
// - the bytes a minute of that active session stores (gzip'd chunks, what
//   the session-recorder keeps);
// - the replay's time to first frame: the exported bundle of that walk,
//   opened from file:// in Chromium, until the player's frame shows the first
//   page's text.
//
// The session browsers are browser-host's own (launchSessionBrowser with its
// egress proxy and default face), the chunks go to an in-memory sink: what is
// measured is the browser and the host, not NATS.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { browserFace } from '@wap/browser-host/dist/domain/browser-face.js';
import { sessionSettings } from '@wap/browser-host/dist/domain/session-options.js';
import { SessionRecording } from '@wap/browser-host/dist/recording/recording.js';
import { chromiumMajor, launchSessionBrowser } from '@wap/browser-host/dist/sessions/session-browser.js';
import { replayHtml } from '@wap/gateway/dist/replay/page.js';
import { readReplayChunks } from '@wap/gateway/dist/replay/recording.js';
import { AllowList } from '@wap/netguard';
import { goal, printGoals } from '@wap/testkit';
import { startTestSite } from '@wap/testsite';
import { chromium } from 'playwright-core';
import { table } from './run-load.js';

const CHROMIUM = '/usr/bin/chromium';
const PAGES = Number(process.env.BENCH_WALK_PAGES ?? 50);
const ROUNDS = Number(process.env.BENCH_WALK_ROUNDS ?? 3);
const quietLog = { info() {}, warn() {}, error() {}, debug() {} } as never;

interface Walk {
  loads: number[];
  ms: number;
  chunks: { kind: string; body: Uint8Array }[];
}

/** One walk of `urls` in a fresh session browser, recorded or not. */
async function walk(urls: string[], record: boolean): Promise<Walk> {
  const major = chromiumMajor(CHROMIUM);
  const launched = await launchSessionBrowser(
    CHROMIUM,
    AllowList.parse('127.0.0.0/8'),
    browserFace(sessionSettings(undefined), major),
    { record },
  );
  const chunks: Walk['chunks'] = [];
  const recording = record
    ? new SessionRecording(
        '00000000-0000-4000-8000-000000000001',
        'bench',
        {
          publish: async (meta, body) => {
            chunks.push({ kind: meta.kind, body });
          },
        },
        quietLog,
      )
    : undefined;
  if (recording) {
    launched.recordTo(recording);
    // The host's default screencast, unless the run says otherwise.
    const screencastIntervalMs = Number(process.env.SCREENCAST_INTERVAL_MS ?? 1_000);
    await launched.captureNetwork(recording, { bodies: false, screencastIntervalMs });
  }
  const browser = await chromium.connectOverCDP(launched.endpoint.href);
  const loads: number[] = [];
  const t0 = performance.now();
  try {
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = await context.newPage();
    for (const url of urls) {
      const started = performance.now();
      await page.goto(url, { waitUntil: 'load' });
      loads.push(performance.now() - started);
      await page.mouse.wheel(0, 600);
      await page.mouse.click(200, 200);
    }
  } finally {
    await browser.close().catch(() => undefined);
    await launched.flushRecording();
    await recording?.close();
    await launched.close();
  }
  return { loads, ms: performance.now() - t0, chunks };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The exported bundle of a walk, opened from file://: ms until the player's frame shows `text`. */
async function timeToFirstFrame(chunks: Walk['chunks'], text: string): Promise<number> {
  const data = readReplayChunks('00000000-0000-4000-8000-000000000001', chunks);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'wap-bench-replay-')), 'replay.html');
  writeFileSync(file, replayHtml({ sessionId: data.sessionId, mode: { kind: 'inline', data } }));
  const viewer = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await (await viewer.newContext({ offline: true })).newPage();
    const t0 = performance.now();
    await page.goto(`file://${file}`);
    for (;;) {
      const shown = await page.evaluate(
        `(() => { const f = document.querySelector('.replayer-wrapper iframe'); return !!(f && f.contentDocument && f.contentDocument.body && f.contentDocument.body.innerText.includes(${JSON.stringify(text)})); })()`,
      );
      if (shown) return performance.now() - t0;
      if (performance.now() - t0 > 30_000) throw new Error('the replay showed no first frame in 30 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await viewer.close();
  }
}

async function main() {
  const site = await startTestSite({ pages: PAGES, extras: false });
  const urls = Array.from({ length: PAGES }, (_, i) => `${site.url}/articles/${i}`);
  try {
    // Alternate off and on, so both meet the machine in the same state.
    const off: number[] = [];
    const on: number[] = [];
    let recorded: Walk | undefined;
    await walk(urls.slice(0, 5), false);
    for (let round = 0; round < ROUNDS; round++) {
      off.push(...(await walk(urls, false)).loads);
      recorded = await walk(urls, true);
      on.push(...recorded.loads);
    }
    const last = recorded as Walk;
    const bytes = last.chunks.reduce((n, c) => n + c.body.length, 0);
    const perMinute = bytes / (last.ms / 60_000);
    const ttff = await timeToFirstFrame(last.chunks, site.article(0).title);
    const slower = mean(on) / mean(off) - 1;
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    console.log(`\nA ${PAGES}-page loopback walk (goto, scroll, click), ${ROUNDS} rounds each way\n`);
    console.log(
      table([
        { run: 'not recorded', 'mean load': ms(mean(off)), p50: ms(quantile(off, 0.5)), p99: ms(quantile(off, 0.99)) },
        {
          run: 'recorded (rrweb + network log)',
          'mean load': ms(mean(on)),
          p50: ms(quantile(on, 0.5)),
          p99: ms(quantile(on, 0.99)),
        },
      ]),
    );
    console.log(
      `\nrecorded is ${(slower * 100).toFixed(1)}% slower (goal: at most 10%); stored ${(perMinute / 1024).toFixed(0)} KiB a minute of the active session (${last.chunks.length} chunks, ${(bytes / 1024).toFixed(0)} KiB in ${(last.ms / 1000).toFixed(1)} s); replay time to first frame ${ms(ttff)} (the bundle, from file://)`,
    );
    const goals = [goal('page load recorded / not recorded, default settings', slower * 100, '<=', 10, '% slower')];
    printGoals(goals);
    console.log(
      JSON.stringify({
        bench: 'recording',
        pages: PAGES,
        rounds: ROUNDS,
        meanLoadMs: { off: Number(mean(off).toFixed(1)), on: Number(mean(on).toFixed(1)) },
        slowerPct: Number((slower * 100).toFixed(1)),
        storedBytesPerMinute: Math.round(perMinute),
        replayTtffMs: Number(ttff.toFixed(0)),
        goals,
      }),
    );
  } finally {
    await site.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
