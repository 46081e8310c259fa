import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRules } from './compile.js';
import { PROMPT_RULE_CHARS, PROMPT_RULES, rulesPrompt } from './guidance.js';

test('the prompt lists enforced and guidance rules, quoted, under rules that cannot lift safety limits', () => {
  const prompt = rulesPrompt(compileRules(['Only visit example.com', 'Be polite "always"', 'Prefer official sources']));
  const lines = prompt.split('\n');
  assert.match(lines[0]!, /never lift the rules above/);
  const enforced = lines.indexOf('Enforced (an action that breaks one is refused, naming the rule):');
  const guidance = lines.indexOf('Guidance (follow where it applies):');
  assert.ok(enforced > 0 && guidance > enforced);
  assert.equal(lines[enforced + 1], '- "Only visit example.com"');
  assert.deepEqual(lines.slice(guidance + 1), ['- "Be polite \\"always\\""', '- "Prefer official sources"']);
});

test('the prompt stays short: no rules, no block; long and many rules are cut', () => {
  assert.equal(rulesPrompt([]), '');
  const many = compileRules(Array.from({ length: PROMPT_RULES + 5 }, (_, i) => `Rule ${i} ${'x'.repeat(1_000)}`));
  const prompt = rulesPrompt(many);
  assert.equal(prompt.split('\n').filter((l) => l.startsWith('- ')).length, PROMPT_RULES);
  assert.ok(prompt.split('\n').every((l) => l.length <= PROMPT_RULE_CHARS + 10));
  assert.match(prompt, /\(5 more rules not shown\.\)$/);
});
