// make bench: main-content extraction measured the way a user gets it: the
// shared set's 1,032 saved pages served from a loopback server, each scraped
// through the gateway (POST /v1/scrape, formats ["text"]) and scored with the
// set's own rule (libs/extract/src/eval/score.ts). Goal: F1 >= 0.92. Then the
// committed non-article set (libs/extract/bench/structure: listings, product,
// landing, short and minified pages), scraped as text and markdown and scored
// on structure (libs/extract/src/eval/structure-score.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  describeStructure,
  type EvalCase,
  type StructureCase,
  type StructureOutput,
  score,
  scoreStructure,
} from '@wap/extract/eval';
import { ROOT } from '@wap/fleet';
import { startBenchFleet } from '@wap/testkit';

const TARBALL =
  process.env.EXTRACTION_EVAL_TARBALL ??
  path.resolve(ROOT, '..', 'shared', 'bench', 'extraction', 'extraction-eval.tar.gz');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const STRUCTURE_DIR = path.join(ROOT, 'libs', 'extract', 'bench', 'structure');

async function main() {
  if (!existsSync(TARBALL)) throw new Error(`no extraction set at ${TARBALL}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'wap-extraction-'));
  execFileSync('tar', ['xzf', TARBALL, '-C', dir]);
  const cases = JSON.parse(readFileSync(path.join(dir, 'cases.json'), 'utf8')) as Record<string, EvalCase>;
  const structureCases = JSON.parse(readFileSync(path.join(STRUCTURE_DIR, 'cases.json'), 'utf8')) as Record<
    string,
    StructureCase
  >;
  const site = createServer((req, res) => {
    const url = req.url ?? '';
    const file = path.basename(decodeURIComponent(url.replace(/^\/[ps]\//, '')));
    const full = url.startsWith('/s/') ? path.join(STRUCTURE_DIR, 'pages', file) : path.join(dir, 'pages', file);
    if (!existsSync(full)) return void res.writeHead(404).end();
    // As saved: no charset in the header, so the pipeline settles it as a browser would.
    res.writeHead(200, { 'content-type': 'text/html' }).end(readFileSync(full));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  const fleet = await startBenchFleet({ env: { LOG_LEVEL: 'warn', EGRESS_ALLOW: '127.0.0.0/8' } });
  try {
    const { apiKey } = await fleet.workspace('scale');
    const extracted = new Map<string, string>();
    const failures: string[] = [];
    const entries = Object.entries(cases);
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < entries.length) {
          const [id, testCase] = entries[next++] as [string, EvalCase];
          const t0 = performance.now();
          const res = await fetch(`${fleet.gatewayUrl}/v1/scrape`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ url: `${base}/p/${encodeURIComponent(testCase.file)}`, formats: ['text'] }),
          });
          latencies.push(performance.now() - t0);
          const body = (await res.json()) as { data?: { text?: string }; code?: string };
          if (res.status === 200) extracted.set(id, body.data?.text ?? '');
          else failures.push(`${testCase.file}: ${res.status} ${body.code}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const result = score(cases, extracted);
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]?.toFixed(0);
    console.log(
      `\nExtraction through POST /v1/scrape over ${entries.length} cases (${CONCURRENCY} at a time, ${seconds.toFixed(1)} s)`,
    );
    console.log(
      `precision ${result.precision.toFixed(4)}  recall ${result.recall.toFixed(4)}  F1 ${result.f1.toFixed(4)}  (goal F1 >= 0.92; trafilatura 0.924)`,
    );
    console.log(`scrape latency p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms; failed scrapes: ${failures.length}`);
    for (const f of failures.slice(0, 10)) console.log(`  ${f}`);
    const scrape = async (file: string) => {
      const res = await fetch(`${fleet.gatewayUrl}/v1/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${base}/s/${encodeURIComponent(file)}`, formats: ['text', 'markdown'] }),
      });
      const body = (await res.json()) as { data?: { text?: string; markdown?: string } };
      return { text: body.data?.text ?? '', markdown: body.data?.markdown ?? '' };
    };
    const outputs = new Map<string, StructureOutput>();
    for (const [id, testCase] of Object.entries(structureCases)) outputs.set(id, await scrape(testCase.file));
    const structure = scoreStructure(structureCases, outputs);
    console.log(`non-article set (${structure.cases.length} pages): ${describeStructure(structure)}`);
    console.log(
      JSON.stringify({
        bench: 'extraction-f1-via-scrape',
        cases: entries.length,
        precision: result.precision,
        recall: result.recall,
        f1: result.f1,
        failed: failures.length,
        seconds,
        structure: {
          cases: structure.cases.length,
          f1: structure.f1,
          fused: structure.fused,
          pairs: structure.pairs,
          headings: structure.headings / structure.headingsExpected,
          items: structure.items / structure.itemsExpected,
          chromeLeaked: structure.chrome,
        },
      }),
    );
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
    site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
