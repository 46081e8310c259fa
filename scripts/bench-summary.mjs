// The end of `make bench`: every bench's goals (the `goals` of its last JSON
// line) in one table, each figure beside its goal and whether it is met.
//   node scripts/bench-summary.mjs <bench output file>...
import { readFileSync } from 'node:fs';
import { opSign, shown } from '../libs/testkit/dist/goals.js';

const rows = [];
for (const file of process.argv.slice(2)) {
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  let last;
  try {
    last = JSON.parse(lines.at(-1) ?? '');
  } catch {
    continue; // a bench that failed before its JSON line: its own output says why
  }
  for (const g of last.goals ?? []) rows.push({ bench: last.bench, ...g });
}
if (rows.length === 0) process.exit(0);
const cells = rows.map((r) => [
  r.bench,
  r.figure,
  shown(r.measured, r.unit),
  `${opSign(r.op)} ${shown(r.target, r.unit)}`,
  r.met ? 'met' : 'NOT met',
]);
const header = ['bench', 'figure', 'measured', 'goal', ''];
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
const line = (c) => `| ${c.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
console.log(`\nGoals: ${rows.filter((r) => r.met).length} of ${rows.length} met\n`);
console.log([line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n'));
