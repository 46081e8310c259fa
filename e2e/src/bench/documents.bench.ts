// make bench: documents through the whole fleet (POST /v1/scrape on a loopback site).
// - PDF text fidelity: HTML pages of known text (headings, wrapped paragraphs with
//   hyphenated compounds, lists, links, two columns) printed by Chromium; the markdown's
//   words against the page's, word-level F1 over the multiset of words. Goal >= 0.95.
// - PDF table cells: generated tables (2-6 columns, 3-12 rows, words and numbers) printed
//   by Chromium; a cell counts when the markdown table has it at its row and column. Goal >= 90%.
// - A 20-page text PDF scraped BENCH_ROUNDS times (default 15) one after another: p50. Goal <= 1.5 s.
// - The same PDF uploaded to POST /v1/parse as many times: p50, against the scrape's. Goal <= 1.2x.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPrinter } from '@wap/documents/fixtures';
import { goal, printGoals, startBenchFleet } from '@wap/testkit';
import { table } from './run-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WORDS =
  'archive record parish register county survey estate map court session roll deed charter ledger account letter diary minute report council school hospital railway canal bridge mill farm church chapel market harbour quay warehouse tannery brewery foundry turnpike tollhouse almshouse workhouse infirmary'.split(
    ' ',
  );
let seed = 20261129;
const rnd = () => {
  seed = (seed * 16807) % 2147483647;
  return seed / 2147483647;
};
const pick = () => WORDS[Math.floor(rnd() * WORDS.length)] as string;
const sentence = (n = 8 + Math.floor(rnd() * 14)) => {
  const words = Array.from({ length: n }, (_, i) => (i === 3 ? `${pick()}-${pick()}` : pick()));
  return `${words.join(' ')}.`.replace(/^./, (c) => c.toUpperCase());
};

/** A page of known text: its HTML, and the words a reader sees on it. */
function fidelityPage(i: number): { html: string; words: string[] } {
  const parts: string[] = [`<h1>Report ${i}: ${sentence(5)}</h1>`];
  for (let s = 0; s < 4; s++) {
    parts.push(`<h2>${sentence(4)}</h2>`);
    parts.push(`<p>${Array.from({ length: 5 }, () => sentence()).join(' ')}</p>`);
    if (s === 1) parts.push(`<ul>${Array.from({ length: 4 }, () => `<li>${sentence(6)}</li>`).join('')}</ul>`);
    if (s === 2)
      parts.push(`<p>${sentence(6)} <a href="https://archive.example/${i}">${sentence(3)}</a> ${sentence(9)}</p>`);
    if (s === 3 && i % 2 === 0)
      parts.push(
        `<div style="column-count:2;column-gap:2.5em"><p>${Array.from({ length: 6 }, () => sentence()).join(' ')}</p></div>`,
      );
  }
  const html = `<!doctype html><html><head><title>Report ${i}</title></head><body style="font-family:serif;font-size:12pt">${parts.join('\n')}</body></html>`;
  const text = parts.join(' ').replace(/<[^>]+>/g, ' ');
  return { html, words: tokens(text) };
}

const tokens = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Word-level F1 of `got` against `want`, as multisets. */
function f1(got: string[], want: string[]): number {
  const counts = new Map<string, number>();
  for (const w of want) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of got) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      common++;
      counts.set(w, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / got.length;
  const recall = common / want.length;
  return (2 * precision * recall) / (precision + recall);
}

function generatedTable(i: number): { html: string; rows: string[][] } {
  const cols = 2 + (i % 5);
  const rowCount = 3 + ((i * 7) % 10);
  const rows = Array.from({ length: rowCount }, (_, r) =>
    Array.from({ length: cols }, (_, c) =>
      r === 0 ? `${pick()} ${c + 1}` : c % 2 === 1 ? String(Math.floor(rnd() * 100000)) : `${pick()} ${pick()}`,
    ),
  );
  const cell = (tag: string, text: string) => `<${tag} style="border:1px solid #444;padding:4px 8px">${text}</${tag}>`;
  const html = `<!doctype html><html><body style="font-family:sans-serif;font-size:11pt"><h2>Table ${i}</h2><p>${sentence()}</p><table style="border-collapse:collapse">${rows
    .map((row, r) => `<tr>${row.map((t) => cell(r === 0 ? 'th' : 'td', t)).join('')}</tr>`)
    .join('')}</table><p>${sentence()}</p></body></html>`;
  return { html, rows };
}

/** The markdown's tables, as rows of cells. */
function markdownTables(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (cells.every((c) => /^-+$/.test(c))) continue;
    if (!current) {
      current = [];
      tables.push(current);
    }
    current.push(cells);
  }
  return tables;
}

async function main() {
  const printer = await startPrinter();
  const files = new Map<string, Buffer>();
  const fidelity = Array.from({ length: 12 }, (_, i) => fidelityPage(i));
  const tables = Array.from({ length: 20 }, (_, i) => generatedTable(i));
  try {
    for (const [i, page] of fidelity.entries()) files.set(`/fidelity/${i}.pdf`, await printer.print(page.html));
    for (const [i, t] of tables.entries()) files.set(`/tables/${i}.pdf`, await printer.print(t.html));
    // Twenty sections, each from a new page, so the PDF has 20 pages (or more) whatever fonts the
    // machine prints with; each fills most of its page.
    const long = Array.from(
      { length: 20 },
      (_, s) =>
        `<h2 style="break-before:page">Section ${s + 1}</h2>${Array.from({ length: 6 }, () => `<p>${Array.from({ length: 6 }, () => sentence()).join(' ')}</p>`).join('')}`,
    ).join('');
    files.set('/long.pdf', await printer.print(`<!doctype html><body style="font-size:12pt">${long}</body>`));
  } finally {
    await printer.close();
  }
  const site = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const fleet = await startBenchFleet({ env: { LOG_LEVEL: 'warn', EGRESS_ALLOW: '127.0.0.0/8' } });
  try {
    const { apiKey } = await fleet.workspace('scale');
    const scrape = async (path: string) => {
      const res = await fetch(`${fleet.gatewayUrl}/v1/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${base}${path}`, formats: ['markdown'] }),
      });
      const body = (await res.json()) as {
        data?: { markdown?: string; metadata?: { numPages?: number } };
        code?: string;
      };
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.code}`);
      return body.data ?? {};
    };
    const scores: number[] = [];
    for (const [i, page] of fidelity.entries())
      scores.push(f1(tokens((await scrape(`/fidelity/${i}.pdf`)).markdown ?? ''), page.words));
    let cells = 0;
    let found = 0;
    for (const [i, t] of tables.entries()) {
      const got = markdownTables((await scrape(`/tables/${i}.pdf`)).markdown ?? '')[0] ?? [];
      for (const [r, row] of t.rows.entries())
        for (const [c, text] of row.entries()) {
          cells++;
          if (got[r]?.[c] === text) found++;
        }
    }
    const first = await scrape('/long.pdf');
    const pages = first.metadata?.numPages ?? 0;
    // The same PDF uploaded to POST /v1/parse: the same pipeline without the fetch. Scrape and
    // upload take turns, so both meet the machine as busy as the other does.
    const upload = async () => {
      const form = new FormData();
      form.append('body', JSON.stringify({ formats: ['markdown'] }));
      form.append(
        'file',
        new Blob([files.get('/long.pdf') ?? Buffer.alloc(0)], { type: 'application/pdf' }),
        'long.pdf',
      );
      const res = await fetch(`${fleet.gatewayUrl}/v1/parse`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: form,
      });
      const body = (await res.json()) as { data?: { metadata?: { numPages?: number } }; code?: string };
      if (res.status !== 200 || body.data?.metadata?.numPages !== pages)
        throw new Error(`parse: ${res.status} ${body.code}`);
    };
    const latencies: number[] = [];
    const parsed: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let started = performance.now();
      await scrape('/long.pdf');
      latencies.push(performance.now() - started);
      started = performance.now();
      await upload();
      parsed.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)] ?? Number.NaN;
    parsed.sort((a, b) => a - b);
    const parseP50 = parsed[Math.floor(parsed.length / 2)] ?? Number.NaN;
    const meanF1 = scores.reduce((a, b) => a + b, 0) / scores.length;
    console.log(
      `\nDocuments through POST /v1/scrape: ${fidelity.length} printed pages of known text, ${tables.length} generated tables (${cells} cells), a ${pages}-page text PDF ${ROUNDS} times\n`,
    );
    console.log(
      table([
        { figure: 'word F1, mean', value: meanF1.toFixed(4), detail: `min ${Math.min(...scores).toFixed(4)}` },
        {
          figure: 'table cells recovered',
          value: `${((100 * found) / cells).toFixed(1)}%`,
          detail: `${found}/${cells}`,
        },
        {
          figure: `${pages}-page PDF scrape p50`,
          value: `${(p50 / 1000).toFixed(2)} s`,
          detail: `min ${(latencies[0]! / 1000).toFixed(2)} s, max ${(latencies[latencies.length - 1]! / 1000).toFixed(2)} s`,
        },
        {
          figure: `${pages}-page PDF parse (upload) p50`,
          value: `${(parseP50 / 1000).toFixed(2)} s`,
          detail: `${(parseP50 / p50).toFixed(2)}× the scrape's; min ${(parsed[0]! / 1000).toFixed(2)} s, max ${(parsed[parsed.length - 1]! / 1000).toFixed(2)} s`,
        },
      ]),
    );
    const goals = [
      goal('PDF text fidelity, word F1', meanF1, '>=', 0.95, ''),
      goal('PDF table cells recovered', (100 * found) / cells, '>=', 90, '%'),
      goal(`PDF scrape p50, ${pages}-page text PDF`, p50 / 1000, '<=', 1.5, 's'),
      // An upload is read by the same pipeline without the fetch: no slower than the scrape.
      goal('PDF parse p50 / scrape p50, same PDF', parseP50 / p50, '<=', 1.2, '×'),
    ];
    printGoals(goals);
    console.log(
      JSON.stringify({
        bench: 'documents',
        f1: { mean: Number(meanF1.toFixed(4)), each: scores.map((s) => Number(s.toFixed(4))) },
        cells: { total: cells, found },
        long: { pages, p50: Math.round(p50), latencies: latencies.map(Math.round) },
        parse: { p50: Math.round(parseP50), latencies: parsed.map(Math.round) },
        goals,
      }),
    );
    if (pages < 20) process.exitCode = 1;
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
    site.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
