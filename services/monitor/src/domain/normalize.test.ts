// What counts as a change: noise (clocks, dates, tokens, tracking parameters, ad slots) never does; words do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffLines, wordDiff } from './diff.js';
import { normalize } from './normalize.js';

const page = (noise: { clock: string; token: string; ad: string; utm: string }, body = 'Prices rise in winter.') =>
  `# Daily report
Updated ${noise.clock}
${body}
Read more at https://example.com/story?id=7&utm_source=${noise.utm}&fbclid=${noise.utm}
<input name="csrf_token" value="${noise.token}">
Advertisement ${noise.ad}
Session ${noise.token}`;

test('clocks, dates, tokens, tracking parameters and ad slots are noise', () => {
  const a = normalize(
    page({
      clock: '2026-11-25T18:07:29Z (18:07 UTC, 5 minutes ago)',
      token: 'a9F3kLm0Qz7XbN2vR8sT1uW4yC6dE5gH',
      ad: 'Buy shoes',
      utm: 'news',
    }),
  );
  const b = normalize(
    page({
      clock: 'Nov 26, 2026 at 9:41 am, just now',
      token: 'Zx81Qw23Er45Ty67Ui89Op01As23Df45',
      ad: 'Cheap flights',
      utm: 'mail',
    }),
  );
  assert.equal(a, b);
  assert.ok(a.includes('Prices rise in winter.'));
  assert.ok(a.includes('https://example.com/story?id=7'), 'the URL stays, its tracking parameters go');
  assert.ok(!a.includes('Buy shoes'), 'the ad slot goes');
});

test('a changed sentence is a change, and its diff says which words', () => {
  const noise = { clock: '10:00', token: 'deadbeefdeadbeefdeadbeef', ad: 'x', utm: 'a' };
  const before = normalize(page(noise, 'Prices rise in winter.'));
  const after = normalize(page(noise, 'Prices fall in winter.'));
  assert.notEqual(before, after);
  assert.deepEqual(wordDiff(before, after), { added: ['fall'], removed: ['rise'] });
  assert.equal(normalize('  a \n\n b\t c  '), 'a\nb c');
});

test('a diff is cut to a limit and says how much was left out', () => {
  const diff = { added: Array.from({ length: 100 }, (_, i) => `added line number ${i}`), removed: ['old'] };
  const text = diffLines(diff, 200);
  assert.ok(text.length <= 200, String(text.length));
  assert.match(text, /^- old\n\+ added line number 0/);
  assert.match(text, /… \d+ more$/);
  assert.equal(diffLines({ added: ['a'], removed: [] }, 100), '+ a');
});
