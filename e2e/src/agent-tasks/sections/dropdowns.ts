// Dropdowns: native selects, a custom listbox built of a button and a list
// (no <select> to set), and a region list that a script fills once a
// country is chosen.
import { esc, field, page, type Visit } from '../site.js';
import { recorded, type Section } from '../task.js';

const REGIONS: Record<string, string[]> = {
  FR: ['Brittany', 'Normandy', 'Occitania', 'Provence'],
  DE: ['Baden-Württemberg', 'Bavaria', 'Hesse', 'Saxony'],
  IT: ['Lombardy', 'Piedmont', 'Tuscany', 'Veneto'],
};

const SHIPPING = [
  { value: 'standard', label: 'Standard delivery, 3 to 5 days, €4.90' },
  { value: 'express', label: 'Express delivery, 1 to 2 days, €9.90' },
  { value: 'pickup', label: 'Collect from the shop, free' },
];

const LISTBOX = `const button = document.getElementById('shipping-button'), list = document.getElementById('shipping-list');
button.onclick = () => { list.hidden = !list.hidden; button.setAttribute('aria-expanded', String(!list.hidden)); };
list.onclick = (e) => {
  const option = e.target.closest('[role=option]');
  if (!option) return;
  document.getElementById('shipping').value = option.dataset.value;
  button.textContent = option.textContent;
  for (const o of list.children) o.setAttribute('aria-selected', String(o === option));
  list.hidden = true; button.setAttribute('aria-expanded', 'false');
};`;

const REGION_SCRIPT = `const regions = ${JSON.stringify(REGIONS)};
const country = document.getElementById('country'), region = document.getElementById('region');
country.onchange = () => {
  region.innerHTML = '<option value="">Choose a region</option>' +
    (regions[country.value] || []).map((r) => '<option>' + r + '</option>').join('');
  region.disabled = !regions[country.value];
};`;

function select(label: string, name: string, options: [string, string][], chosen: string): string {
  const items = options.map(
    ([value, text]) => `<option value="${value}"${value === chosen ? ' selected' : ''}>${esc(text)}</option>`,
  );
  return `<p><label for="${name}">${esc(label)}</label> <select name="${name}" id="${name}">${items.join('')}</select></p>`;
}

function saved(brand: string, title: string, v: Visit, kind: string): string {
  v.record(kind, Object.fromEntries(v.form));
  return page(brand, title, '<p role="status">Saved.</p>');
}

export const dropdowns: Section = {
  routes: [
    {
      path: '/admin/settings',
      handle: (v) =>
        page(
          'Shopfront admin',
          'Store settings',
          `<form method="post" action="${v.base}/admin/settings">
${select(
  'Language',
  'language',
  [
    ['en', 'English'],
    ['de', 'Deutsch'],
    ['fr', 'Français'],
    ['es', 'Español'],
    ['it', 'Italiano'],
  ],
  'en',
)}
${select(
  'Currency',
  'currency',
  [
    ['EUR', 'Euro (EUR)'],
    ['USD', 'US dollar (USD)'],
    ['CHF', 'Swiss franc (CHF)'],
    ['GBP', 'Pound sterling (GBP)'],
  ],
  'EUR',
)}
${select(
  'Time zone',
  'timezone',
  [
    ['Europe/Berlin', 'Berlin'],
    ['Europe/Zurich', 'Zurich'],
    ['Europe/London', 'London'],
  ],
  'Europe/Berlin',
)}
<button>Save settings</button></form>`,
        ),
    },
    {
      method: 'POST',
      path: '/admin/settings',
      handle: (v) => saved('Shopfront admin', 'Store settings', v, 'settings'),
    },
    {
      path: '/checkout',
      handle: (v) =>
        page(
          'Fern & Fig Home',
          'Checkout',
          `<table><tr><td>Stoneware mug, sage (×2)</td><td>€24.00</td></tr><tr><td>Linen napkins, set of 4</td><td>€18.50</td></tr></table>
<form method="post" action="${v.base}/checkout"><p id="shipping-label">Delivery</p>
<button type="button" id="shipping-button" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="shipping-label shipping-button">${SHIPPING[0]?.label}</button>
<ul role="listbox" id="shipping-list" aria-labelledby="shipping-label" hidden>
${SHIPPING.map((s, i) => `<li role="option" data-value="${s.value}" aria-selected="${i === 0}">${esc(s.label)}</li>`).join('')}</ul>
<input type="hidden" name="shipping" id="shipping" value="standard"><p><button>Place order</button></p></form>`,
          LISTBOX,
        ),
    },
    {
      method: 'POST',
      path: '/checkout',
      handle(v) {
        v.record('order', Object.fromEntries(v.form));
        return page('Fern & Fig Home', 'Thank you', '<p role="status">Your order is placed.</p>');
      },
    },
    {
      path: '/warehouse/address',
      handle: (v) =>
        page(
          'Palletly',
          'Warehouse address',
          `<form method="post" action="${v.base}/warehouse/address">
${select(
  'Country',
  'country',
  [
    ['', 'Choose a country'],
    ['FR', 'France'],
    ['DE', 'Germany'],
    ['IT', 'Italy'],
  ],
  '',
)}
<p><label for="region">Region</label> <select name="region" id="region" disabled><option value="">Choose a country first</option></select></p>
${field('City', 'city')}<button>Save address</button></form>`,
          REGION_SCRIPT,
        ),
    },
    {
      method: 'POST',
      path: '/warehouse/address',
      handle: (v) => saved('Palletly', 'Warehouse address', v, 'warehouse'),
    },
  ],
  tasks: [
    {
      id: 'dropdown-store-settings',
      kind: 'dropdown',
      task: "Switch the store's language to German and its currency to Swiss francs, and save the settings.",
      path: '/admin/settings',
      check: ({ records }) =>
        recorded(records, 'settings', { language: 'de', currency: 'CHF', timezone: 'Europe/Berlin' }),
    },
    {
      id: 'dropdown-express-checkout',
      kind: 'dropdown',
      task: 'Place this order with express delivery.',
      path: '/checkout',
      check: ({ records }) => recorded(records, 'order', { shipping: 'express' }),
    },
    {
      id: 'dropdown-dependent-region',
      kind: 'dropdown',
      task: "Set the warehouse's address to the city of Augsburg, in Bavaria, Germany.",
      path: '/warehouse/address',
      check: ({ records }) => recorded(records, 'warehouse', { country: 'DE', region: 'Bavaria', city: 'Augsburg' }),
    },
  ],
  solutions: {
    async 'dropdown-store-settings'(p) {
      await p.getByLabel('Language').selectOption({ label: 'Deutsch' });
      await p.getByLabel('Currency').selectOption({ label: 'Swiss franc (CHF)' });
      await p.getByRole('button', { name: 'Save settings' }).click();
      await p.getByText('Saved.').waitFor();
    },
    async 'dropdown-express-checkout'(p) {
      await p.getByRole('button', { name: 'Delivery' }).click();
      await p.getByRole('option', { name: /Express/ }).click();
      await p.getByRole('button', { name: 'Place order' }).click();
      await p.getByText('Your order is placed').waitFor();
    },
    async 'dropdown-dependent-region'(p) {
      await p.getByLabel('Country').selectOption({ label: 'Germany' });
      await p.getByLabel('Region').selectOption('Bavaria');
      await p.getByLabel('City').fill('Augsburg');
      await p.getByRole('button', { name: 'Save address' }).click();
      await p.getByText('Saved.').waitFor();
    },
  },
};
