import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CompiledRule } from './compile.js';
import { type GateProposer, type ProposalCache, proposalKey, proposeGate } from './propose.js';

/** A cache in a Map, as a store would keep it. */
function memoryCache(): ProposalCache & { rows: Map<string, CompiledRule> } {
  const rows = new Map<string, CompiledRule>();
  return {
    rows,
    get: async (key) => rows.get(key),
    put: async (key, rule) => {
      rows.set(key, structuredClone(rule));
    },
  };
}

/** A proposer that answers from a script and counts what it was asked. */
function scripted(answer: (sentence: string) => unknown): GateProposer & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(
    async (sentence: string) => {
      asked.push(sentence);
      return answer(sentence);
    },
    { asked },
  );
}

const KEEP_OUT = 'Keep out of example.com';
const keepOut = { gate: { kind: 'domain_deny', domains: ['example.com'] } };

test('a sentence no form matches takes a valid proposed gate, and keeps it', async () => {
  const cache = memoryCache();
  const proposer = scripted(() => keepOut);
  const first = await proposeGate(KEEP_OUT, proposer, cache);
  assert.deepEqual(first, { text: KEEP_OUT, class: 'ENFORCED', gate: keepOut.gate });
  const again = await proposeGate('  keep OUT of example.com. ', proposer, cache);
  assert.deepEqual(again.gate, keepOut.gate);
  assert.equal(again.text, '  keep OUT of example.com. ', 'the text is as written this time');
  assert.deepEqual(proposer.asked, [KEEP_OUT], 'the same sentence is asked once');
  assert.equal(proposalKey(KEEP_OUT), proposalKey('keep out of example.com.'));
  assert.notEqual(proposalKey(KEEP_OUT), proposalKey('Keep out of example.org'));
});

test('a proposal that does not validate strictly stays guidance, decided once', async () => {
  for (const answer of [
    { gate: { kind: 'domain_deny', domains: ['example.com'], note: 'extra' } },
    { gate: { kind: 'teleport', domains: ['example.com'] } },
    { gate: { kind: 'domain_deny', domains: ['com'] } },
    { gate: { kind: 'spend_cap', amount: -5, currency: 'USD' } },
    { gate: { kind: 'domain_deny', domains: ['example.com'] }, also: 1 },
    'domain_deny example.com',
    undefined,
  ]) {
    const cache = memoryCache();
    const proposer = scripted(() => answer);
    const rule = await proposeGate(KEEP_OUT, proposer, cache);
    assert.deepEqual(rule, { text: KEEP_OUT, class: 'GUIDANCE', reason: 'the proposed gate did not validate' });
    await proposeGate(KEEP_OUT, proposer, cache);
    assert.equal(proposer.asked.length, 1, JSON.stringify(answer));
  }
});

test('a proposed gate that names what the sentence does not is refused', async () => {
  const cases: [string, unknown, string][] = [
    [KEEP_OUT, { gate: { kind: 'domain_allow', domains: ['evil.com'] } }, 'evil.com'],
    ['Be polite to shop staff', { gate: { kind: 'forbid', actions: ['download'] } }, 'download'],
    ['Keep spending sensible, 20 dollars tops', { gate: { kind: 'spend_cap', amount: 200, currency: 'USD' } }, '200'],
  ];
  for (const [sentence, answer, named] of cases) {
    const rule = await proposeGate(
      sentence,
      scripted(() => answer),
      memoryCache(),
    );
    assert.equal(rule.class, 'GUIDANCE');
    assert.equal(rule.reason, `the proposed gate names ${named}, which the sentence does not`);
  }
  const grounded = await proposeGate(
    'Keep spending sensible, 20 dollars tops',
    scripted(() => ({ gate: { kind: 'spend_cap', amount: 20, currency: 'USD' } })),
    memoryCache(),
  );
  assert.equal(grounded.class, 'ENFORCED');
});

test('sentences the compiler settled never reach the model', async () => {
  const proposer = scripted(() => keepOut);
  const cache = memoryCache();
  for (const sentence of [
    'Never visit example.com',
    'Never visit example.com unless asked',
    'Avoid example.com',
    'Only visit example.com and never visit example.com',
    'x'.repeat(600),
  ])
    await proposeGate(sentence, proposer, cache);
  assert.deepEqual(proposer.asked, []);
  assert.equal(cache.rows.size, 0);
});

test('a proposer that fails leaves the sentence guidance and asks again next time', async () => {
  const cache = memoryCache();
  let down = true;
  const proposer = scripted(() => {
    if (down) throw new Error('503');
    return keepOut;
  });
  const failed = await proposeGate(KEEP_OUT, proposer, cache);
  assert.equal(failed.class, 'GUIDANCE');
  assert.match(failed.reason ?? '', /a model could not be asked/);
  assert.equal(cache.rows.size, 0);
  down = false;
  assert.equal((await proposeGate(KEEP_OUT, proposer, cache)).class, 'ENFORCED');
  assert.equal(proposer.asked.length, 2);
});

test('a cached decision that no longer validates is asked again', async () => {
  const cache = memoryCache();
  await cache.put(proposalKey(KEEP_OUT), { text: KEEP_OUT, class: 'ENFORCED', gate: { kind: 'old' } as never });
  const proposer = scripted(() => keepOut);
  assert.deepEqual((await proposeGate(KEEP_OUT, proposer, cache)).gate, keepOut.gate);
  assert.equal(proposer.asked.length, 1);
});
