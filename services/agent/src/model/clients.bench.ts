// make bench: what the endpoint clients themselves cost a step (decision 0023), against the
// loopback fakes that answer at once: OpenAI-compatible with json_schema and streamed, and
// Anthropic, each step's wall time after a warm-up; and the time to load the two clients (the
// providers' SDKs) in a fresh process.
//   node services/agent/dist/model/clients.bench.js   (or make bench)
//   BENCH_STEPS   steps measured per client (400)
import { execFileSync } from 'node:child_process';
import { goal, printGoals } from '@wap/testkit';
import { startFakeAnthropic, startFakeOpenAi } from '@wap/testsite';
import { AnthropicClient } from './anthropic.js';
import { OpenAiCompatibleClient } from './openai.js';
import { STEP, stepRequest } from './test-support.js';
import type { ModelClient } from './types.js';

const STEPS = Number(process.env.BENCH_STEPS ?? 400);

async function p50(client: ModelClient): Promise<number> {
  for (let i = 0; i < 50; i++) await client.step(stepRequest());
  const samples: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const started = performance.now();
    await client.step(stepRequest());
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return Math.round((samples[samples.length >> 1] ?? 0) * 100) / 100;
}

function loadMs(): number {
  const script = `const s = performance.now(); require(${JSON.stringify(require.resolve('./openai.js'))}); require(${JSON.stringify(require.resolve('./anthropic.js'))}); console.log(performance.now() - s);`;
  const runs = [0, 1, 2].map(() => Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })));
  return Math.round(runs.sort((a, b) => a - b)[1] ?? 0);
}

async function main(): Promise<void> {
  const openai = await startFakeOpenAi({ apiKey: 'k', reply: () => STEP });
  const anthropic = await startFakeAnthropic({ apiKey: 'k', reply: () => STEP });
  try {
    const base = { apiKey: 'k', model: 'm' };
    const steps = {
      openai_json_schema_ms: await p50(
        new OpenAiCompatibleClient({ ...base, name: 'o', baseUrl: openai.url, mode: 'json_schema' }),
      ),
      openai_streamed_ms: await p50(
        new OpenAiCompatibleClient({ ...base, name: 'o', baseUrl: openai.url, mode: 'tools', stream: true }),
      ),
      anthropic_ms: await p50(new AnthropicClient({ ...base, name: 'a', baseUrl: anthropic.url })),
    };
    const load_ms = loadMs();
    console.log('client | step p50 ms');
    for (const [name, ms] of Object.entries(steps)) console.log(`${name.replace(/_ms$/, '')} | ${ms}`);
    console.log(`loading both clients: ${load_ms} ms`);
    const goals = [
      goal(
        'endpoint client, step p50 against a loopback fake (worst client)',
        Math.max(...Object.values(steps)),
        '<=',
        2,
        'ms',
      ),
      goal('loading the endpoint clients', load_ms, '<=', 500, 'ms'),
    ];
    printGoals(goals);
    console.log(JSON.stringify({ bench: 'agent.model-clients', steps, load_ms, goals }));
  } finally {
    await Promise.all([openai.close(), anthropic.close()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
