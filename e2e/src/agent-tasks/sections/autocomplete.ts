// Autocompletes: a field whose typed text asks the site for suggestions and
// only a suggestion picked from the list counts (free text is refused), with
// near-twins in the list; and a tag field that turns picks into chips.
import type { Page } from 'playwright-core';
import { errorList, esc, page, type Visit } from '../site.js';
import { listed, plain, recorded, type Section } from '../task.js';

interface Suggestion {
  id: string;
  label: string;
}

const CITIES: Suggestion[] = [
  { id: 'valencia-es', label: 'Valencia, Spain' },
  { id: 'valencia-ve', label: 'Valencia, Venezuela' },
  { id: 'valladolid-es', label: 'Valladolid, Spain' },
  { id: 'valletta-mt', label: 'Valletta, Malta' },
  { id: 'valparaiso-br', label: 'Valparaíso de Goiás, Brazil' },
  { id: 'valparaiso-cl', label: 'Valparaíso, Chile' },
  { id: 'valparaiso-us', label: 'Valparaiso, Indiana, United States' },
  { id: 'vancouver-ca', label: 'Vancouver, Canada' },
  { id: 'santiago-cl', label: 'Santiago, Chile' },
];

const PRODUCTS: Suggestion[] = [
  { id: 'V60-C01-W', label: 'Hario V60 ceramic dripper, size 01, white' },
  { id: 'V60-C02-R', label: 'Hario V60 ceramic dripper, size 02, red' },
  { id: 'V60-C02-W', label: 'Hario V60 ceramic dripper, size 02, white' },
  { id: 'V60-P02-C', label: 'Hario V60 plastic dripper, size 02, clear' },
  { id: 'V60-G02-B', label: 'Hario V60 glass dripper, size 02, black base' },
  { id: 'V60-F02-100', label: 'Hario V60 paper filters, size 02, 100 pack' },
  { id: 'KAL-185-S', label: 'Kalita Wave 185 dripper, steel' },
];

const TAGS: Suggestion[] = ['billing', 'billing-dispute', 'bug', 'refund', 'urgent', 'urgent-callback', 'vip'].map(
  (t) => ({ id: t, label: t }),
);

/** Every input[data-suggest] asks its URL for suggestions as the user types and fires `pick` when one is clicked. */
const SUGGEST = `for (const input of document.querySelectorAll('input[data-suggest]')) {
  const list = document.createElement('ul');
  list.id = input.id + '-list'; list.hidden = true; list.setAttribute('role', 'listbox');
  Object.assign(input, { autocomplete: 'off' });
  input.setAttribute('role', 'combobox'); input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-controls', list.id); input.setAttribute('aria-expanded', 'false');
  input.after(list);
  let asked = 0;
  input.addEventListener('input', async () => {
    const q = input.value.trim(), mine = ++asked;
    input.dispatchEvent(new CustomEvent('typed'));
    if (q.length < 2) { list.hidden = true; return; }
    const found = await (await fetch(input.dataset.suggest + '?q=' + encodeURIComponent(q))).json();
    if (mine !== asked) return;
    list.innerHTML = found.map((f) => '<li role="option" data-id="' + f.id + '">' + f.label + '</li>').join('') || '<li>No matches</li>';
    list.hidden = false; input.setAttribute('aria-expanded', 'true');
  });
  list.addEventListener('click', (e) => {
    const option = e.target.closest('li[data-id]');
    if (!option) return;
    list.hidden = true; input.setAttribute('aria-expanded', 'false');
    input.dispatchEvent(new CustomEvent('pick', { detail: { id: option.dataset.id, label: option.textContent } }));
  });
}`;

/** A combobox that writes the picked suggestion's id into the hidden input `name`. */
const PICK_ONE = `for (const input of document.querySelectorAll('input[data-suggest][data-into]')) {
  const into = document.getElementById(input.dataset.into);
  input.addEventListener('typed', () => { into.value = ''; });
  input.addEventListener('pick', (e) => { input.value = e.detail.label; into.value = e.detail.id; });
}`;

const CHIPS = `const input = document.getElementById('tag'), chips = document.getElementById('chips');
input.addEventListener('pick', (e) => {
  input.value = '';
  if (chips.querySelector('[value="' + e.detail.id + '"]')) return;
  const chip = document.createElement('li');
  chip.innerHTML = e.detail.label + ' <button type="button" aria-label="Remove ' + e.detail.label + '">×</button><input type="hidden" name="tags" value="' + e.detail.id + '">';
  chip.querySelector('button').onclick = () => chip.remove();
  chips.append(chip);
});`;

function suggest(items: Suggestion[]) {
  return (v: Visit) => {
    const q = plain(v.query.get('q'));
    return { json: items.filter((i) => plain(i.label).includes(q)).slice(0, 8) };
  };
}

function combobox(label: string, id: string, suggestUrl: string, into: string): string {
  return `<p><label for="${id}">${esc(label)}</label><br><input id="${id}" data-suggest="${suggestUrl}" data-into="${into}" size="40">
<input type="hidden" name="${into}" id="${into}"></p>`;
}

function travelPage(v: Visit, errors: string[] = []): string {
  return page(
    'Wayfarer',
    'Travel profile',
    `${errorList(errors)}<form method="post" action="${v.base}/travel/profile">
${combobox('Home city', 'city', `${v.base}/api/cities`, 'cityId')}<button>Save profile</button></form>`,
    SUGGEST + PICK_ONE,
  );
}

function quotePage(v: Visit, errors: string[] = []): string {
  const lines = v.records.filter((r) => r.kind === 'quote-line');
  const rows = lines.map((l) => {
    const product = PRODUCTS.find((p) => p.id === l.data.sku);
    return `<tr><td>${esc(product?.label)}</td><td>${esc(l.data.qty)}</td></tr>`;
  });
  return page(
    'Brewline Wholesale',
    'Quote Q-5120',
    `<table><tr><th>Product</th><th>Quantity</th></tr>${rows.join('') || '<tr><td colspan="2">No lines yet</td></tr>'}</table>
<h2>Add a line</h2>${errorList(errors)}<form method="post" action="${v.base}/quotes/new">
${combobox('Product', 'product', `${v.base}/api/products`, 'sku')}
<label>Quantity <input name="qty" type="number" min="1" value="1"></label><button>Add line</button></form>`,
    SUGGEST + PICK_ONE,
  );
}

export const autocomplete: Section = {
  routes: [
    { path: '/api/cities', handle: suggest(CITIES) },
    { path: '/api/products', handle: suggest(PRODUCTS) },
    { path: '/api/tags', handle: suggest(TAGS) },
    { path: '/travel/profile', handle: (v) => travelPage(v) },
    {
      method: 'POST',
      path: '/travel/profile',
      handle(v) {
        if (!CITIES.some((c) => c.id === v.form.get('cityId')))
          return travelPage(v, ['Choose your city from the suggestions.']);
        v.record('travel-profile', Object.fromEntries(v.form));
        return page('Wayfarer', 'Travel profile', '<p role="status">Profile saved.</p>');
      },
    },
    { path: '/quotes/new', handle: (v) => quotePage(v) },
    {
      method: 'POST',
      path: '/quotes/new',
      handle(v) {
        if (!PRODUCTS.some((p) => p.id === v.form.get('sku')))
          return quotePage(v, ['Choose a product from the suggestions.']);
        v.record('quote-line', Object.fromEntries(v.form));
        return quotePage(v);
      },
    },
    {
      path: '/tickets/881',
      handle: (v) =>
        page(
          'Helpdesk',
          'Ticket #881: Charged twice for October',
          `<p>From: k.osei@example.com · Opened 9 Nov 2026</p><blockquote>My card was charged twice for the October plan.
Please refund one of the payments as soon as you can.</blockquote>
<form method="post" action="${v.base}/tickets/881"><p><label for="tag">Tags</label><ul id="chips"></ul>
<input id="tag" data-suggest="${v.base}/api/tags" placeholder="Add a tag"></p><button>Save ticket</button></form>`,
          SUGGEST + CHIPS,
        ),
    },
    {
      method: 'POST',
      path: '/tickets/881',
      handle(v) {
        v.record('ticket', { tags: v.form.getAll('tags') });
        return page('Helpdesk', 'Ticket #881', '<p role="status">Ticket saved.</p>');
      },
    },
  ],
  tasks: [
    {
      id: 'autocomplete-home-city',
      kind: 'autocomplete',
      task: 'Set my home city in the travel profile to Valparaíso in Chile and save it.',
      path: '/travel/profile',
      check: ({ records }) => recorded(records, 'travel-profile', { cityId: 'valparaiso-cl' }),
    },
    {
      id: 'autocomplete-quote-line',
      kind: 'autocomplete',
      task: 'Add 3 of the Hario V60 ceramic dripper, size 02, in white, to this quote.',
      path: '/quotes/new',
      check: ({ records }) => recorded(records, 'quote-line', { sku: 'V60-C02-W', qty: 3 }),
    },
    {
      id: 'autocomplete-ticket-tags',
      kind: 'autocomplete',
      task: 'Tag this support ticket with billing and urgent, then save it.',
      path: '/tickets/881',
      check: ({ records }) => listed(records, 'ticket', 'tags', ['billing', 'urgent']),
    },
  ],
  solutions: {
    async 'autocomplete-home-city'(p) {
      await typeAndPick(p, 'Home city', 'Valpar', 'Valparaíso, Chile');
      await p.getByRole('button', { name: 'Save profile' }).click();
      await p.getByText('Profile saved').waitFor();
    },
    async 'autocomplete-quote-line'(p) {
      await typeAndPick(p, 'Product', 'V60 ceramic', 'Hario V60 ceramic dripper, size 02, white');
      await p.getByLabel('Quantity').fill('3');
      await p.getByRole('button', { name: 'Add line' }).click();
      await p.getByRole('cell', { name: 'Hario V60 ceramic dripper, size 02, white' }).waitFor();
    },
    async 'autocomplete-ticket-tags'(p) {
      await typeAndPick(p, 'Tags', 'bill', 'billing');
      await typeAndPick(p, 'Tags', 'urg', 'urgent');
      await p.getByRole('button', { name: 'Save ticket' }).click();
      await p.getByText('Ticket saved').waitFor();
    },
  },
};

async function typeAndPick(p: Page, label: string, typed: string, option: string): Promise<void> {
  await p.getByLabel(label, { exact: true }).pressSequentially(typed);
  await p.getByRole('option', { name: option, exact: true }).click();
}
