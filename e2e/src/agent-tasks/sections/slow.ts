// Slow elements: a table an API fills seconds after the page loads, a job
// whose result appears when it finishes, a submit button enabled only once a
// check comes back, and a list that loads more as it is scrolled. The delays
// are the site's slowMs.
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { field, page } from '../site.js';
import { all, answered, fail, objectSchema, only, pass, recorded, type Section } from '../task.js';

const RATES: [string, number][] = [
  ['EUR → GBP', 0.8571],
  ['EUR → USD', 1.0842],
  ['USD → EUR', 0.9223],
  ['EUR → CHF', 0.9412],
  ['EUR → JPY', 163.27],
];

const HARDWARE = [
  'Steel hinge, 75 mm',
  'Cabinet pull, black',
  'Hook rail, oak',
  'Shelf bracket, 200 mm',
  'Padlock, 40 mm',
  'Wall anchor, pack of 50',
  'Door stop, rubber',
  'Gate latch, galvanised',
  'Sash lock, chrome',
  'Letter plate, brass',
  'Cup hook, pack of 10',
  'Drawer runner, 450 mm',
  'Coat hook, cast iron',
  'Window stay, satin',
  'Hasp and staple',
  'Cabinet knob, ceramic',
  'Tower bolt, 100 mm',
  'Keyhole cover, brass',
  'Cabinet catch, magnetic',
  'Mortice latch, 65 mm',
  'Corner brace, pack of 4',
  'Chain bolt, steel',
  'Brass door knob',
  'Pull handle, 160 mm',
  'Ball catch, adjustable',
  'Flush bolt, 150 mm',
  'Numeral 7, brass',
  'Draught excluder, 914 mm',
].map((name, i) => ({ name, price: Math.round(((i * 613) % 2_400) + 350) / 100 }));
const KNOB = HARDWARE.find((h) => h.name === 'Brass door knob')?.price as number;
const BATCH = 10;

const RATES_SCRIPT = (base: string) => `fetch('${base}/api/rates').then((r) => r.json()).then((rates) => {
  document.getElementById('rates').innerHTML = '<table><tr><th>Pair</th><th>Rate</th></tr>' +
    rates.map(([pair, rate]) => '<tr><td>' + pair + '</td><td>' + rate + '</td></tr>').join('') + '</table><p>Updated today at 09:00.</p>';
});`;

const REPORT_SCRIPT = (
  base: string,
) => `const form = document.getElementById('report'), status = document.getElementById('status');
form.onsubmit = async (e) => {
  e.preventDefault();
  form.querySelector('button').disabled = true;
  status.textContent = 'Generating the report, this can take a moment…';
  const r = await (await fetch('${base}/api/reports', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ month: form.month.value }) })).json();
  status.textContent = 'Report ' + r.number + ' is ready.';
  form.querySelector('button').disabled = false;
};`;

const OPEN_SCRIPT = (base: string) => `fetch('${base}/api/jobs/open').then(() => {
  document.getElementById('check').textContent = 'The position is open: you can apply.';
  document.getElementById('submit').disabled = false;
});`;

const LAZY_SCRIPT = (
  base: string,
) => `const list = document.getElementById('items'), more = document.getElementById('more');
let next = 2, loading = false;
const watch = new IntersectionObserver(async ([entry]) => {
  if (!entry.isIntersecting || loading || !next) return;
  loading = true; more.textContent = 'Loading more…';
  const page = await (await fetch('${base}/api/hardware?page=' + next)).json();
  list.insertAdjacentHTML('beforeend', page.items.map((i) => '<li><h3>' + i.name + '</h3><p>€' + i.price.toFixed(2) + '</p></li>').join(''));
  next = page.next; loading = false; more.textContent = next ? '' : 'That is everything.';
  watch.unobserve(more); watch.observe(more);
});
watch.observe(more);`;

const item = (i: { name: string; price: number }) => `<li><h3>${i.name}</h3><p>€${i.price.toFixed(2)}</p></li>`;

export const slow: Section = {
  routes: [
    {
      path: '/rates',
      handle: (v) =>
        page(
          'Meridian Bank',
          'Exchange rates',
          '<div id="rates" aria-busy="true">Loading today’s rates…</div>',
          RATES_SCRIPT(v.base),
        ),
    },
    {
      path: '/api/rates',
      handle: async (v) => {
        await sleep(v.slowMs);
        return { json: RATES };
      },
    },
    {
      path: '/reports',
      handle: (v) =>
        page(
          'Ledgerly',
          'Sales reports',
          `<form id="report"><label>Month <select name="month"><option value="2026-09">September 2026</option>
<option value="2026-10">October 2026</option><option value="2026-11">November 2026</option></select></label>
<button>Generate report</button></form><p id="status" role="status"></p>`,
          REPORT_SCRIPT(v.base),
        ),
    },
    {
      method: 'POST',
      path: '/api/reports',
      handle: async (v) => {
        await sleep(v.slowMs);
        const number = `R-${String(v.json.month).replace('-', '')}-${randomInt(1000, 10_000)}`;
        v.record('report', { month: v.json.month, number });
        return { json: { number } };
      },
    },
    {
      path: '/jobs/warehouse-assistant/apply',
      handle: (v) =>
        page(
          'Palletly Careers',
          'Apply: warehouse assistant',
          `<form method="post" action="${v.base}/jobs/warehouse-assistant/apply">${field('Full name', 'name')}${field('Email', 'email', '', 'type="email"')}
<p id="check">Checking that the position is still open…</p><button id="submit" disabled>Submit application</button></form>`,
          OPEN_SCRIPT(v.base),
        ),
    },
    {
      path: '/api/jobs/open',
      handle: async (v) => {
        await sleep(v.slowMs);
        return { json: { open: true } };
      },
    },
    {
      method: 'POST',
      path: '/jobs/warehouse-assistant/apply',
      handle(v) {
        v.record('application', Object.fromEntries(v.form));
        return page('Palletly Careers', 'Application sent', '<p role="status">We have your application.</p>');
      },
    },
    {
      path: '/catalogue/hardware',
      handle: (v) =>
        page(
          'Ironmonger & Sons',
          'Hardware',
          `<style>#items li{min-height:5rem}</style><ul id="items">${HARDWARE.slice(0, BATCH).map(item).join('')}</ul><p id="more"></p>`,
          LAZY_SCRIPT(v.base),
        ),
    },
    {
      path: '/api/hardware',
      handle: async (v) => {
        const n = Number(v.query.get('page')) || 1;
        await sleep(v.slowMs / 2);
        const items = HARDWARE.slice((n - 1) * BATCH, n * BATCH);
        return { json: { items, next: n * BATCH < HARDWARE.length ? n + 1 : 0 } };
      },
    },
  ],
  tasks: [
    {
      id: 'slow-exchange-rate',
      kind: 'slow',
      task: "What is today's euro to US dollar exchange rate on this page?",
      path: '/rates',
      outputSchema: objectSchema({ rate: { type: 'number', description: 'US dollars for one euro' } }),
      check: ({ answer }) => answered(answer, { rate: 1.0842 }),
    },
    {
      id: 'slow-report-number',
      kind: 'slow',
      task: 'Generate the sales report for October 2026 and tell me its report number.',
      path: '/reports',
      outputSchema: objectSchema({ reportNumber: { type: 'string' } }),
      check({ records, answer }) {
        const report = only(records, 'report');
        if ('ok' in report) return report;
        return all(
          report.data.month === '2026-10' ? pass('October report') : fail(`report for ${report.data.month}`),
          answered(answer, { reportNumber: report.data.number }),
        );
      },
    },
    {
      id: 'slow-enabled-submit',
      kind: 'slow',
      task: 'Apply for the warehouse assistant job as Tom Becker, tom.becker@example.com.',
      path: '/jobs/warehouse-assistant/apply',
      check: ({ records }) => recorded(records, 'application', { name: 'Tom Becker', email: 'tom.becker@example.com' }),
    },
    {
      id: 'slow-lazy-list',
      kind: 'slow',
      task: 'How much does the brass door knob cost in this hardware catalogue?',
      path: '/catalogue/hardware',
      outputSchema: objectSchema({ price: { type: 'number', description: 'in euros' } }),
      check: ({ answer }) => answered(answer, { price: KNOB }),
    },
  ],
  solutions: {
    async 'slow-exchange-rate'(p) {
      const row = p.getByRole('row', { name: /EUR → USD/ });
      await row.waitFor();
      const cells = await row.getByRole('cell').allTextContents();
      return { rate: Number(cells[1]) };
    },
    async 'slow-report-number'(p) {
      await p.getByLabel('Month').selectOption({ label: 'October 2026' });
      await p.getByRole('button', { name: 'Generate report' }).click();
      const status = await p.getByText(/Report R-\S+ is ready/).textContent();
      return { reportNumber: /Report (\S+) is ready/.exec(status ?? '')?.[1] };
    },
    async 'slow-enabled-submit'(p) {
      await p.getByLabel('Full name').fill('Tom Becker');
      await p.getByLabel('Email').fill('tom.becker@example.com');
      await p.getByRole('button', { name: 'Submit application' }).click();
      await p.getByText('We have your application').waitFor();
    },
    async 'slow-lazy-list'(p) {
      const knob = p.getByRole('heading', { name: 'Brass door knob' });
      while (!(await knob.count())) {
        const shown = await p.getByRole('listitem').count();
        await p.locator('#more').scrollIntoViewIfNeeded();
        await p.getByRole('listitem').nth(shown).waitFor();
      }
      const price = await p.getByRole('listitem').filter({ has: knob }).getByRole('paragraph').textContent();
      return { price: Number(price?.replace('€', '')) };
    },
  },
};
