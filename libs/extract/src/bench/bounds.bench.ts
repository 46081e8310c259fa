// How long extraction takes on the hostile pages its bounds exist for (the
// unit tests check that each bound takes effect; this measures the cost).
import { extract } from '../index.js';

const CASES: [string, () => string][] = [
  [
    '70,000 paragraphs',
    () =>
      `<html><body>${Array.from({ length: 70_000 }, (_, i) => `<p>Paragraph ${i} of a very long page.</p>`).join('')}</body></html>`,
  ],
  [
    '50,000 nested divs',
    () => `<html><body>${'<div>'.repeat(50_000)}deep &amp; text${'</div>'.repeat(50_000)}</body></html>`,
  ],
  ['5.5 MB of one paragraph', () => `<p>${'word '.repeat(1_100_000)}</p>`],
];
const RUNS = 3;

const rows = CASES.map(([name, page]) => {
  const html = page();
  const times: number[] = [];
  let warnings: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    warnings = extract(html, 'https://example.org/').warnings;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { page: name, 'median ms': Number((times[1] ?? Number.NaN).toFixed(1)), 'bound taken': warnings.join('; ') };
});
console.log(`\nExtraction of hostile pages, median of ${RUNS} runs\n`);
console.table(rows);
console.log(
  JSON.stringify({
    bench: 'extract-bounds',
    runs: RUNS,
    medianMs: Object.fromEntries(rows.map((r) => [r.page, r['median ms']])),
  }),
);
