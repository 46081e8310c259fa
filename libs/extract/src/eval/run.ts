/*
 * Scores the extractor in-process over the shared extraction set (make bench).
 *   node libs/extract/dist/eval/run.js [--format text|markdown] [--extractor wap|readability]
 *     [--failures [--limit N]] [--only SUBSTRING] [--dir DIR] [--save FILE] [--budget MS]
 * The set is unpacked from ../shared/bench/extraction on first use into libs/extract/.eval/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Readability } from '@mozilla/readability';
import { parseDocument } from '../dom.js';
import { extractWithSource } from '../extract.js';
import { decodeHtml } from './decode.js';
import { type EvalCase, score } from './score.js';

const LIB_ROOT = resolve(__dirname, '..', '..');
const DEFAULT_DIR = join(LIB_ROOT, '.eval');
const DEFAULT_TARBALL = resolve(LIB_ROOT, '..', '..', '..', 'shared', 'bench', 'extraction', 'extraction-eval.tar.gz');

let budget: number | undefined;

type Extractor = (html: string, url: string) => { text: string; markdown: string; notes?: string[] };

const EXTRACTORS: Record<string, Extractor> = {
  wap: (html, url) => {
    const { result, source } = extractWithSource(html, url, { formats: ['text', 'markdown'], timeBudgetMs: budget });
    return { text: result.text, markdown: result.markdown, notes: [source, ...result.warnings] };
  },
  readability: (html) => {
    const text = new Readability(parseDocument(html)).parse()?.textContent ?? '';
    return { text, markdown: text };
  },
};

function ensureSet(dir: string): void {
  if (existsSync(join(dir, 'cases.json'))) return;
  const tarball = process.env.EXTRACTION_EVAL_TARBALL ?? DEFAULT_TARBALL;
  if (!existsSync(tarball)) throw new Error(`no cases.json in ${dir} and no tarball at ${tarball}`);
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: DEFAULT_DIR },
      format: { type: 'string', default: 'text' },
      extractor: { type: 'string', default: 'wap' },
      failures: { type: 'boolean', default: false },
      limit: { type: 'string' },
      only: { type: 'string' },
      save: { type: 'string' },
      budget: { type: 'string' },
    },
  });
  budget = values.budget === undefined ? undefined : Number(values.budget);
  const dir = values.dir!;
  ensureSet(dir);
  const run = EXTRACTORS[values.extractor!];
  if (!run) throw new Error(`unknown extractor ${values.extractor}`);
  const allCases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as Record<string, EvalCase>;
  const cases = new Map(Object.entries(allCases).filter(([id]) => !values.only || id.includes(values.only)));
  const texts = new Map<string, string>();
  const markdowns = new Map<string, string>();
  const notes = new Map<string, string[]>();
  const durations: number[] = [];
  for (const [id, testCase] of cases) {
    const html = decodeHtml(readFileSync(join(dir, 'pages', testCase.file)));
    const started = performance.now();
    const { text, markdown, notes: caseNotes } = run(html, id);
    if (caseNotes) notes.set(id, caseNotes);
    durations.push(performance.now() - started);
    texts.set(id, text);
    markdowns.set(id, markdown);
  }
  const result = score(cases, values.format === 'markdown' ? markdowns : texts);
  if (values.failures) {
    const limit = Number(values.limit) || Number.POSITIVE_INFINITY;
    const failing = result.cases.filter((c) => c.fn + c.fp > 0).slice(0, limit);
    for (const c of failing) {
      console.log(`\n${c.id} (${allCases[c.id]?.file}) ${notes.get(c.id)?.join('; ') ?? ''}`);
      for (const snippet of c.missing) console.log(`  missing: ${snippet}`);
      for (const snippet of c.leaked) console.log(`  leaked:  ${snippet}`);
    }
  }
  if (values.save)
    writeFileSync(values.save, JSON.stringify(Object.fromEntries(values.format === 'markdown' ? markdowns : texts)));
  durations.sort((a, b) => a - b);
  const at = (q: number): string =>
    (durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? 0).toFixed(1);
  const total = durations.reduce((sum, d) => sum + d, 0) / 1000;
  console.log(
    `${values.extractor} ${values.format}: cases ${cases.size} P ${result.precision.toFixed(4)} R ${result.recall.toFixed(4)} ` +
      `F1 ${result.f1.toFixed(4)} (TP ${result.tp} FN ${result.fn} FP ${result.fp}) ` +
      `time ${total.toFixed(1)} s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`,
  );
}

main();
