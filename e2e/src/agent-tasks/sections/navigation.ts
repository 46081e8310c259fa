// Multi-page navigation: an order history and a blog split into pages, a
// shop's category tree walked up by its breadcrumbs, and documentation
// where the figure sits one page below the one the sidebar names.
import { esc, page, paged, pager, type Visit } from '../site.js';
import { answered, objectSchema, type Section } from '../task.js';

/** 47 orders, newest first: A-1130 down to A-1084, each total fixed by its place. */
const ORDERS = Array.from({ length: 47 }, (_, i) => ({
  number: `A-${1130 - i}`,
  date: new Date(Date.UTC(2026, 10, 8) - i * 5 * 86_400_000).toISOString().slice(0, 10),
  items: 1 + ((i * 7) % 5),
  total: Math.round(((i * 3719) % 18_000) + 1_250) / 100,
}));
const ORDER_TOTAL = ORDERS.find((o) => o.number === 'A-1093')?.total as number;

const POSTS = [
  'Winter opening hours',
  'Meet our new roaster',
  'Ten years on Canal Street',
  'Why we switched to paper tape',
  'Our autumn blends are here',
  'A visit to the Huila farms',
  'Cold brew, the slow way',
  'How we pick a decaf',
  'Notes from the barista championship',
  'Refill your tin, save a euro',
  'The grinder we use at home',
  'Spring menu',
  'Our first wholesale customer',
  'Learning to cup coffee',
  'Hello, Canal Street',
  'We roasted our first batch',
].map((title, i) => ({
  title,
  date: new Date(Date.UTC(2026, 9, 20) - i * 97 * 86_400_000).toISOString().slice(0, 10),
}));

interface Item {
  name: string;
  price: number;
}

const CATALOG: Record<string, { name: string; categories: Record<string, { name: string; items: Item[] }> }> = {
  garden: {
    name: 'Garden',
    categories: {
      'hand-tools': {
        name: 'Hand tools',
        items: [
          { name: 'Felco pruning shears', price: 49.9 },
          { name: 'Hori-hori knife', price: 38 },
          { name: 'Long-reach loppers', price: 62 },
          { name: 'Stainless hand trowel', price: 24.5 },
          { name: 'Hand fork', price: 19 },
          { name: 'Bulb planter', price: 15 },
        ],
      },
      machines: {
        name: 'Machines',
        items: [
          { name: 'Cordless lawn mower', price: 329 },
          { name: 'Hedge trimmer', price: 119 },
        ],
      },
      watering: { name: 'Watering', items: [{ name: 'Hose reel, 30 m', price: 74 }] },
    },
  },
  kitchen: { name: 'Kitchen', categories: { knives: { name: 'Knives', items: [{ name: 'Chef knife', price: 89 }] } } },
};

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const euros = (n: number) => `€${n.toFixed(2)}`;

function crumbs(v: Visit, trail: [string, string][]): string {
  const links = trail.map(([name, path], i) =>
    i === trail.length - 1
      ? `<span aria-current="page">${esc(name)}</span>`
      : `<a href="${v.base}${path}">${esc(name)}</a>`,
  );
  return `<nav aria-label="Breadcrumb">${links.join(' › ')}</nav>`;
}

const DOCS_NAV = (v: Visit) =>
  `<nav aria-label="Documentation"><ul>${[
    ['Introduction', ''],
    ['Authentication', '/auth'],
    ['Errors', '/errors'],
    ['Limits', '/limits'],
    ['Changelog', '/changelog'],
  ]
    .map(([name, path]) => `<li><a href="${v.base}/docs${path}">${name}</a></li>`)
    .join('')}</ul></nav>`;

const DOCS: Record<string, [string, string]> = {
  '': [
    'Introduction',
    '<p>The Relay API sends messages over SMS, email and push. All requests use HTTPS and JSON.</p>',
  ],
  '/auth': ['Authentication', '<p>Send your key in the Authorization header as a bearer token.</p>'],
  '/errors': ['Errors', '<p>Errors answer with a status code and a JSON body with a code and a message.</p>'],
  '/changelog': ['Changelog', '<p>2026-10: batch sends. 2026-07: webhooks signed with HMAC-SHA256.</p>'],
  '/limits': [
    'Limits',
    '<p>Messages may be at most 64 KB. Each plan allows a number of requests per minute and a number at the same time; see <a href="limits/plans">Limits by plan</a>.</p>',
  ],
  '/limits/plans': [
    'Limits by plan',
    `<table><tr><th>Plan</th><th>Requests per minute</th><th>Concurrent requests</th><th>Messages per day</th></tr>
<tr><td>Free</td><td>20</td><td>2</td><td>500</td></tr><tr><td>Starter</td><td>60</td><td>5</td><td>10,000</td></tr>
<tr><td>Team</td><td>300</td><td>20</td><td>100,000</td></tr><tr><td>Enterprise</td><td>By contract</td><td>By contract</td><td>Unlimited</td></tr></table>`,
  ],
};

export const navigation: Section = {
  routes: [
    {
      path: '/orders',
      handle(v) {
        const { rows, current, pages } = paged(v, ORDERS, 10);
        const body = rows.map(
          (o) => `<tr><td>${o.number}</td><td>${o.date}</td><td>${o.items}</td><td>${euros(o.total)}</td></tr>`,
        );
        return page(
          'Harbor Supply',
          'Your orders',
          `<table><tr><th>Order</th><th>Date</th><th>Items</th><th>Total</th></tr>${body.join('')}</table>${pager(v, '/orders', current, pages)}`,
        );
      },
    },
    {
      path: '/blog',
      handle(v) {
        const { rows, current, pages } = paged(v, POSTS, 5);
        const body = rows.map((p) => `<article><h2>${esc(p.title)}</h2><p><time>${p.date}</time></p></article>`);
        return page('Canal Street Coffee', 'Blog', `${body.join('')}${pager(v, '/blog', current, pages)}`);
      },
    },
    {
      path: '/catalog',
      handle: (v) =>
        page(
          'Greenhaus',
          'All departments',
          `<ul>${Object.entries(CATALOG)
            .map(([id, d]) => `<li><a href="${v.base}/catalog/${id}">${d.name}</a></li>`)
            .join('')}</ul>`,
        ),
    },
    {
      path: '/catalog/:dept',
      handle(v) {
        const dept = CATALOG[v.params.dept ?? ''];
        if (!dept) return { status: 404, html: page('Greenhaus', 'Not found', '') };
        const list = Object.entries(dept.categories).map(
          ([id, c]) => `<li><a href="${v.base}/catalog/${v.params.dept}/${id}">${c.name}</a> (${c.items.length})</li>`,
        );
        return page(
          'Greenhaus',
          dept.name,
          `${crumbs(v, [
            ['Home', '/catalog'],
            [dept.name, ''],
          ])}<ul>${list.join('')}</ul>`,
        );
      },
    },
    {
      path: '/catalog/:dept/:cat',
      handle(v) {
        const dept = CATALOG[v.params.dept ?? ''];
        const cat = dept?.categories[v.params.cat ?? ''];
        if (!dept || !cat) return { status: 404, html: page('Greenhaus', 'Not found', '') };
        const base = `/catalog/${v.params.dept}/${v.params.cat}`;
        const list = cat.items.map(
          (i) => `<li><a href="${v.base}${base}/${slug(i.name)}">${esc(i.name)}</a> · ${euros(i.price)}</li>`,
        );
        const trail: [string, string][] = [
          ['Home', '/catalog'],
          [dept.name, `/catalog/${v.params.dept}`],
          [cat.name, ''],
        ];
        return page('Greenhaus', cat.name, `${crumbs(v, trail)}<ul>${list.join('')}</ul>`);
      },
    },
    {
      path: '/catalog/:dept/:cat/:item',
      handle(v) {
        const dept = CATALOG[v.params.dept ?? ''];
        const cat = dept?.categories[v.params.cat ?? ''];
        const item = cat?.items.find((i) => slug(i.name) === v.params.item);
        if (!dept || !cat || !item) return { status: 404, html: page('Greenhaus', 'Not found', '') };
        const trail: [string, string][] = [
          ['Home', '/catalog'],
          [dept.name, `/catalog/${v.params.dept}`],
          [cat.name, `/catalog/${v.params.dept}/${v.params.cat}`],
          [item.name, ''],
        ];
        return page(
          'Greenhaus',
          item.name,
          `${crumbs(v, trail)}<p>${euros(item.price)} · Ships in 2 days</p><p>Forged steel, replaceable parts, a lifetime of use.</p>`,
        );
      },
    },
    ...Object.entries(DOCS).map(([path, [title, body]]) => ({
      path: `/docs${path}`,
      handle: (v: Visit) => page('Relay API docs', title, `${DOCS_NAV(v)}${body}`),
    })),
  ],
  tasks: [
    {
      id: 'paginate-order-total',
      kind: 'navigation',
      task: 'What was the total of order A-1093 in my order history?',
      path: '/orders',
      outputSchema: objectSchema({ total: { type: 'number', description: 'in euros' } }),
      check: ({ answer }) => answered(answer, { total: ORDER_TOTAL }),
    },
    {
      id: 'paginate-oldest-post',
      kind: 'navigation',
      task: 'What is the title of the oldest post on this blog?',
      path: '/blog',
      outputSchema: objectSchema({ title: { type: 'string' } }),
      check: ({ answer }) => answered(answer, { title: 'We roasted our first batch' }),
    },
    {
      id: 'breadcrumb-priciest-item',
      kind: 'navigation',
      task: 'Go from this product page to the category it is listed in, and tell me the name of the most expensive item in that category.',
      path: '/catalog/garden/hand-tools/felco-pruning-shears',
      outputSchema: objectSchema({ name: { type: 'string' } }),
      check: ({ answer }) => answered(answer, { name: 'Long-reach loppers' }),
    },
    {
      id: 'docs-team-rate-limit',
      kind: 'navigation',
      task: 'In the API documentation, find how many requests per minute the Team plan allows.',
      path: '/docs',
      outputSchema: objectSchema({ requestsPerMinute: { type: 'integer' } }),
      check: ({ answer }) => answered(answer, { requestsPerMinute: 300 }),
    },
  ],
  solutions: {
    async 'paginate-order-total'(p) {
      const row = p.getByRole('row').filter({ hasText: 'A-1093' });
      for (let n = 2; !(await row.isVisible()); n++) {
        await p.getByRole('link', { name: String(n), exact: true }).click();
        await p.locator('[aria-current="page"]', { hasText: new RegExp(`^${n}$`) }).waitFor();
      }
      const total = await row.getByRole('cell').last().textContent();
      return { total: Number(total?.replace(/[^0-9.]/g, '')) };
    },
    async 'paginate-oldest-post'(p) {
      const last = p.getByRole('navigation', { name: 'Pages' }).getByRole('link').filter({ hasText: /^\d+$/ }).last();
      await last.click();
      await p.locator('strong[aria-current]', { hasText: '4' }).waitFor();
      return { title: await p.getByRole('article').last().getByRole('heading').textContent() };
    },
    async 'breadcrumb-priciest-item'(p) {
      await p.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Hand tools' }).click();
      const items = await p.getByRole('listitem').allTextContents();
      const priced = items.map((t) => ({ name: t.split(' · ')[0], price: Number(t.split('€')[1]) }));
      return { name: priced.toSorted((a, b) => b.price - a.price)[0]?.name };
    },
    async 'docs-team-rate-limit'(p) {
      await p.getByRole('link', { name: 'Limits', exact: true }).click();
      await p.getByRole('link', { name: 'Limits by plan' }).click();
      const cells = await p.getByRole('row').filter({ hasText: 'Team' }).getByRole('cell').allTextContents();
      return { requestsPerMinute: Number(cells[1]) };
    },
  },
};
