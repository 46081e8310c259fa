import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { type CompiledRule, compileRule, compileRules } from './compile.js';
import { type Gate, gateSchema } from './gate.js';

interface Row {
  sentence: string;
  class: 'ENFORCED' | 'GUIDANCE';
  gate?: Gate;
  /** GUIDANCE: words the reason must hold. */
  reason?: string;
}
// Read from the source tree: the table is data kept beside this test, not compiled.
const rows = JSON.parse(
  readFileSync(path.join(__dirname, '../../../src/domain/rules/rules-table.json'), 'utf8'),
) as Row[];

test('every sentence of the rules table compiles to its class and gate', () => {
  for (const row of rows) {
    const rule = compileRule(row.sentence);
    assert.equal(rule.text, row.sentence);
    assert.equal(rule.class, row.class, `${row.sentence}: ${rule.reason ?? JSON.stringify(rule.gate)}`);
    assert.deepEqual(rule.gate, row.gate, row.sentence);
    if (row.class === 'GUIDANCE') {
      assert.ok(rule.reason?.includes(row.reason ?? '?'), `${row.sentence}: reason ${JSON.stringify(rule.reason)}`);
    } else assert.equal(rule.reason, undefined, row.sentence);
  }
});

test('the table covers every gate kind with paraphrases, and guidance of every sort', () => {
  const kinds = gateSchema.options.map((o) => o.shape.kind.value);
  for (const kind of kinds) {
    const n = rows.filter((r) => r.gate?.kind === kind).length;
    assert.ok(n >= 3, `${kind}: ${n} sentences`);
  }
  assert.ok(rows.length >= 60);
  assert.ok(rows.filter((r) => r.class === 'GUIDANCE').length >= 15);
  for (const row of rows) if (row.gate) assert.ok(gateSchema.safeParse(row.gate).success, row.sentence);
});

test('a sentence compiles the same way every time, in any list and any order', () => {
  const sentences = rows.map((r) => r.sentence);
  const first = compileRules(sentences);
  assert.deepEqual(compileRules(sentences), first);
  const bySentence = new Map(first.map((r) => [r.text, r]));
  const reordered = [...sentences.slice(37), ...sentences.slice(0, 37)].reverse();
  for (const rule of compileRules(reordered)) assert.deepEqual(rule, bySentence.get(rule.text));
  assert.deepEqual(compileRules([sentences[5]!]), [first[5]]);
});

test('wordings of one rule give one gate: case, scheme, www, list order and punctuation do not count', () => {
  const gates = [
    'Only visit example.org and example.com',
    'only visit https://www.EXAMPLE.com/a?b=c, example.org.',
    'You must only browse example.org or example.com!',
  ].map((s) => compileRule(s).gate);
  assert.deepEqual(gates[0], { kind: 'domain_allow', domains: ['example.com', 'example.org'] });
  assert.deepEqual(gates[1], gates[0]);
  assert.deepEqual(gates[2], gates[0]);
});

test('hostile input never throws and is guidance with a reason', () => {
  const long = `Never visit example.com ${'and example.org '.repeat(50_000)}`;
  assert.match(compileRule(long).reason ?? '', /longer than 500 characters/);
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pieces = [
    'never ',
    'only ',
    'visit ',
    '$',
    '€',
    '5',
    ',',
    '.',
    '*.',
    'example.com',
    ' and ',
    '\u0000',
    '\ud800',
  ];
  for (let i = 0; i < 2_000; i++) {
    let s = '';
    for (let j = Math.floor(random() * 40); j > 0; j--)
      s +=
        random() < 0.5
          ? pieces[Math.floor(random() * pieces.length)]
          : String.fromCodePoint(Math.floor(random() * 0x2ffff));
    const rule = compileRule(s);
    assert.ok(rule.class === 'ENFORCED' ? gateSchema.safeParse(rule.gate).success : (rule.reason?.length ?? 0) > 0, s);
  }
  for (const odd of ['', '   ', '\ud800 only visit example.com', 42 as unknown as string, null as unknown as string]) {
    const rule: CompiledRule = compileRule(odd);
    assert.equal(rule.class, 'GUIDANCE');
    assert.ok(rule.reason);
  }
});

test('a host on a look-alike suffix or inside a longer name is not the domain a rule names', () => {
  assert.deepEqual(compileRule('Never visit example.com.evil.net').gate, {
    kind: 'domain_deny',
    domains: ['example.com.evil.net'],
  });
  assert.equal(compileRule('Never visit node.js').class, 'GUIDANCE', 'js is no public suffix');
  assert.equal(compileRule('Never visit com').class, 'GUIDANCE');
});
