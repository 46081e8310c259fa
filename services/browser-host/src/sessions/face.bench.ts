// What the browser face costs a page load (docs/connect.md, "Stealth"): the
// same renders of a loopback page with a dedicated worker and a frame (three
// targets the face keeper holds and dresses before they run), by two pool
// browsers launched with the same flags, one with the face keeper and one
// without, taken in turns so a busy machine slows each alike.
//   node services/browser-host/dist/sessions/face.bench.js   (or make bench)
// Prints a table, then one JSON line (the last line) for tools.
import { createServer } from 'node:http';
import { create } from '@bufbuild/protobuf';
import { AllowList } from '@wap/netguard';
import { browser as proto } from '@wap/proto';
import { quietLog } from '@wap/testkit';
import { renderFace } from '../domain/browser-face.js';
import { EgressProxy } from '../egress/proxy.js';
import { BrowserPool } from '../pool/pool.js';
import { render } from './render.js';
import { chromiumVersion } from './session-browser.js';

const ROUNDS = 40;
const WARMUP = 3;
const PAGE = `<!doctype html><title>face</title>${'<p>Words of a page, a paragraph at a time.</p>'.repeat(30)}
<iframe src="/frame"></iframe><script>new Worker(URL.createObjectURL(new Blob(['postMessage(1)'])));</script>`;

async function main() {
  const site = createServer((req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/frame' ? '<p>frame' : PAGE),
  );
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  const egress = new EgressProxy(AllowList.parse('127.0.0.0/8'));
  await egress.start();
  const face = renderFace(chromiumVersion('/usr/bin/chromium'));
  const pool = (keeper: boolean) =>
    new BrowserPool({
      executablePath: '/usr/bin/chromium',
      face: keeper ? face : { ...face, userAgent: undefined },
      size: 1,
      pagesPerBrowser: 1,
      recycleAfterPages: 1_000_000,
      log: quietLog(),
    });
  const arms = { face: pool(true), flags: pool(false) };
  const times: Record<keyof typeof arms, number[]> = { face: [], flags: [] };
  try {
    for (let i = 0; i < ROUNDS + WARMUP; i++) {
      const order = (i % 2 === 0 ? ['face', 'flags'] : ['flags', 'face']) as (keyof typeof arms)[];
      for (const arm of order) {
        const t0 = performance.now();
        await arms[arm].with((browser, { faces }) =>
          render(
            browser,
            egress,
            create(proto.RenderRequestSchema, { url, timeoutMs: 30_000 }),
            AbortSignal.timeout(60_000),
            {
              faces,
            },
          ),
        );
        if (i >= WARMUP) times[arm].push(performance.now() - t0);
      }
    }
  } finally {
    await Promise.all([arms.face.close(), arms.flags.close(), egress.stop()]);
    site.close();
  }
  const stat = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    return { mean: values.reduce((a, b) => a + b, 0) / values.length, p50: at(0.5), p90: at(0.9) };
  };
  const face$ = stat(times.face);
  const flags$ = stat(times.flags);
  const vs = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
  const row = (name: string, s: ReturnType<typeof stat>) =>
    `| ${name.padEnd(28)} | ${[s.mean, s.p50, s.p90].map((x) => x.toFixed(0)).join(' / ')} | ${vs(s.mean, flags$.mean)} |`;
  console.log(`Renders of a page with a worker and a frame, ${ROUNDS} each way, in turns; ms mean / p50 / p90.`);
  console.log('| arm                          | render          | mean vs flags |');
  console.log(row('flags alone (no keeper)', flags$));
  console.log(row('full face (flags and keeper)', face$));
  console.log(
    JSON.stringify({
      bench: 'face',
      rounds: ROUNDS,
      faceMeanMs: +face$.mean.toFixed(1),
      flagsMeanMs: +flags$.mean.toFixed(1),
      faceVsFlags: +((face$.mean - flags$.mean) / flags$.mean).toFixed(4),
    }),
  );
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
