// Cookie banners: an overlay that takes every click until a choice is made,
// a "manage choices" panel whose boxes come ticked, and a consent wall that
// holds the article back until the reader answers. The choice is a cookie
// scoped to the attempt, and the site records each one.
import { page, recordsJson, type Visit } from '../site.js';
import { all, answered, fail, objectSchema, pass, recorded, type Section } from '../task.js';

const BRAND = 'Fern & Fig Home';

const APRONS: [string, string, string][] = [
  ['canvas-apron', 'Canvas work apron', '€29.00'],
  ['linen-apron', 'Linen apron, natural', '€34.00'],
  ['kids-apron', "Children's apron", '€19.00'],
];

/** The banner, unless the visitor has chosen; `wall`: the page holds nothing else. */
function banner(v: Visit, wall = false): string {
  if (v.cookies.consent) return '';
  const box = (name: string, label: string) => `<label><input type="checkbox" name="${name}" checked> ${label}</label>`;
  const inner = `<h2 id="cookies-title">We value your privacy</h2><p>We use cookies to run the shop, measure visits and show offers.</p>
<button type="button" id="accept-all">Accept all</button> <button type="button" id="reject-all">Reject all</button>
<button type="button" id="manage">Manage choices</button><div id="choices" hidden>
<label><input type="checkbox" checked disabled> Necessary (always on)</label>${box('analytics', 'Analytics')}${box('marketing', 'Marketing')}
<button type="button" id="save-choices">Save choices</button></div>`;
  return wall
    ? `<section id="cookies" data-wall="1" aria-labelledby="cookies-title">${inner}</section>`
    : `<div class="overlay" id="cookies" role="dialog" aria-modal="true" aria-labelledby="cookies-title"><div>${inner}</div></div>`;
}

const BANNER_SCRIPT = (base: string) => `const banner = document.getElementById('cookies');
if (banner) {
  const choose = async (analytics, marketing) => {
    document.cookie = 'consent=' + (analytics ? 'a' : '') + (marketing ? 'm' : '') + 'n; path=${base}';
    await fetch('${base}/consent', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ analytics, marketing }) });
    if (banner.dataset.wall) location.reload(); else banner.remove();
  };
  banner.querySelector('#accept-all').onclick = () => choose(true, true);
  banner.querySelector('#reject-all').onclick = () => choose(false, false);
  banner.querySelector('#manage').onclick = () => { banner.querySelector('#choices').hidden = false; };
  banner.querySelector('#save-choices').onclick = () =>
    choose(banner.querySelector('[name=analytics]').checked, banner.querySelector('[name=marketing]').checked);
}`;

const addButton = (v: Visit, id: string, name: string) =>
  `<form method="post" action="${v.base}/shop/cart"><input type="hidden" name="item" value="${id}"><button aria-label="Add ${name} to cart">Add to cart</button></form>`;

export const consent: Section = {
  routes: [
    {
      method: 'POST',
      path: '/consent',
      handle: recordsJson('consent'),
    },
    {
      path: '/shop/aprons',
      handle: (v) =>
        page(
          BRAND,
          'Aprons',
          `<ul>${APRONS.map(([id, name, price]) => `<li>${name} · ${price} ${addButton(v, id, name)}</li>`).join('')}</ul>${banner(v)}`,
          BANNER_SCRIPT(v.base),
        ),
    },
    {
      method: 'POST',
      path: '/shop/cart',
      handle(v) {
        v.record('cart-add', { item: v.form.get('item') });
        return page(BRAND, 'Cart', '<p role="status">Added to your cart.</p>');
      },
    },
    {
      path: '/shop',
      handle: (v) =>
        page(
          BRAND,
          'Welcome',
          `<p>Linen, stoneware and small things for the kitchen.</p><form method="post" action="${v.base}/shop/newsletter">
<h2>Our newsletter</h2><label>Email <input name="email" type="email"></label> <button>Subscribe</button></form>${banner(v)}`,
          BANNER_SCRIPT(v.base),
        ),
    },
    {
      method: 'POST',
      path: '/shop/newsletter',
      handle(v) {
        v.record('newsletter', { email: v.form.get('email') });
        return page(BRAND, 'Newsletter', '<p role="status">You are on the list.</p>');
      },
    },
    {
      path: '/news/bridge-reopens',
      handle: (v) =>
        v.cookies.consent
          ? page(
              'The Harbour Herald',
              'Harbour bridge reopens after two years of repairs',
              `<p>By Ingrid Solberg · 9 November 2026</p><p>The bridge carries cyclists and buses from Monday; cars follow in spring.</p>
<p>Photo: Tomas Berg</p>`,
            )
          : page('The Harbour Herald', 'Before you continue', banner(v, true), BANNER_SCRIPT(v.base)),
    },
  ],
  tasks: [
    {
      id: 'cookie-banner-add-to-cart',
      kind: 'cookie-banner',
      task: 'Add the linen apron to my cart.',
      path: '/shop/aprons',
      check: ({ records }) => recorded(records, 'cart-add', { item: 'linen-apron' }),
    },
    {
      id: 'cookie-necessary-only',
      kind: 'cookie-banner',
      task: 'Allow only the necessary cookies on this site (no analytics, no marketing), then sign ana@example.com up for the newsletter.',
      path: '/shop',
      check({ records }) {
        const last = records.filter((r) => r.kind === 'consent').at(-1);
        if (!last) return fail('no cookie choice made');
        return all(
          last.data.analytics === false && last.data.marketing === false
            ? pass('necessary cookies only')
            : fail(`cookie choice: ${JSON.stringify(last.data)}`),
          recorded(records, 'newsletter', { email: 'ana@example.com' }),
        );
      },
    },
    {
      id: 'consent-wall-author',
      kind: 'cookie-banner',
      task: 'Who wrote the news article about the harbour bridge reopening?',
      path: '/news/bridge-reopens',
      outputSchema: objectSchema({ author: { type: 'string' } }),
      check: ({ answer }) => answered(answer, { author: 'Ingrid Solberg' }),
    },
  ],
  solutions: {
    async 'cookie-banner-add-to-cart'(p) {
      await p.getByRole('button', { name: 'Accept all' }).click();
      await p.getByRole('button', { name: 'Add Linen apron, natural to cart' }).click();
      await p.getByText('Added to your cart').waitFor();
    },
    async 'cookie-necessary-only'(p) {
      await p.getByRole('button', { name: 'Manage choices' }).click();
      await p.getByLabel('Analytics').uncheck();
      await p.getByLabel('Marketing').uncheck();
      await p.getByRole('button', { name: 'Save choices' }).click();
      await p.getByRole('dialog').waitFor({ state: 'detached' });
      await p.getByLabel('Email').fill('ana@example.com');
      await p.getByRole('button', { name: 'Subscribe' }).click();
      await p.getByText('You are on the list').waitFor();
    },
    async 'consent-wall-author'(p) {
      await p.getByRole('button', { name: 'Reject all' }).click();
      const byline = await p.getByText(/^By /).textContent();
      return { author: /^By (.+?) ·/.exec(byline ?? '')?.[1] };
    },
  },
};
