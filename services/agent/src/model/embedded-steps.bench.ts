// make bench: the embedded 1.5B answering compact steps (docs/models.md, "Step profiles"), on one
// thread and on two, on a quiet machine and on a busy one (two busy loops, one per core, as a
// laptop running the fleet's browsers and tests is): each step's time, the prompt tokens it
// evaluated (the rest came from the cache) and the tokens it generated. The pages are compact views
// of forms with one more field filled each step, as a run's steps are; the first step of each
// setting fills the cache and is not counted.
//   node services/agent/dist/model/embedded-steps.bench.js   (or make bench)
//   EMBEDDED_BENCH_STEPS   steps measured per setting (6)
//   EMBEDDED_MODEL_PATH    the GGUF file; unset, the cached qwen2.5-coder-1.5b of scripts/fetch-model.sh
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { goal, printGoals } from '@wap/testkit';
import type { PageState } from '../browser/types.js';
import { COMPACT_SYSTEM_PROMPT, compactMessage, compactShape, compactView } from '../domain/compact.js';
import { emptyMemory } from '../domain/memory.js';
import { EmbeddedModelClient, embeddedModelPath } from './embedded.js';

const STEPS = Number(process.env.EMBEDDED_BENCH_STEPS ?? 6);
const MODEL = process.env.EMBEDDED_MODEL_PATH || embeddedModelPath('qwen2.5-coder-1.5b');
const TASK = 'Fill in the order form: name Tora Ito, city Bergen, colour Green, and press Send.';

const FIELDS = ['Full name', 'Email', 'Street', 'City', 'Postcode', 'Phone', 'Company', 'Notes'];
const VALUES = ['Tora Ito', 'tora@example.org', 'Strandkaien 3', 'Bergen', '5013', '+47 555 01 234', 'Ito AS', ''];

/** The form after `filled` of its fields were typed into: the page of a run's step. */
function formPage(filled: number): PageState {
  const outline: PageState['outline'] = [
    { kind: 'text', depth: 0, text: 'Order a lamp. Fields marked * are required.' },
    ...FIELDS.map((name, i) => ({
      kind: 'element' as const,
      index: i + 1,
      depth: 0,
      key: `input|${name}#1`,
      fresh: false,
      info: {
        role: 'textbox' as const,
        name,
        ...(i < filled && VALUES[i] ? { value: VALUES[i] } : {}),
        ...(i < 4 ? { required: true } : {}),
      },
    })),
    {
      kind: 'element',
      index: 9,
      depth: 0,
      key: 'select|Colour#1',
      fresh: false,
      info: { role: 'select', name: 'Colour', value: 'Red', options: ['Red', 'Green', 'Blue', 'Black'] },
    },
    {
      kind: 'element',
      index: 10,
      depth: 0,
      key: 'input|Gift#1',
      fresh: false,
      info: { role: 'checkbox', name: 'Gift wrap', checked: false },
    },
    {
      kind: 'element',
      index: 11,
      depth: 0,
      key: 'button|Send#1',
      fresh: false,
      info: { role: 'button', name: 'Send' },
    },
  ];
  return {
    url: 'http://127.0.0.1/order',
    title: 'Order',
    tabs: [],
    scroll: { above: 0, below: 0 },
    elements: '',
    count: 11,
    outline,
    fingerprint: `f${filled}`,
  };
}

/** One busy loop per core: the busy machine. */
function busyLoops(): ChildProcess[] {
  return [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

const median = (xs: number[]) => {
  const s = xs.toSorted((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : Number.NaN;
};

interface Setting {
  threads: number;
  busy: boolean;
  stepMs: number;
  evaluated: number;
  generated: number;
  answers: string[];
}

async function measure(threads: number, busy: boolean): Promise<Setting> {
  const client = new EmbeddedModelClient({ modelPath: MODEL, threads, contextSize: 4096 });
  const loops = busy ? busyLoops() : [];
  try {
    await client.warm();
    const times: number[] = [];
    const evaluated: number[] = [];
    const generated: number[] = [];
    const answers: string[] = [];
    for (let n = 0; n <= STEPS; n++) {
      const page = formPage(n % FIELDS.length);
      const view = compactView(page, TASK);
      const last =
        n === 0 ? undefined : `typed "${VALUES[(n - 1) % FIELDS.length]}" into [${((n - 1) % FIELDS.length) + 1}]`;
      const text = compactMessage({ task: TASK, files: [], memory: emptyMemory(), page, view, ...(last && { last }) });
      const shape = compactShape(view, { files: false, task: TASK });
      const result = await client.step({
        system: COMPACT_SYSTEM_PROMPT,
        messages: [{ role: 'user', text }],
        schema: shape.schema,
        schemaName: shape.name,
        maxOutputTokens: 64,
      });
      if (n === 0) continue; // the cache filling
      times.push(result.ms);
      evaluated.push(result.evaluatedInputTokens);
      generated.push(result.usage.outputTokens);
      answers.push(JSON.stringify(result.output));
    }
    return {
      threads,
      busy,
      stepMs: median(times),
      evaluated: median(evaluated),
      generated: median(generated),
      answers,
    };
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
    await client.close();
  }
}

async function main() {
  if (!existsSync(MODEL)) {
    const skipped = `the embedded model is not there (${MODEL}): scripts/fetch-model.sh qwen2.5-coder-1.5b`;
    console.log(`\nnothing to measure: ${skipped}`);
    console.log(JSON.stringify({ bench: 'embedded-steps', skipped }));
    return;
  }
  const settings: Setting[] = [];
  for (const busy of [false, true]) for (const threads of [1, 2]) settings.push(await measure(threads, busy));
  console.log('\nthreads | machine | step p50 ms | evaluated tokens p50 | generated tokens p50 | first answers');
  for (const s of settings)
    console.log(
      `${s.threads} | ${s.busy ? 'busy' : 'quiet'} | ${Math.round(s.stepMs)} | ${s.evaluated} | ${s.generated} | ${s.answers.slice(0, 2).join(' ')}`,
    );
  const busyBest = settings.filter((s) => s.busy).toSorted((a, b) => a.stepMs - b.stepMs)[0] as Setting;
  const quietOne = settings.find((s) => !s.busy && s.threads === 1) as Setting;
  console.log(`\nfaster on the busy machine: ${busyBest.threads} thread(s)`);
  const goals = [
    goal('compact step p50, embedded 1.5B, 1 thread, quiet', quietOne.stepMs, '<=', 6_000, 'ms'),
    goal(`compact step p50, embedded 1.5B, ${busyBest.threads} thread(s), busy`, busyBest.stepMs, '<=', 6_000, 'ms'),
    goal('generated tokens per compact step, p50', quietOne.generated, '<=', 20, 'tokens'),
    goal('evaluated prompt tokens per step after the first, p50', quietOne.evaluated, '<=', 250, 'tokens'),
  ];
  printGoals(goals);
  console.log(JSON.stringify({ bench: 'embedded-steps', settings, busyBestThreads: busyBest.threads, goals }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
