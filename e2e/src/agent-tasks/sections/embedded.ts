// Shadow DOM and iframes: a sign-up form inside an open shadow root, a
// rating widget two shadow roots deep, an agreement whose Accept button
// lives in an iframe, and card fields in a payment iframe.
import { errorList, field, page, recordsJson, type Visit } from '../site.js';
import { recorded, type Section } from '../task.js';

const DIGEST = (base: string) => `customElements.define('digest-signup', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = '<style>form{border:1px solid #ccc;padding:.8rem}</style><form><h2>Get the digest</h2>' +
      '<label>Email <input name="email" type="email" required></label>' +
      '<fieldset><legend>How often</legend><label><input type="radio" name="frequency" value="daily" checked> Daily</label>' +
      '<label><input type="radio" name="frequency" value="weekly"> Weekly</label>' +
      '<label><input type="radio" name="frequency" value="monthly"> Monthly</label></fieldset><button>Subscribe</button></form>';
    const form = root.querySelector('form');
    form.onsubmit = async (e) => {
      e.preventDefault();
      const body = Object.fromEntries(new FormData(form));
      await fetch('${base}/news/digest', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      root.innerHTML = '<p role="status">You are subscribed. Check your inbox to confirm.</p>';
    };
  }
});`;

const RATING = (base: string) => `customElements.define('star-rating', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = [1, 2, 3, 4, 5].map((n) => '<button type="button" aria-pressed="false" aria-label="' + n + (n === 1 ? ' star' : ' stars') + '">☆</button>').join('');
    for (const b of root.querySelectorAll('button')) b.onclick = () => {
      this.value = [...root.children].indexOf(b) + 1;
      root.querySelectorAll('button').forEach((x, i) => { x.textContent = i < this.value ? '★' : '☆'; x.setAttribute('aria-pressed', String(i + 1 === this.value)); });
    };
  }
});
customElements.define('feedback-panel', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = '<h2>Was this article useful?</h2><p>Your rating: <star-rating></star-rating></p>' +
      '<label>Comment <textarea rows="3" cols="40"></textarea></label> <button type="button">Send feedback</button><p role="status"></p>';
    root.querySelector('button:last-of-type').onclick = async () => {
      const stars = root.querySelector('star-rating').value, comment = root.querySelector('textarea').value;
      if (!stars) { root.querySelector('[role=status]').textContent = 'Choose a rating first.'; return; }
      await fetch('${base}/articles/feedback', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stars, comment }) });
      root.querySelector('[role=status]').textContent = 'Thanks for your feedback!';
    };
  }
});`;

function cardFrame(v: Visit, errors: string[] = []): string {
  return `<!doctype html><html><body style="font:14px system-ui"><form method="post" action="${v.base}/billing/card-frame">${errorList(errors)}
${field('Card number', 'number', '', 'inputmode="numeric" autocomplete="cc-number"')}${field('Expiry (MM/YY)', 'expiry', '', 'autocomplete="cc-exp"')}
${field('CVC', 'cvc', '', 'inputmode="numeric" size="4"')}${field('Name on card', 'name', '', 'autocomplete="cc-name"')}
<button>Pay €42.00</button></form></body></html>`;
}

export const embedded: Section = {
  routes: [
    {
      path: '/news/digest',
      handle: (v) =>
        page(
          'The Harbour Herald',
          'Newsletters',
          '<p>Our editors pick the week’s best stories.</p><digest-signup></digest-signup>',
          DIGEST(v.base),
        ),
    },
    {
      method: 'POST',
      path: '/news/digest',
      handle: recordsJson('digest'),
    },
    {
      path: '/articles/composting',
      handle: (v) =>
        page(
          'Greenhaus Journal',
          'Composting in a small garden',
          `<p>A compost heap needs a mix of green and brown material, air and a little water. Turn it every few weeks.</p>
<p>In a small garden a closed bin keeps things tidy; a wormery works on a balcony.</p><feedback-panel></feedback-panel>`,
          RATING(v.base),
        ),
    },
    {
      method: 'POST',
      path: '/articles/feedback',
      handle: recordsJson('rating'),
    },
    {
      path: '/signup/agreement',
      handle: (v) =>
        page(
          'Tessera Workspace',
          'Service agreement',
          `<p>Read the agreement below and accept it to finish setting up your workspace.</p>
<iframe src="${v.base}/signup/agreement-frame" title="Service agreement" width="600" height="260"></iframe>`,
        ),
    },
    {
      path: '/signup/agreement-frame',
      handle: (v) => `<!doctype html><html><body style="font:14px system-ui"><h3>Tessera service agreement</h3>
<p>1. You keep the rights to your content. 2. We keep backups for 30 days. 3. Either side may end the agreement with 30 days' notice.</p>
<form method="post" action="${v.base}/signup/agreement-frame"><label><input type="checkbox" name="read" required> I have read the agreement</label>
<button>Accept</button></form></body></html>`,
    },
    {
      method: 'POST',
      path: '/signup/agreement-frame',
      handle(v) {
        v.record('agreement', { read: v.form.get('read') === 'on' });
        return '<!doctype html><html><body><p role="status">Agreement accepted. You can close this page.</p></body></html>';
      },
    },
    {
      path: '/billing/pay',
      handle: (v) =>
        page(
          'Ledgerly',
          'Pay invoice INV-7741',
          `<p>Amount due: €42.00, for October hosting.</p>
<iframe src="${v.base}/billing/card-frame" title="Card payment" width="420" height="300"></iframe>`,
        ),
    },
    { path: '/billing/card-frame', handle: (v) => cardFrame(v) },
    {
      method: 'POST',
      path: '/billing/card-frame',
      handle(v) {
        const card = Object.fromEntries(v.form);
        card.number = (card.number ?? '').replace(/[\s-]/g, '');
        const errors: string[] = [];
        if (!/^\d{16}$/.test(card.number)) errors.push('Enter the 16 digits of the card number.');
        if (!/^(0[1-9]|1[0-2])\/\d{2}$/.test(card.expiry ?? '')) errors.push('Write the expiry date as MM/YY.');
        if (!/^\d{3}$/.test(card.cvc ?? '')) errors.push('The CVC is the 3 digits on the back.');
        if (errors.length) return cardFrame(v, errors);
        v.record('payment', card);
        return '<!doctype html><html><body><p role="status">Payment received. Thank you.</p></body></html>';
      },
    },
  ],
  tasks: [
    {
      id: 'shadow-digest-signup',
      kind: 'shadow-iframe',
      task: 'Subscribe alice@example.net to the weekly newsletter digest.',
      path: '/news/digest',
      check: ({ records }) => recorded(records, 'digest', { email: 'alice@example.net', frequency: 'weekly' }),
    },
    {
      id: 'shadow-nested-rating',
      kind: 'shadow-iframe',
      task: 'Rate this article 4 stars with the comment "Clear and useful", and send it.',
      path: '/articles/composting',
      check: ({ records }) => recorded(records, 'rating', { stars: 4, comment: 'Clear and useful' }),
    },
    {
      id: 'iframe-accept-agreement',
      kind: 'shadow-iframe',
      task: 'Accept the service agreement on this page.',
      path: '/signup/agreement',
      check: ({ records }) => recorded(records, 'agreement', { read: true }),
    },
    {
      id: 'iframe-card-payment',
      kind: 'shadow-iframe',
      task: 'Pay this invoice with the card 4242 4242 4242 4242, expiry 08/29, CVC 123, name on card R. Okafor.',
      path: '/billing/pay',
      check: ({ records }) =>
        recorded(records, 'payment', { number: '4242424242424242', expiry: '08/29', cvc: '123', name: 'R. Okafor' }),
    },
  ],
  solutions: {
    async 'shadow-digest-signup'(p) {
      await p.getByLabel('Email').fill('alice@example.net');
      await p.getByLabel('Weekly').check();
      await p.getByRole('button', { name: 'Subscribe' }).click();
      await p.getByText('You are subscribed').waitFor();
    },
    async 'shadow-nested-rating'(p) {
      await p.getByRole('button', { name: '4 stars' }).click();
      await p.getByLabel('Comment').fill('Clear and useful');
      await p.getByRole('button', { name: 'Send feedback' }).click();
      await p.getByText('Thanks for your feedback').waitFor();
    },
    async 'iframe-accept-agreement'(p) {
      const frame = p.frameLocator('iframe[title="Service agreement"]');
      await frame.getByLabel('I have read the agreement').check();
      await frame.getByRole('button', { name: 'Accept' }).click();
      await frame.getByText('Agreement accepted').waitFor();
    },
    async 'iframe-card-payment'(p) {
      const frame = p.frameLocator('iframe[title="Card payment"]');
      await frame.getByLabel('Card number').fill('4242 4242 4242 4242');
      await frame.getByLabel('Expiry').fill('08/29');
      await frame.getByLabel('CVC').fill('123');
      await frame.getByLabel('Name on card').fill('R. Okafor');
      await frame.getByRole('button', { name: 'Pay €42.00' }).click();
      await frame.getByText('Payment received').waitFor();
    },
  },
};
