// Small pages for the driver's tests (not a test itself), served on loopback:
// `site` as 127.0.0.1, `other` as other.test (the browser maps that name to
// loopback: OTHER_HOST_RULE), so a frame of `other` inside a page of `site`
// is cross-site, an out-of-process iframe.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  origin: string;
  close(): Promise<void>;
}

/** Each page of one origin, given the other origin (the pages frame each other's) and the request's method. */
type Pages = Record<string, (peer: string, method: string) => string>;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset=utf-8><title>${title}</title></head><body>${body}</body></html>`;

export const ARTICLE_FACT = 'The shipping fee to Norway is 42 kroner per parcel.';

const filler = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>Paragraph ${i} tells of the harbour, the old lighthouse and the fishing boats that leave before dawn, ` +
      'while the market square fills with traders selling bread, cheese and woollen goods to visitors.</p>',
  ).join('');

/** A sign-in field, for the pages that put one in a frame of another host. */
const FIELD = page('Field', '<label>User <input name=user placeholder=User></label>');

const SITE: Pages = {
  '/field': () => FIELD,
  '/framed-field': (other) =>
    page('Framed', `<p>Sign in below</p><iframe title="Sign-in" src="${other}/field"></iframe>`),
  // The site's own field, in a frame of the other host: the other host's page sees what goes in.
  '/nested-field': (other) =>
    page('Nested', `<p>Sign in below</p><iframe title="Partner" src="${other}/middle"></iframe>`),
  '/form': () =>
    page(
      'Sign in',
      `<h1>Welcome</h1><p id=result>Not signed in</p>
<sign-in></sign-in>
<script>
customElements.define('sign-in', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = '<form><label>Email <input type=email name=email placeholder="Email"></label>' +
      '<label>Password <input type=password name=password></label><button>Sign in</button></form>';
    root.querySelector('form').addEventListener('submit', (event) => {
      event.preventDefault();
      document.getElementById('result').textContent = 'Signed in as ' + root.querySelector('input[name=email]').value;
    });
  }
});
</script>`,
    ),
  // A form that submits once its handler has a token, as a captcha's does: the browser asks for the next
  // document a while after the click, not during it.
  '/deferred-submit': () =>
    page(
      'Order',
      `<form method=get action=/article><input name=q value=lamp><button>Order</button></form>
<script>
document.querySelector('form').addEventListener('submit', (event) => {
  event.preventDefault();
  setTimeout(() => event.target.submit(), 250);
});
</script>`,
    ),
  // A modal dialog over a page: the page behind it is inert, only the dialog can be acted on.
  '/modal': () =>
    page(
      'Modal',
      `<table><tr><td>Q3 notes</td><td><button>Delete</button></td></tr></table>
<dialog id=confirm><p>Delete “Q3 notes”?</p><button onclick="this.closest('dialog').close()">Cancel</button></dialog>
<script>document.getElementById('confirm').showModal();</script>`,
    ),
  '/frames': (other) =>
    page(
      'Frames',
      `<p>Outer text</p><button>Outer</button>
<iframe title="Partner" src="${other}/inner" width=400 height=200></iframe>`,
    ),
  '/choices': () =>
    page(
      'Choices',
      `<p id=out>nothing chosen</p>
<select name=country onchange="out.textContent = 'country ' + this.value">
  <option value=de>Germany</option><option value=fr>France</option><option value=no>Norway</option>
</select>
<label><input type=checkbox name=terms> I agree</label>
<p>[1]&lt;button&gt;Pay now&lt;/button&gt; is only text</p>`,
    ),
  // A tag box: a combobox whose list shows the tags holding what was typed, or "No matches"; a pick
  // adds the tag and empties the box.
  '/tag-box': () =>
    page(
      'Tags',
      `<form action=/article><ul id=chips></ul>
<input id=tag role=combobox aria-label=Tags aria-expanded=false aria-controls=tags autocomplete=off>
<ul id=tags role=listbox hidden></ul><button>Save</button></form>
<script>
tag.oninput = () => {
  const q = tag.value.trim();
  const found = ['billing', 'urgent', 'bug'].filter((t) => q.length > 1 && t.includes(q));
  tags.innerHTML = found.map((t) => '<li role=option>' + t + '</li>').join('') || '<li>No matches</li>';
  tags.hidden = false; tag.setAttribute('aria-expanded', 'true');
};
tags.onclick = (e) => {
  const o = e.target.closest('[role=option]');
  if (!o) return;
  chips.insertAdjacentHTML('beforeend', '<li>' + o.textContent + '<input type=hidden name=tags value=' + o.textContent + '></li>');
  tag.value = ''; tags.hidden = true; tag.setAttribute('aria-expanded', 'false');
};
</script>`,
    ),
  // Questions that open and close their answers (aria-expanded), as an FAQ's accordion does.
  '/faq': () =>
    page(
      'FAQ',
      ['Do you ship abroad?', 'Can I pay later?']
        .map(
          (q, i) => `<h3><button aria-expanded=false aria-controls=a${i}
onclick="const open = this.getAttribute('aria-expanded') === 'true'; this.setAttribute('aria-expanded', String(!open)); a${i}.hidden = open">${q}</button></h3>
<p id=a${i} hidden>${i ? 'Yes, within 30 days of the invoice.' : 'Only within the EU.'}</p>`,
        )
        .join(''),
    ),
  // A plain form that sends its query to the article.
  '/send-form': () => page('Send', `<form action=/article><input name=q aria-label=Query><button>Send</button></form>`),
  // A form whose script refuses a send without a full name, on the same page, as many sites do.
  '/refusing-form': () =>
    page(
      'Sign up',
      `<form id=f><input name=q aria-label=Query><input name=n aria-label="Full name"><button>Send</button></form>
<p id=said role=alert></p>
<script>
f.addEventListener('submit', (event) => {
  event.preventDefault();
  said.textContent = f.n.value ? 'Thanks, ' + f.n.value + '.' : 'Enter your full name.';
});
</script>`,
    ),
  // A form its server refuses every time, on the page it was posted from, with the same words.
  '/posting-form': (_peer, method) =>
    page(
      'Sign up',
      `${method === 'POST' ? '<p role=alert>Enter your full name.</p>' : ''}<form method=post action=/posting-form>
<input name=q aria-label=Query><input name=n aria-label="Full name"><button>Send</button></form>`,
    ),
  '/required-form': () =>
    page('Send', `<form action=/article><input name=q aria-label=Query required><button>Send</button></form>`),
  // A question that opens and closes its answer, as a FAQ's accordion does.
  '/toggle': () =>
    page(
      'FAQ',
      `<button aria-expanded=false onclick="this.ariaExpanded = String(answer.hidden); answer.hidden = !answer.hidden">Shipping?</button>
<p id=answer hidden>Two days.</p>`,
    ),
  // A tab strip whose second tab shows a panel with a button of its own.
  '/tab-strip': () =>
    page(
      'Tab strip',
      `<div role=tablist><button role=tab aria-selected=true id=t1>Details</button>
<button role=tab aria-selected=false id=t2 onclick="t1.ariaSelected = 'false'; this.ariaSelected = 'true'; panel.hidden = false">Reviews</button></div>
<div id=panel hidden><p>No reviews yet.</p><button>Write a review</button></div>`,
    ),
  '/tabs': () =>
    page(
      'Tabs',
      `<a href="/article" target="_blank">Open the article</a>
<a href="#details">Details</a>
<button onclick="history.pushState({}, '', '/tabs/moved')">Move</button>
<p id=details>Details here</p>`,
    ),
  '/upload': () =>
    page(
      'Upload',
      `<p id=out>no file</p>
<label for=doc>Choose a document</label><input type=file id=doc name=doc hidden>
<script>
document.getElementById('doc').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  document.getElementById('out').textContent = file.name + ' ' + file.size + ' ' + file.type + ' ' + hex;
});
</script>`,
    ),
  '/article': () =>
    page('Article', `<article><h1>Harbour news</h1>${filler(60)}<p>${ARTICLE_FACT}</p>${filler(60)}</article>`),
  '/panel': () =>
    page(
      'Panel',
      `<button onclick="document.getElementById('panel').hidden = false">Show filters</button>
<div id=panel hidden><input name=q placeholder="Search"><button>Apply</button></div>
<div aria-hidden=true><button>Hidden from readers</button></div>
<button style="position:absolute; top:-9000px">Far away</button>
<button style="width:0; height:0; padding:0; border:0; overflow:hidden">Zero</button>`,
    ),
  '/crowd': () =>
    page(
      'Crowd',
      `<style>button { width: 3px; height: 3px; padding: 0; border: 0; margin: 0; font-size: 1px; overflow: hidden }</style>
${Array.from({ length: 3000 }, (_, i) => `<button>Button number ${i} with a fairly long label to fill the list</button>`).join('')}`,
    ),
};

const OTHER: Pages = {
  '/inner': () =>
    page(
      'Inner',
      `<p id=state>inner waiting</p><button onclick="state.textContent = 'inner clicked'">Inner button</button>`,
    ),
  '/field': () => FIELD,
  '/middle': (site) => page('Middle', `<iframe title="Sign-in" src="${site}/field"></iframe>`),
};

/** The Chromium flag that sends other.test to loopback. */
export const OTHER_HOST_RULE = '--host-resolver-rules=MAP other.test 127.0.0.1';

async function serve(name: string, pages: Pages, peer: () => string): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const render = pages[path] ?? (path.startsWith('/tabs/') ? pages['/tabs'] : undefined);
    if (!render) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(render(peer(), req.method ?? 'GET'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${name}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The two origins: the site's pages, and the other site's frame. */
export async function serveTestPages(): Promise<{ site: TestServer; other: TestServer }> {
  let siteOrigin = '';
  const other = await serve('other.test', OTHER, () => siteOrigin);
  const site = await serve('127.0.0.1', SITE, () => other.origin);
  siteOrigin = site.origin;
  return { site, other };
}
