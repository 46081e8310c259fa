// Search then pick: a search box, a results list with near-misses (the
// same words, another product; the right product, another edition), and the
// page of the right result, where the answer is or the button to press.
import { esc, page, type Visit } from '../site.js';
import { answered, objectSchema, plain, recorded, type Section } from '../task.js';

interface Entry {
  id: string;
  title: string;
  /** Shown under the title in the results. */
  line: string;
  /** The entry's own page, as HTML. */
  body: string;
}

const egg = (n: number) => `${n} ${n === 1 ? 'egg' : 'eggs'}`;
const recipe = (id: string, title: string, eggs: number, rest: string[]): Entry => ({
  id,
  title,
  line: `${rest.length + 1} ingredients`,
  body: `<h2>Ingredients</h2><ul>${[egg(eggs), ...rest].map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`,
});

const RECIPES: Entry[] = [
  recipe('lemon-poppy-pancakes', 'Lemon poppy seed pancakes', 1, ['200 g flour', '1 lemon', '1 tbsp poppy seeds']),
  recipe('ricotta-berry-pancakes', 'Ricotta pancakes with summer berries', 2, ['250 g ricotta', '150 g berries']),
  recipe('lemon-ricotta-pancakes', 'Lemon ricotta pancakes', 3, ['250 g ricotta', '1 lemon', '120 g flour']),
  recipe('buttermilk-pancakes', 'Buttermilk pancakes', 2, ['300 ml buttermilk', '200 g flour']),
  recipe('lemon-drizzle-cake', 'Lemon drizzle cake', 4, ['225 g butter', '225 g sugar', '2 lemons']),
  recipe('spinach-ricotta-cannelloni', 'Spinach and ricotta cannelloni', 1, ['500 g spinach', '250 g ricotta']),
];

const HX = (id: string, title: string, seconds: number): Entry => ({
  id,
  title,
  line: 'Troubleshooting',
  body: `<ol><li>Keep the device plugged in.</li><li>Press and hold the reset button on the back for ${seconds} seconds, until the light blinks.</li>
<li>Wait two minutes, then sign in with the password on the label.</li></ol>`,
});

const ARTICLES: Entry[] = [
  HX('hx100-reset', 'Resetting the HX-100 router', 10),
  HX('hx200-satellite-reset', 'Resetting an HX-200 mesh satellite', 5),
  HX('hx200-reset', 'Resetting the HX-200 router', 15),
  { id: 'hx200-firmware', title: 'Updating the HX-200 router firmware', line: 'Updates', body: '<p>Open the app.</p>' },
  { id: 'wifi-names', title: 'Changing your Wi-Fi name', line: 'Setup', body: '<p>Open the app.</p>' },
];

const EDITIONS: Record<string, [string, string, string][]> = {
  'left-hand-of-darkness': [
    ['LHD-HC', 'Hardcover, Gollancz, 2018', '€24.00'],
    ['LHD-PB19', 'Paperback, Ace, 2019', '€11.99'],
    ['LHD-PB23', 'Paperback, Gollancz, 2023', '€9.50'],
    ['LHD-EB', 'Ebook', '€6.99'],
  ],
  'lhd-study-guide': [['LHD-SG', 'Paperback, 2021', '€7.50']],
  dispossessed: [['DIS-PB', 'Paperback, 2020', '€10.99']],
  'darkness-visible': [['DV-PB', 'Paperback, 2001', '€8.99']],
};

const BOOKS: Entry[] = [
  ['left-hand-of-darkness', 'The Left Hand of Darkness', 'Ursula K. Le Guin'],
  ['lhd-study-guide', 'The Left Hand of Darkness: a study guide', 'R. Patel'],
  ['dispossessed', 'The Dispossessed', 'Ursula K. Le Guin'],
  ['darkness-visible', 'Darkness Visible', 'William Styron'],
].map(([id, title, author]) => ({ id, title, line: author, body: '' }) as Entry);

function bookBody(v: Visit, id: string): string {
  const rows = (EDITIONS[id] ?? []).map(
    ([edition, what, price]) =>
      `<tr><td>${what}</td><td>${price}</td><td><form method="post" action="${v.base}/books/cart">
<input type="hidden" name="edition" value="${edition}"><button aria-label="Add ${esc(what)} to cart">Add to cart</button></form></td></tr>`,
  );
  return `<table><tr><th>Edition</th><th>Price</th><th></th></tr>${rows.join('')}</table>`;
}

/** A search section: a box at `root`, results at `root/search`, entries at `root/:id`. */
function searchable(
  brand: string,
  root: string,
  heading: string,
  entries: Entry[],
  body = (_v: Visit, e: Entry) => e.body,
) {
  const box = (v: Visit, q = '') =>
    `<form action="${v.base}${root}/search" role="search"><label>Search <input type="search" name="q" value="${esc(q)}"></label> <button>Search</button></form>`;
  return [
    { path: root, handle: (v: Visit) => page(brand, heading, box(v)) },
    {
      path: `${root}/search`,
      handle(v: Visit) {
        const q = v.query.get('q') ?? '';
        const words = plain(q).split(' ').filter(Boolean);
        const score = (e: Entry) => words.filter((w) => plain(`${e.title} ${e.line}`).includes(w)).length;
        const hits = entries.filter((e) => score(e) > 0).sort((a, b) => score(b) - score(a));
        const list = hits.map(
          (e) => `<li><a href="${v.base}${root}/${e.id}">${esc(e.title)}</a> · ${esc(e.line)}</li>`,
        );
        return page(
          brand,
          `Results for “${q}”`,
          `${box(v, q)}${list.length ? `<ol>${list.join('')}</ol>` : '<p>No results.</p>'}`,
        );
      },
    },
    {
      path: `${root}/:id`,
      handle(v: Visit) {
        const entry = entries.find((e) => e.id === v.params.id);
        if (!entry) return { status: 404, html: page(brand, 'Not found', '<p>No such page.</p>') };
        return page(brand, entry.title, `<p><a href="${v.base}${root}">${esc(heading)}</a></p>${body(v, entry)}`);
      },
    },
  ];
}

const BIKES: [string, string, string, number, number][] = [
  ['b1', 'Cannondale CAAD10', 'road', 56, 520],
  ['b2', 'Specialized Allez', 'road', 54, 360],
  ['b3', 'Giant Contend 2', 'road', 56, 390],
  ['b4', 'Canyon Grail AL', 'gravel', 56, 340],
  ['b5', 'Trek Domane AL 2', 'road', 56, 410],
  ['b6', 'Bianchi Via Nirone 7', 'road', 56, 450],
  ['b7', 'Scott Speedster 30', 'road', 58, 380],
  ['b8', 'Decathlon Triban RC 120', 'road', 56, 550],
];

function marketPage(v: Visit): string {
  const q = plain(v.query.get('q'));
  const size = v.query.get('size') ?? '';
  const max = Number(v.query.get('max') || Number.POSITIVE_INFINITY);
  const hits = BIKES.filter(
    ([, name, type, s, price]) =>
      (!q || q.split(' ').every((w) => plain(`${name} ${type} bike`).includes(w))) &&
      (!size || String(s) === size) &&
      price <= max,
  );
  const rows = hits.map(
    ([id, name, type, s, price]) =>
      `<tr><td>${name}</td><td>${type}</td><td>${s} cm</td><td>€${price}</td><td><form method="post" action="${v.base}/market/favourites">
<input type="hidden" name="id" value="${id}"><button aria-label="Save ${name} to favourites">Save</button></form></td></tr>`,
  );
  return page(
    'Second Spoke',
    'Used bikes',
    `<form action="${v.base}/market" role="search"><label>Search <input type="search" name="q" value="${esc(v.query.get('q'))}"></label>
<label>Frame size <select name="size"><option value="">Any</option>${[52, 54, 56, 58].map((s) => `<option${String(s) === size ? ' selected' : ''}>${s}</option>`).join('')}</select></label>
<label>Max price (€) <input name="max" type="number" value="${esc(v.query.get('max'))}"></label> <button>Search</button></form>
<table><tr><th>Bike</th><th>Type</th><th>Frame</th><th>Price</th><th></th></tr>${rows.join('') || '<tr><td colspan="5">Nothing matches.</td></tr>'}</table>`,
  );
}

export const search: Section = {
  routes: [
    ...searchable('Fork & Whisk', '/recipes', 'Recipes', RECIPES),
    ...searchable('Nettlink Help Center', '/help/articles', 'Help articles', ARTICLES),
    ...searchable('Pagewise Books', '/books', 'Books', BOOKS, (v, e) => bookBody(v, e.id)),
    {
      method: 'POST',
      path: '/books/cart',
      handle(v) {
        v.record('cart-add', { edition: v.form.get('edition') });
        return page('Pagewise Books', 'Cart', '<p role="status">Added to your cart.</p>');
      },
    },
    { path: '/market', handle: marketPage },
    {
      method: 'POST',
      path: '/market/favourites',
      handle(v) {
        v.record('favourite', { id: v.form.get('id') });
        return page('Second Spoke', 'Favourites', '<p role="status">Saved to your favourites.</p>');
      },
    },
  ],
  tasks: [
    {
      id: 'search-recipe-eggs',
      kind: 'search',
      task: 'Find the recipe for lemon ricotta pancakes and tell me how many eggs it needs.',
      path: '/recipes',
      outputSchema: objectSchema({ eggs: { type: 'integer' } }),
      check: ({ answer }) => answered(answer, { eggs: 3 }),
    },
    {
      id: 'search-router-reset',
      kind: 'search',
      task: 'Find the help article on resetting the HX-200 router and tell me for how many seconds to hold the reset button.',
      path: '/help/articles',
      outputSchema: objectSchema({ seconds: { type: 'integer' } }),
      check: ({ answer }) => answered(answer, { seconds: 15 }),
    },
    {
      id: 'search-cheapest-paperback',
      kind: 'search',
      task: "Find Ursula K. Le Guin's The Left Hand of Darkness and add its cheapest paperback edition to the cart.",
      path: '/books',
      check: ({ records }) => recorded(records, 'cart-add', { edition: 'LHD-PB23' }),
    },
    {
      id: 'search-used-road-bike',
      kind: 'search',
      task: 'Find a used road bike with a 56 cm frame for under 500 euros and save the cheapest one to my favourites.',
      path: '/market',
      check: ({ records }) => recorded(records, 'favourite', { id: 'b3' }),
    },
  ],
  solutions: {
    async 'search-recipe-eggs'(p) {
      await p.getByLabel('Search').fill('lemon ricotta pancakes');
      await p.getByRole('button', { name: 'Search' }).click();
      await p.getByRole('link', { name: 'Lemon ricotta pancakes', exact: true }).click();
      const line = await p.getByRole('listitem').filter({ hasText: /egg/ }).textContent();
      return { eggs: Number.parseInt(line ?? '', 10) };
    },
    async 'search-router-reset'(p) {
      await p.getByLabel('Search').fill('reset HX-200');
      await p.getByRole('button', { name: 'Search' }).click();
      await p.getByRole('link', { name: 'Resetting the HX-200 router' }).click();
      const text = await p.getByText('Press and hold').textContent();
      return { seconds: Number(/for (\d+) seconds/.exec(text ?? '')?.[1]) };
    },
    async 'search-cheapest-paperback'(p) {
      await p.getByLabel('Search').fill('left hand of darkness');
      await p.getByRole('button', { name: 'Search' }).click();
      await p.getByRole('link', { name: 'The Left Hand of Darkness', exact: true }).click();
      await p.getByRole('button', { name: 'Add Paperback, Gollancz, 2023 to cart' }).click();
      await p.getByText('Added to your cart').waitFor();
    },
    async 'search-used-road-bike'(p) {
      await p.getByLabel('Search').fill('road');
      await p.getByLabel('Frame size').selectOption('56');
      await p.getByLabel('Max price').fill('499');
      await p.getByRole('button', { name: 'Search' }).click();
      await p.getByRole('button', { name: 'Save Giant Contend 2 to favourites' }).click();
      await p.getByText('Saved to your favourites').waitFor();
    },
  },
};
