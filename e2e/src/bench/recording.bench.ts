// make bench: what recording a CDP session costs (docs/sessions.md).
//
// - A 50-page walk of loopback articles (Playwright over CDP straight to a
//   session browser, page.goto of each, then a scroll and a click), with the
//   recorder extension and the network log on versus off, and on while a live
//   view watches (which runs every page's screencast): the page load time
//   each way (goal: at most 10% slower recorded, default settings; the
//   articles show no canvas or video, so unwatched they take no screencast);
// - the bytes a minute of that active session stores (gzip'd chunks, what
//   the session-recorder keeps);
// - the replay's time to first frame: the exported bundle of that walk,
//   opened from file:// in Chromium, until the player's frame shows the first
//   page's text.
//
// The session browsers are browser-host's own (launchSessionBrowser with its
// egress proxy and default face), the chunks go to an in-memory sink: what is
// measured is the browser and the host, not NATS.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  browserFace,
  env as browserHostEnv,
  chromiumVersion,
  launchSessionBrowser,
  SessionRecording,
  serveUnfiltered,
  sessionSettings,
} from '@wap/browser-host/test-support';
import { readReplayChunks, replayHtml } from '@wap/gateway/test-support';
import { AllowList } from '@wap/netguard';
import { goal, printGoals } from '@wap/testkit';
import { startTestSite } from '@wap/testsite';
import { chromium } from 'playwright-core';
import { table } from './run-load.js';

const CHROMIUM = '/usr/bin/chromium';
const PAGES = Number(process.env.BENCH_WALK_PAGES ?? 50);
/** Turns each browser takes, and pages in a turn. */
const TURNS = Number(process.env.BENCH_WALK_TURNS ?? 15);
const PAGES_A_TURN = 10;
const quietLog = { info() {}, warn() {}, error() {}, debug() {} } as never;
/**
 * What a recorded browser runs (BENCH_RECORD_PARTS), to tell what each part costs: `all` (the default settings: the
 * recorder extension, the network log, and the screencast while watched), `rrweb` (the extension alone), `network`
 * (the network log and the screencast alone; no replay to time).
 */
const PARTS = process.env.BENCH_RECORD_PARTS ?? 'all';
if (!['all', 'rrweb', 'network'].includes(PARTS))
  throw new Error(`BENCH_RECORD_PARTS: all, rrweb or network, not ${PARTS}`);

/** How a browser runs: not recorded; recorded (the default settings); recorded while a live view watches. */
type Mode = 'off' | 'recorded' | 'watched';

/** CPU seconds so far of a process and its descendants, the ones gone included (once reaped). */
function treeCpu(root: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // ppid is the 4th field; utime, stime, cutime, cstime the 14th to 17th.
      stats.set(pid, { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
    } catch {}
  }
  let ticks = 0;
  for (const [pid, s] of stats) {
    let up: number | undefined = pid;
    while (up && up !== root) up = stats.get(up)?.ppid;
    if (up === root) ticks += s.ticks;
  }
  return ticks / 100; // USER_HZ
}

interface Walker {
  /** Loads each URL in turn (goto, then a scroll and a click): each load's milliseconds, and the CPU it took. */
  walk(urls: string[]): Promise<{ loads: number[]; cpuMs: number }>;
  /** Closes the browser: the recording's chunks, and the milliseconds spent walking. */
  close(): Promise<{ chunks: { kind: string; body: Uint8Array }[]; walkingMs: number }>;
}

/** A session browser of its own for `mode`, kept for every turn. */
async function walker(mode: Mode): Promise<Walker> {
  const record = mode !== 'off';
  const launched = await launchSessionBrowser(
    CHROMIUM,
    AllowList.parse('127.0.0.0/8'),
    browserFace(sessionSettings(undefined), chromiumVersion(CHROMIUM)),
    { record: record && PARTS !== 'network' },
  );
  const chunks: { kind: string; body: Uint8Array }[] = [];
  /** A live view's ask for the latest frames, as the gateway's live view makes it. */
  let ask: (() => unknown) | undefined;
  const recording = record
    ? new SessionRecording(
        '00000000-0000-4000-8000-000000000001',
        'bench',
        {
          publish: async (meta, body) => {
            chunks.push({ kind: meta.kind, body });
          },
          serveLatest: (_sessionId, latest) => {
            ask = latest;
            return () => undefined;
          },
        },
        quietLog,
      )
    : undefined;
  if (recording) {
    launched.recordTo(recording);
    // The host's screencast, read as the host reads it: its default unless the run says otherwise.
    const screencastIntervalMs = browserHostEnv.shape.SCREENCAST_INTERVAL.parse(
      process.env.SCREENCAST_INTERVAL || undefined,
    );
    if (PARTS !== 'rrweb') await launched.captureNetwork(recording, { bodies: false, screencastIntervalMs });
  }
  // The live view asks as it opens and says it still watches every 10 s (the gateway's LIVE_WATCH_MS).
  if (mode === 'watched') ask?.();
  const watching = mode === 'watched' ? setInterval(() => ask?.(), 10_000) : undefined;
  const served = await serveUnfiltered(launched);
  const browser = await chromium.connectOverCDP(served.url);
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const page = await context.newPage();
  let walkingMs = 0;
  const pid = launched.pid;
  return {
    async walk(urls) {
      const loads: number[] = [];
      const t0 = performance.now();
      // The browser's processes, and this one's: the host's side of the recording runs here (beside Playwright).
      const cpu0 = treeCpu(pid) * 1000 + process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
      for (const url of urls) {
        const started = performance.now();
        await page.goto(url, { waitUntil: 'load' });
        loads.push(performance.now() - started);
        await page.mouse.wheel(0, 600);
        await page.mouse.click(200, 200);
      }
      walkingMs += performance.now() - t0;
      const usage = process.cpuUsage();
      return { loads, cpuMs: treeCpu(pid) * 1000 + usage.user / 1000 + usage.system / 1000 - cpu0 };
    },
    async close() {
      clearInterval(watching);
      await browser.close().catch(() => undefined);
      served.close();
      await launched.flushRecording();
      await recording?.close();
      await launched.close();
      return { chunks, walkingMs };
    },
  };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The exported bundle of a walk, opened from file://: ms until the player's frame shows `text`. */
async function timeToFirstFrame(chunks: { kind: string; body: Uint8Array }[], text: string): Promise<number> {
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
    // The three browsers take short turns, in a rotating order, so each meets the machine in the same
    // states; the figure is the median turn's ratio, so a burst of other work slows one turn, not the figure.
    const modes: Mode[] = ['off', 'recorded', 'watched'];
    const walkers: Walker[] = [];
    for (const mode of modes) walkers.push(await walker(mode));
    const loads: Record<Mode, number[]> = { off: [], recorded: [], watched: [] };
    const cpuMs: Record<Mode, number> = { off: 0, recorded: 0, watched: 0 };
    /** Each turn's mean load recorded / not recorded, and watched / not recorded. */
    const ratios: { recorded: number[]; watched: number[] } = { recorded: [], watched: [] };
    let recorded: Awaited<ReturnType<Walker['close']>>;
    try {
      for (const w of walkers) await w.walk(urls.slice(0, 3));
      for (let turn = 0; turn < TURNS; turn++) {
        const start = (turn * PAGES_A_TURN) % PAGES;
        const slice = [...urls, ...urls].slice(start, start + PAGES_A_TURN);
        const took = {} as Record<Mode, number>;
        for (let i = 0; i < modes.length; i++) {
          const m = (turn + i) % modes.length;
          const mode = modes[m] as Mode;
          const walked = await (walkers[m] as Walker).walk(slice);
          loads[mode].push(...walked.loads);
          cpuMs[mode] += walked.cpuMs;
          took[mode] = mean(walked.loads);
        }
        ratios.recorded.push(took.recorded / took.off);
        ratios.watched.push(took.watched / took.off);
      }
    } finally {
      const closed = await Promise.all(walkers.map((w) => w.close()));
      recorded = closed[1] as Awaited<ReturnType<Walker['close']>>;
    }
    const bytes = recorded.chunks.reduce((n, c) => n + c.body.length, 0);
    const perMinute = bytes / (recorded.walkingMs / 60_000);
    const ttff = PARTS === 'network' ? 0 : await timeToFirstFrame(recorded.chunks, site.article(0).title);
    const slower = quantile(ratios.recorded, 0.5) - 1;
    const slowerWatched = quantile(ratios.watched, 0.5) - 1;
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    const pct = (ratio: number) => `${((ratio - 1) * 100).toFixed(0)}%`;
    console.log(
      `\n${TURNS} turns of ${PAGES_A_TURN} loopback pages (goto, scroll, click) for each browser, in a rotating order\n`,
    );
    console.log(
      table(
        (
          [
            ['not recorded', 'off'],
            ['recorded (rrweb + network log)', 'recorded'],
            ['recorded, watched live (+ screencast)', 'watched'],
          ] as const
        ).map(([run, mode]) => ({
          run,
          'mean load': ms(mean(loads[mode])),
          p50: ms(quantile(loads[mode], 0.5)),
          p99: ms(quantile(loads[mode], 0.99)),
          // The browser's processes and the host's side (this process, Playwright included in every row).
          'CPU a page': ms(cpuMs[mode] / loads[mode].length),
        })),
      ),
    );
    console.log(
      `\nrecorded is ${(slower * 100).toFixed(1)}% slower in the median turn (goal: at most 10%; turns from ${pct(Math.min(...ratios.recorded))} to ${pct(Math.max(...ratios.recorded))}), ${(slowerWatched * 100).toFixed(1)}% while watched live; stored ${(perMinute / 1024).toFixed(0)} KiB a minute of the active session (${recorded.chunks.length} chunks, ${(bytes / 1024).toFixed(0)} KiB in ${(recorded.walkingMs / 1000).toFixed(1)} s); replay time to first frame ${ms(ttff)} (the bundle, from file://)`,
    );
    const goals = [goal('page load recorded / not recorded, default settings', slower * 100, '<=', 10, '% slower')];
    printGoals(goals);
    console.log(
      JSON.stringify({
        bench: 'recording',
        turns: TURNS,
        pagesATurn: PAGES_A_TURN,
        meanLoadMs: {
          off: Number(mean(loads.off).toFixed(1)),
          on: Number(mean(loads.recorded).toFixed(1)),
          watched: Number(mean(loads.watched).toFixed(1)),
        },
        cpuMsPerPage: {
          off: Number((cpuMs.off / loads.off.length).toFixed(1)),
          on: Number((cpuMs.recorded / loads.recorded.length).toFixed(1)),
          watched: Number((cpuMs.watched / loads.watched.length).toFixed(1)),
        },
        slowerPct: Number((slower * 100).toFixed(1)),
        watchedSlowerPct: Number((slowerWatched * 100).toFixed(1)),
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
