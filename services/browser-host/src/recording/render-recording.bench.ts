// What recording a render costs (docs/sessions.md, "Scrapes"): the same loop
// of renders of a loopback article (a stylesheet, a script, an image, 30
// paragraphs) three ways, taken in turns so a busy machine slows each alike:
// as the Render RPC ran until now (not recorded, the context closed before the
// answer), not recorded but closed after the answer, and recorded (the recorder
// extension and the network log of a recording pool browser, the render's
// session flushed and its context closed after the answer). Timed as the
// Render RPC runs them: from taking the browser to the answer, and to the
// browser's place being free again.
// Chunks go to an in-memory sink and no row is written: both happen after the
// answer, off the render's path.
//   node services/browser-host/dist/recording/render-recording.bench.js   (or make bench)
// Prints a table, then one JSON line (the last line) for tools.
import { createServer } from 'node:http';
import { create } from '@bufbuild/protobuf';
import { AllowList } from '@wap/netguard';
import { browser as proto } from '@wap/proto';
import { quietLog } from '@wap/testkit';
import { renderFace } from '../domain/browser-face.js';
import { EgressProxy } from '../egress/proxy.js';
import { BrowserPool } from '../pool/pool.js';
import { SessionManager } from '../sessions/manager.js';
import { render } from '../sessions/render.js';
import type { RenderSession } from '../sessions/render-session.js';
import { chromiumVersion } from '../sessions/session-browser.js';

const ROUNDS = Number(process.env.BENCH_RENDERS ?? 30);
const WARMUP = 3;
const ARMS = ['before', 'lingering', 'recorded'] as const;

const PARAGRAPH =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(
    3,
  );
const article = (path: string) =>
  `<!doctype html><html><head><title>Article ${path}</title><link rel="stylesheet" href="/style.css"><script src="/app.js"></script></head><body><nav><a href="/">Home</a></nav><article><h1>Article ${path}</h1>${Array.from({ length: 30 }, (_, i) => `<p>${PARAGRAPH}<a href="/a/${i}">more</a></p>`).join('')}<img src="/pic.svg"></article></body></html>`;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)] ?? 0;

async function main() {
  const site = createServer((req, res) => {
    const types: Record<string, [string, string]> = {
      '/style.css': ['text/css', 'body{font-family:sans-serif;max-width:40em} p{line-height:1.5}'],
      '/app.js': [
        'text/javascript',
        'document.addEventListener("DOMContentLoaded",()=>{document.body.dataset.ready="1"})',
      ],
      '/pic.svg': [
        'image/svg+xml',
        '<svg xmlns="http://www.w3.org/2000/svg" width="90" height="90"><circle cx="45" cy="45" r="40"/></svg>',
      ],
    };
    const [type, body] = types[req.url ?? ''] ?? ['text/html', article(req.url ?? '/')];
    res.writeHead(200, { 'content-type': type }).end(body);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  const log = quietLog();
  const allow = AllowList.parse('127.0.0.0/8');
  const egress = new EgressProxy(allow);
  await egress.start();
  const pool = (record: boolean) =>
    new BrowserPool({
      executablePath: '/usr/bin/chromium',
      face: renderFace(chromiumVersion('/usr/bin/chromium')),
      size: 1,
      pagesPerBrowser: 1,
      recycleAfterPages: 10_000,
      log,
      ...(record && { recording: { allow, addressOf: (host: string) => egress.addressOf(host) } }),
    });
  const plain = pool(false);
  const recorded = pool(true);
  let chunks = 0;
  let bytes = 0;
  const sessions = new SessionManager({
    executablePath: '/usr/bin/chromium',
    allow,
    capacity: 1,
    warm: 0,
    ledger: undefined,
    log,
    recordings: {
      publish: async (_meta, body) => {
        chunks++;
        bytes += body.length;
      },
    },
  });
  type Arm = (typeof ARMS)[number];
  const results: { wait: string; answer: Record<Arm, number[]>; held: Record<Arm, number[]> }[] = [];
  try {
    for (const [wait, waitUntil] of [
      ['load', proto.WaitUntil.LOAD],
      ['network idle', proto.WaitUntil.NETWORK_IDLE],
    ] as const) {
      const answer = { before: [] as number[], lingering: [] as number[], recorded: [] as number[] };
      /** From taking the browser until its place is free again (the context closed). */
      const held = { before: [] as number[], lingering: [] as number[], recorded: [] as number[] };
      for (let i = 0; i < ROUNDS + WARMUP; i++) {
        const req = create(proto.RenderRequestSchema, {
          url: `${base}/articles/${i}`,
          waitUntil,
          timeoutMs: 30_000,
          workspaceId: 'bench',
          requestId: `bench-${i}`,
        });
        // The order turns each round: no arm always finds the machine fresher.
        const order = ARMS.map((_, k) => ARMS[(i + k) % ARMS.length] as Arm);
        for (const arm of order) {
          const t0 = performance.now();
          let session: RenderSession | undefined;
          let closed: Promise<unknown> = Promise.resolve();
          await (arm === 'recorded' ? recorded : plain).with(async (browser, { recorder }) => {
            session = arm === 'recorded' ? sessions.recordRender('bench', req.requestId, recorder) : undefined;
            const linger = (done: Promise<unknown>) => {
              closed = done;
            };
            await render(browser, egress, req, new AbortController().signal, {
              session,
              ...(arm !== 'before' && { linger }),
            });
          });
          if (i >= WARMUP) answer[arm].push(performance.now() - t0);
          // The context closes and the chunks go out after the answer: timed apart, done before the next render.
          await closed;
          if (i >= WARMUP) held[arm].push(performance.now() - t0);
          await session?.ended;
        }
      }
      results.push({ wait, answer, held });
    }
  } finally {
    await Promise.all([plain.close(), recorded.close()]);
    await egress.stop();
    site.close();
  }
  const row = (xs: number[]) =>
    `${mean(xs).toFixed(0)} / ${quantile(xs, 0.5).toFixed(0)} / ${quantile(xs, 0.9).toFixed(0)}`;
  const cost = (a: number[], b: number[]) => {
    const pct = (mean(b) / mean(a) - 1) * 100;
    return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
  };
  console.log(`Renders of a loopback article, ${ROUNDS} each way, in turns; ms mean / median / p90.`);
  console.log('before: not recorded, its context closed before the answer (the Render RPC until now);');
  console.log(
    'lingering: not recorded, closed after the answer; recorded: recorded, closed (and flushed) after the answer.',
  );
  console.log('answer: from taking the browser to the answer; held: until its place is free again.');
  console.log('| wait until   | arm       | answer          | vs before | held            | vs before |');
  for (const r of results)
    for (const arm of ARMS)
      console.log(
        `| ${r.wait.padEnd(12)} | ${arm.padEnd(9)} | ${row(r.answer[arm]).padEnd(15)} | ${cost(r.answer.before, r.answer[arm]).padEnd(9)} | ${row(r.held[arm]).padEnd(15)} | ${cost(r.held.before, r.held[arm]).padEnd(9)} |`,
      );
  console.log(
    `Stored: ${chunks} chunks, ${(bytes / 1024).toFixed(0)} KiB for ${2 * (ROUNDS + WARMUP)} recorded renders.`,
  );
  console.log(
    JSON.stringify({
      bench: 'render-recording',
      rounds: ROUNDS,
      ...Object.fromEntries(
        results.map((r) => [
          r.wait.replace(' ', '_'),
          Object.fromEntries(
            ARMS.map((arm) => [
              arm,
              { answerMeanMs: +mean(r.answer[arm]).toFixed(1), heldMeanMs: +mean(r.held[arm]).toFixed(1) },
            ]),
          ),
        ]),
      ),
      chunkBytes: bytes,
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
