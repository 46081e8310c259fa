// make bench: a scrape's `json` format through the whole fleet (POST /v1/scrape on a loopback site
// of 30 product, article, job and event pages whose values are known; every third page lacks one
// field, which must come back null).
// - Our overhead per page with a model endpoint: the same pages scraped for markdown and for json
//   against a loopback stand-in of an OpenAI-compatible endpoint that answers at once; the
//   difference of the p50s is what the model formats add (the check, the Extract call, the page
//   cut, the schema, the answer's check). Goal <= 20 ms.
// - The embedded model (qwen2.5-coder-1.5b, when scripts/fetch-model.sh has fetched it; said so
//   and left out when not): fields right over the pages (goal >= 80%), values invented for a field
//   the page lacks (goal 0), and the p50 wall time of a page (goal <= 15 s). BENCH_MODEL_PAGES
//   (default 30) scrapes fewer pages with it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { goal, printGoals, startBenchFleet } from '@wap/testkit';
import { startFakeOpenAi } from '@wap/testsite';
import { table } from './run-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MODEL_PAGES = Number(process.env.BENCH_MODEL_PAGES ?? 30);
const EMBEDDED = 'qwen2.5-coder-1.5b';

type Values = Record<string, string | number | null>;
interface Page {
  kind: string;
  html: string;
  schema: Record<string, unknown>;
  /** The values the page holds; null for the field it lacks. */
  want: Values;
}

const str = (description: string) => ({ type: 'string', description });
const SCHEMAS: Record<string, Record<string, unknown>> = {
  product: {
    name: str('product name'),
    price: { type: 'number', description: 'price' },
    brand: str('brand'),
    sku: str('SKU code'),
  },
  article: { headline: str('headline'), author: str('author name'), published: str('publication date, YYYY-MM-DD') },
  job: { title: str('job title'), company: str('company'), location: str('city'), salary: str('salary') },
  event: { name: str('event name'), date: str('date, YYYY-MM-DD'), venue: str('venue'), city: str('city') },
};
const CITIES = ['Lyon', 'Porto', 'Ghent', 'Tartu', 'Bergen', 'Graz', 'Turku', 'Brno'];
const NAMES = ['Ada Moreau', 'Jonas Berg', 'Lena Varga', 'Tomas Silva', 'Mira Koch', 'Paul Dumas'];
const FILLER =
  '<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav><footer><p>© 2026 Example Ltd. All rights reserved. Privacy policy. Terms.</p></footer>';

function page(i: number): Page {
  const kind = ['product', 'article', 'job', 'event'][i % 4] as string;
  const city = CITIES[i % CITIES.length] as string;
  const person = NAMES[i % NAMES.length] as string;
  const day = `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 27) + 1).padStart(2, '0')}`;
  const lacks = i % 3 === 2;
  let want: Values;
  let body: string;
  if (kind === 'product') {
    want = {
      name: `Trail kettle ${i}`,
      price: 20 + i + 0.5,
      brand: lacks ? null : `Brand${i}`,
      sku: `SKU-${1000 + i}`,
    };
    body = `<h1>${want.name}</h1>${want.brand ? `<p>By ${want.brand}</p>` : ''}<p class="price">Price: €${want.price}</p><p>Item code: ${want.sku}</p><p>A light kettle for camping, boils a litre in four minutes.</p>`;
  } else if (kind === 'article') {
    want = { headline: `Rivers of ${city} in spring ${i}`, author: lacks ? null : person, published: day };
    body = `<article><h1>${want.headline}</h1>${want.author ? `<p class="byline">By ${want.author}</p>` : ''}<time datetime="${day}">Published ${day}</time><p>The rivers of ${city} rise every spring as snow melts in the hills above the town.</p><p>Boats wait in the harbour until the water settles.</p></article>`;
  } else if (kind === 'job') {
    want = {
      title: `Data engineer ${i}`,
      company: `Northwind ${i}`,
      location: city,
      salary: lacks ? null : `€${50 + i}k per year`,
    };
    body = `<h1>${want.title}</h1><p>${want.company} is hiring in ${city}.</p>${want.salary ? `<p>Salary: ${want.salary}</p>` : ''}<p>You will build pipelines that move data between our services.</p>`;
  } else {
    want = { name: `Harbour jazz night ${i}`, date: day, venue: lacks ? null : `The Old Mill ${i}`, city };
    body = `<h1>${want.name}</h1><p>Date: ${day}</p>${want.venue ? `<p>Venue: ${want.venue}</p>` : ''}<p>City: ${city}</p><p>An evening of music by the water; doors open at seven.</p>`;
  }
  const schema = { type: 'object', properties: SCHEMAS[kind], required: Object.keys(SCHEMAS[kind] ?? {}) };
  return {
    kind,
    schema,
    want,
    html: `<!doctype html><html><head><title>${Object.values(want)[0]}</title></head><body>${FILLER.split('<footer>')[0]}<main>${body}</main>${FILLER.slice(FILLER.indexOf('<footer>'))}</body></html>`,
  };
}

/** A date asked as YYYY-MM-DD and answered as an ISO date-time is the same date. */
const sameDate = (answer: unknown, value: unknown) =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && String(answer).slice(0, 10) === value;

const norm = (v: unknown) =>
  typeof v === 'number'
    ? String(v)
    : String(v ?? '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}.]+/gu, '');

/** Fields right (a value equal to the page's once normalised, or null where the page lacks it), and inventions. */
function score(want: Values, got: Record<string, unknown> | undefined) {
  let right = 0;
  let invented = 0;
  for (const [field, value] of Object.entries(want)) {
    const answer = got?.[field];
    const empty = answer === null || answer === undefined || answer === '';
    if (value === null) {
      if (empty) right++;
      else invented++;
    } else if (
      !empty &&
      (norm(answer) === norm(value) ||
        sameDate(answer, value) ||
        Number(String(answer).replace(/[^\d.]/g, '')) === value)
    )
      right++;
  }
  return { right, fields: Object.keys(want).length, invented };
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main() {
  const pages = Array.from({ length: 30 }, (_, i) => page(i));
  const site = createServer((req, res) => {
    const i = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
    const p = pages[i];
    if (!p) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(p.html);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // The endpoint answers each page's known values at once: its own time is nil, the rest is ours.
  const endpoint = await startFakeOpenAi({
    reply: (request) => {
      const text = JSON.stringify(request.body?.messages ?? '');
      const i = Number(/\/p\/(\d+)/.exec(text)?.[1] ?? 0);
      return pages[i]?.want ?? {};
    },
  });
  let modelPath = '';
  try {
    modelPath = execFileSync('node', ['scripts/fetch-model.mjs', '--path', EMBEDDED]).toString().trim();
  } catch {
    modelPath = '';
  }
  const embedded = modelPath !== '' && existsSync(modelPath);
  const fleet = await startBenchFleet({
    env: {
      LOG_LEVEL: 'warn',
      EGRESS_ALLOW: '127.0.0.0/8',
      AGENT_MODELS: JSON.stringify([{ name: 'loopback', kind: 'openai', baseUrl: endpoint.url, model: 'loopback-1' }]),
      AGENT_DEFAULT_MODEL: 'loopback',
      ...(embedded ? { EMBEDDED_MODEL_PATH: modelPath } : {}),
    },
  });
  try {
    const { apiKey } = await fleet.workspace('scale');
    const scrape = async (i: number, body: Record<string, unknown>) => {
      const started = performance.now();
      const res = await fetch(`${fleet.gatewayUrl}/v1/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${base}/p/${i}`, ...body }),
      });
      const answer = (await res.json()) as {
        data?: { json?: Record<string, unknown> };
        code?: string;
        details?: unknown;
      };
      if (res.status !== 200)
        throw new Error(`page ${i}: ${res.status} ${answer.code} ${JSON.stringify(answer.details)}`);
      return { ms: performance.now() - started, json: answer.data?.json };
    };
    const json = (i: number, model: string) => ({
      formats: ['json'],
      jsonOptions: { schema: pages[i]?.schema },
      model,
    });
    // Warm both paths first (compilation, connections), then alternate them page by page.
    for (let i = 0; i < 4; i++) {
      await scrape(i, { formats: ['markdown'] });
      await scrape(i, json(i, 'loopback'));
    }
    const plain: number[] = [];
    const withJson: number[] = [];
    let loopbackRight = 0;
    let loopbackFields = 0;
    for (let r = 0; r < ROUNDS; r++)
      for (const i of pages.keys()) {
        plain.push((await scrape(i, { formats: ['markdown'] })).ms);
        const got = await scrape(i, json(i, 'loopback'));
        withJson.push(got.ms);
        const s = score(pages[i]?.want ?? {}, got.json);
        loopbackRight += s.right;
        loopbackFields += s.fields;
      }
    const overhead = p50(withJson) - p50(plain);
    const rows = [
      { figure: 'markdown scrape p50', value: `${p50(plain).toFixed(1)} ms`, detail: `${plain.length} scrapes` },
      {
        figure: 'json scrape p50, loopback endpoint',
        value: `${p50(withJson).toFixed(1)} ms`,
        detail: `${withJson.length} scrapes`,
      },
      {
        figure: 'json overhead per page, p50',
        value: `${overhead.toFixed(1)} ms`,
        detail: `fields passed through ${loopbackRight}/${loopbackFields}`,
      },
    ];
    const goals = [goal('json with a loopback endpoint model: our overhead per page', overhead, '<=', 20, 'ms')];
    const embeddedResult: Record<string, unknown> = { measured: embedded };
    if (embedded) {
      let right = 0;
      let fields = 0;
      let invented = 0;
      const times: number[] = [];
      const failed: string[] = [];
      const answers: unknown[] = [];
      for (const i of pages.keys()) {
        if (i >= MODEL_PAGES) break;
        try {
          const got = await scrape(i, json(i, 'embedded'));
          times.push(got.ms);
          answers.push({ page: i, got: got.json });
          const s = score(pages[i]?.want ?? {}, got.json);
          right += s.right;
          fields += s.fields;
          invented += s.invented;
        } catch (err) {
          failed.push((err as Error).message);
          fields += Object.keys(pages[i]?.want ?? {}).length;
        }
      }
      const share = (100 * right) / Math.max(1, fields);
      rows.push(
        {
          figure: 'embedded: fields right',
          value: `${share.toFixed(1)}%`,
          detail: `${right}/${fields} on ${times.length + failed.length} pages, ${failed.length} failed`,
        },
        { figure: 'embedded: values invented', value: String(invented), detail: 'for fields the page lacks' },
        {
          figure: 'embedded: json scrape p50',
          value: `${(p50(times) / 1000).toFixed(1)} s`,
          detail: `max ${(Math.max(...times) / 1000).toFixed(1)} s`,
        },
      );
      goals.push(
        goal('json with a schema, embedded model: fields right', share, '>=', 80, '%'),
        goal('json with a schema, embedded model: values invented', invented, '<=', 0, ''),
        goal('json with the embedded model, p50 wall time per page', p50(times) / 1000, '<=', 15, 's'),
      );
      Object.assign(embeddedResult, { right, fields, invented, failed, times: times.map(Math.round), answers });
    }
    console.log(`\nThe json format through POST /v1/scrape, ${pages.length} pages of known values\n`);
    console.log(table(rows));
    if (!embedded) console.log(`\nembedded model not measured: ${EMBEDDED} is not fetched (scripts/fetch-model.sh)`);
    printGoals(goals);
    console.log(
      JSON.stringify({
        bench: 'model-formats',
        loopback: {
          plainP50: Math.round(p50(plain) * 10) / 10,
          jsonP50: Math.round(p50(withJson) * 10) / 10,
          overhead: Math.round(overhead * 10) / 10,
        },
        embedded: embeddedResult,
      }),
    );
  } finally {
    await fleet.stop();
    await fleet.dropDatabases();
    await endpoint.close();
    site.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
