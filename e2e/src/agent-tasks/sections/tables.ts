// Tables to records: rows picked by a column's value, a table laid on its
// side (plans as columns), rows spread over two pages, and a ranking the
// table gives only once sorted (or read whole).
import { page, paged, pager } from '../site.js';
import { answered, objectSchema, type Section, sameSet } from '../task.js';

const STAFF: [string, string, string, number][] = [
  ['Aiko Tanaka', 'Engineering', 'Backend engineer', 2019],
  ['Bruno Costa', 'Sales', 'Account executive', 2021],
  ['Chloé Martin', 'Engineering', 'Engineering manager', 2016],
  ['Dev Patel', 'Support', 'Support lead', 2020],
  ['Elena Petrova', 'Engineering', 'Frontend engineer', 2022],
  ['Farid Haddad', 'Finance', 'Controller', 2018],
  ['Greta Lind', 'Design', 'Product designer', 2021],
  ['Hugo Brandt', 'Engineering', 'Site reliability engineer', 2020],
  ['Isabel Duarte', 'Sales', 'Sales manager', 2017],
  ['Jonas Weber', 'Support', 'Support engineer', 2023],
  ['Kwame Mensah', 'Engineering', 'Data engineer', 2024],
  ['Lucía Gómez', 'Marketing', 'Content lead', 2019],
  ['Mei Chen', 'Engineering Recruiting', 'Technical recruiter', 2022],
  ['Nadia Rahman', 'Design', 'Design lead', 2015],
];

const PLANS = [
  { name: 'Basic', monthlyPrice: 9, seats: 1, storage: '50 GB' },
  { name: 'Plus', monthlyPrice: 19, seats: 5, storage: '500 GB' },
  { name: 'Business', monthlyPrice: 49, seats: 25, storage: '5 TB' },
];

const STATUSES = ['Paid', 'Open', 'Paid', 'Void', 'Paid', 'Paid', 'Open', 'Paid'];
const INVOICES = Array.from({ length: 16 }, (_, i) => ({
  number: `INV-${4101 + i}`,
  date: new Date(Date.UTC(2026, 3, 2) + i * 14 * 86_400_000).toISOString().slice(0, 10),
  amount: Math.round(((i * 7919) % 60_000) + 4_000) / 100,
  status: i === 12 ? 'Open' : (STATUSES[(i * 3) % STATUSES.length] as string),
}));
const OPEN = INVOICES.filter((i) => i.status === 'Open').map(({ number, amount }) => ({ number, amount }));

const CITIES: [string, string, number][] = [
  ['Antwerp', 'Belgium', 530_504],
  ['Barcelona', 'Spain', 1_620_343],
  ['Bologna', 'Italy', 392_203],
  ['Cologne', 'Germany', 1_084_831],
  ['Gothenburg', 'Sweden', 604_829],
  ['Kraków', 'Poland', 804_237],
  ['Lyon', 'France', 522_250],
  ['Milan', 'Italy', 1_371_498],
  ['Munich', 'Germany', 1_512_491],
  ['Porto', 'Portugal', 231_800],
  ['Rotterdam', 'Netherlands', 655_468],
  ['Valencia', 'Spain', 792_492],
];

const SORT = `for (const b of document.querySelectorAll('th button')) b.onclick = () => {
  const col = b.closest('th').cellIndex, body = document.querySelector('tbody'), down = b.dataset.dir !== 'desc';
  const key = (r) => r.cells[col].dataset.value ?? r.cells[col].textContent;
  const rows = [...body.rows].sort((x, y) => (col === 2 ? key(x) - key(y) : key(x).localeCompare(key(y))) * (down ? 1 : -1));
  b.dataset.dir = down ? 'desc' : 'asc';
  body.append(...rows);
};`;

const TEXT = { type: 'string' };
const INT = { type: 'integer' };
const NUM = { type: 'number' };
const list = (items: Record<string, unknown>) => ({ type: 'array', items });

export const tables: Section = {
  routes: [
    {
      path: '/team',
      handle: () =>
        page(
          'Northwind Labs',
          'Team directory',
          `<table><tr><th>Name</th><th>Department</th><th>Role</th><th>Started</th></tr>${STAFF.map(
            (s) => `<tr>${s.map((c) => `<td>${c}</td>`).join('')}</tr>`,
          ).join('')}</table>`,
        ),
    },
    {
      path: '/pricing',
      handle: () =>
        page(
          'Cloudnest',
          'Pricing',
          `<table><tr><td></td>${PLANS.map((p) => `<th scope="col">${p.name}</th>`).join('')}</tr>
<tr><th scope="row">Price per month</th>${PLANS.map((p) => `<td>€${p.monthlyPrice}</td>`).join('')}</tr>
<tr><th scope="row">Seats</th>${PLANS.map((p) => `<td>${p.seats}</td>`).join('')}</tr>
<tr><th scope="row">Storage</th>${PLANS.map((p) => `<td>${p.storage}</td>`).join('')}</tr></table><p>Prices exclude VAT. Billed monthly.</p>`,
        ),
    },
    {
      path: '/invoices',
      handle(v) {
        const { rows, current, pages } = paged(v, INVOICES, 8);
        const body = rows.map(
          (i) => `<tr><td>${i.number}</td><td>${i.date}</td><td>€${i.amount.toFixed(2)}</td><td>${i.status}</td></tr>`,
        );
        return page(
          'Ledgerly',
          'Invoices',
          `<table><tr><th>Invoice</th><th>Date</th><th>Amount</th><th>Status</th></tr>${body.join('')}</table>${pager(v, '/invoices', current, pages)}`,
        );
      },
    },
    {
      path: '/cities',
      handle: () =>
        page(
          'Atlas of Europe',
          'Cities',
          `<table><thead><tr>${['City', 'Country', 'Population'].map((h) => `<th><button type="button">${h}</button></th>`).join('')}</tr></thead>
<tbody>${CITIES.map(([c, n, p]) => `<tr><td>${c}</td><td>${n}</td><td data-value="${p}">${p.toLocaleString('en-GB')}</td></tr>`).join('')}</tbody></table>`,
          SORT,
        ),
    },
  ],
  tasks: [
    {
      id: 'table-engineering-staff',
      kind: 'table',
      task: 'List everyone in the Engineering department with their role and the year they started.',
      path: '/team',
      outputSchema: objectSchema({ people: list(objectSchema({ name: TEXT, role: TEXT, startYear: INT })) }),
      check: ({ answer }) =>
        sameSet(
          'people',
          (answer as { people?: unknown })?.people,
          STAFF.filter((s) => s[1] === 'Engineering').map(([name, , role, startYear]) => ({ name, role, startYear })),
          'name',
        ),
    },
    {
      id: 'table-plan-prices',
      kind: 'table',
      task: "Give me each plan's name, monthly price in euros and number of seats.",
      path: '/pricing',
      outputSchema: objectSchema({ plans: list(objectSchema({ name: TEXT, monthlyPrice: NUM, seats: INT })) }),
      check: ({ answer }) =>
        sameSet(
          'plans',
          (answer as { plans?: unknown })?.plans,
          PLANS.map(({ name, monthlyPrice, seats }) => ({ name, monthlyPrice, seats })),
          'name',
        ),
    },
    {
      id: 'table-open-invoices',
      kind: 'table',
      task: 'List all invoices that are still open, with their number and amount.',
      path: '/invoices',
      outputSchema: objectSchema({ invoices: list(objectSchema({ number: TEXT, amount: NUM })) }),
      check: ({ answer }) => sameSet('invoices', (answer as { invoices?: unknown })?.invoices, OPEN, 'number'),
    },
    {
      id: 'table-top-cities',
      kind: 'table',
      task: 'Which three cities in this table have the largest population? Largest first.',
      path: '/cities',
      outputSchema: objectSchema({ cities: { type: 'array', items: TEXT } }),
      check: ({ answer }) => answered(answer, { cities: ['Barcelona', 'Munich', 'Milan'] }),
    },
  ],
  solutions: {
    async 'table-engineering-staff'(p) {
      const rows = await p
        .getByRole('row')
        .filter({ hasText: /Engineering(?! Recruiting)/ })
        .all();
      const people = [];
      for (const row of rows) {
        const [name, , role, year] = await row.getByRole('cell').allTextContents();
        people.push({ name, role, startYear: Number(year) });
      }
      return { people };
    },
    async 'table-plan-prices'(p) {
      const names = await p.getByRole('columnheader').allTextContents();
      const cells = async (label: string) =>
        (await p.getByRole('row', { name: label }).getByRole('cell').allTextContents()).map((t) =>
          Number(t.replace('€', '')),
        );
      const prices = await cells('Price per month');
      const seats = await cells('Seats');
      return { plans: names.map((name, i) => ({ name, monthlyPrice: prices[i], seats: seats[i] })) };
    },
    async 'table-open-invoices'(p) {
      const invoices = [];
      for (let n = 1; n <= 2; n++) {
        if (n > 1) await p.getByRole('link', { name: String(n), exact: true }).click();
        await p.locator('[aria-current="page"]', { hasText: String(n) }).waitFor();
        for (const row of await p.getByRole('row').filter({ hasText: 'Open' }).all()) {
          const [number, , amount] = await row.getByRole('cell').allTextContents();
          invoices.push({ number, amount: Number(amount?.replace('€', '')) });
        }
      }
      return { invoices };
    },
    async 'table-top-cities'(p) {
      await p.getByRole('button', { name: 'Population' }).click();
      await p.getByRole('button', { name: 'Population' }).click();
      const first = await p.locator('tbody tr td:first-child').allTextContents();
      return { cities: first.slice(0, 3) };
    },
  },
};
