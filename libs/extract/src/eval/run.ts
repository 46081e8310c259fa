/*
 * Scores the extractor in-process over the shared extraction set (make bench), then over the
 * non-article set committed in libs/extract/bench/structure (token F1, fused words, headings,
 * list items, leaked chrome: see structure-score.ts).
 *   node libs/extract/dist/eval/run.js [--format text|markdown] [--extractor wap|readability]
 *     [--failures [--limit N]] [--only SUBSTRING] [--dir DIR] [--save FILE] [--budget MS]
 *     [--set all|articles|structure]
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
import { describeStructure, type StructureCase, type StructureOutput, scoreStructure } from './structure-score.js';

const LIB_ROOT = resolve(__dirname, '..', '..');
const DEFAULT_DIR = join(LIB_ROOT, '.eval');
const STRUCTURE_DIR = join(LIB_ROOT, 'bench', 'structure');
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
      set: { type: 'string', default: 'all' },
    },
  });
  budget = values.budget === undefined ? undefined : Number(values.budget);
  const run = EXTRACTORS[values.extractor!];
  if (!run) throw new Error(`unknown extractor ${values.extractor}`);
  if (values.set !== 'structure') runArticles(run, values);
  if (values.set !== 'articles') runStructure(run, values.only, values.failures);
}

interface Flags {
  dir?: string;
  format?: string;
  extractor?: string;
  failures?: boolean;
  limit?: string;
  only?: string;
  save?: string;
}

/** The shared article set, scored with its own snippet rule. */
function runArticles(run: Extractor, values: Flags): void {
  const dir = values.dir!;
  ensureSet(dir);
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

/** The non-article set: small pages whose structure and chrome matter more than snippets. */
function runStructure(run: Extractor, only: string | undefined, failures: boolean | undefined): void {
  const all = JSON.parse(readFileSync(join(STRUCTURE_DIR, 'cases.json'), 'utf8')) as Record<string, StructureCase>;
  const cases = Object.fromEntries(Object.entries(all).filter(([id]) => !only || id.includes(only)));
  const outputs = new Map<string, StructureOutput>();
  for (const [id, testCase] of Object.entries(cases)) {
    const html = readFileSync(join(STRUCTURE_DIR, 'pages', testCase.file), 'utf8');
    outputs.set(id, run(html, `https://example.org/${id}`));
  }
  const result = scoreStructure(cases, outputs);
  if (failures) {
    for (const c of result.cases) {
      const problems = [
        ...c.fusedPairs.map((pair) => `fused:   ${pair}`),
        ...c.missingHeadings.map((heading) => `heading: ${heading}`),
        ...c.missingItems.map((item) => `item:    ${item}`),
        ...c.leaked.map((snippet) => `leaked:  ${snippet}`),
      ];
      const tokens = `tokens ${c.tokensMatched}/${c.tokensExpected} of ${c.tokensExtracted}`;
      if (problems.length > 0 || c.tokensMatched < c.tokensExpected || c.tokensExtracted > c.tokensMatched)
        console.log(`\n${c.id} ${tokens}\n${problems.map((p) => `  ${p}`).join('\n')}`);
    }
  }
  console.log(`structure: cases ${result.cases.length} ${describeStructure(result)}`);
}

main();
