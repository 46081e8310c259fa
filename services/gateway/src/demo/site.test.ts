// The demo shop as the gateway serves it on DEMO_SITE (docs/demo.md), over real HTTP on loopback:
// on its own address only, a person's way through it (a product, the cart, an order), and the
// Error object for a form that does not hold.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsLink } from '@wap/events';
import { testNats } from '@wap/testkit';
import { freshDatabase, startGateway, type TestDatabase } from '../test-support.js';
import { orderNumber, readCart } from './shop.js';

let database: TestDatabase;
let link: NatsLink;
let stop: () => Promise<void>;
let api: string;
let shop: string;

before(async () => {
  database = await freshDatabase(4);
  link = await testNats('demo-site-test');
  const gateway = await startGateway(database, link, { DEMO_SITE: '127.0.0.3:0' }, { registry: () => [] });
  stop = gateway.stop;
  ({ url: api } = gateway);
  assert.ok(gateway.demoUrl, 'the gateway says where the shop is');
  shop = gateway.demoUrl;
});

after(async () => {
  await stop?.();
  await link?.drain();
  await database?.close();
});

/** A form posted as a browser posts it; redirects are read, not followed. */
const post = (path: string, fields: Record<string, string>, cookie = '') =>
  fetch(`${shop}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });

/** The cookie a response sets, as the next request sends it back. */
const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

const issueOf = async (res: Response) => {
  const body = (await res.json()) as { code: string; details?: { issues?: { path: string }[] } };
  return [res.status, body.code, body.details?.issues?.[0]?.path];
};

describe('the demo shop', () => {
  test('is served on its own address, and the API address has none of it', async () => {
    assert.match(shop, /^http:\/\/127\.0\.0\.3:\d+$/);
    const home = await fetch(`${shop}/`);
    assert.equal(home.status, 200);
    const text = await home.text();
    assert.match(text, /<h1>Products<\/h1>/);
    assert.match(text, /href="\/products\/blue-mug">Blue mug<\/a><\/td><td class="num">€12\.00/);
    assert.match(home.headers.get('content-security-policy') ?? '', /default-src 'none'.*form-action 'self'/);
    assert.equal(await (await fetch(`${shop}/products`)).text(), text, '/products lists them too');
    for (const path of ['/', '/products/blue-mug', '/cart']) {
      const there = await fetch(`${api}${path}`);
      assert.equal(there.status, 404, `${path} is not the API's`);
      assert.equal(((await there.json()) as { code: string }).code, 'not_found');
    }
    // Nor is the API on the shop's address.
    assert.equal((await fetch(`${shop}/v1/credits`)).status, 404);
    assert.equal((await fetch(`${shop}/console/`)).status, 404);
  });

  test('a product goes into the cart, and the order placed says its number and total', async () => {
    const product = await (await fetch(`${shop}/products/blue-mug`)).text();
    assert.match(product, /Price: <strong id="price">€12\.00<\/strong>/);
    assert.match(product, /<form method="post" action="\/cart">/);

    const added = await post('/cart', { product: 'blue-mug', quantity: '2' });
    assert.equal(added.status, 303);
    assert.equal(added.headers.get('location'), '/cart');
    assert.match(added.headers.get('set-cookie') ?? '', /^demo_cart=blue-mug\.2; Path=\/; HttpOnly; SameSite=Lax$/);
    const more = await post('/cart', { product: 'notebook', quantity: '1' }, cookieOf(added));
    const cookie = cookieOf(more);
    assert.equal(cookie, 'demo_cart=blue-mug.2~notebook.1');

    const cart = await (await fetch(`${shop}/cart`, { headers: { cookie } })).text();
    assert.match(cart, /Cart \(3 items\)/);
    assert.match(cart, /<td class="num" id="total">€28\.20<\/td>/);

    const order = await post('/checkout', { name: 'Ada Lovelace', email: 'ada@example.com' }, cookie);
    assert.equal(order.status, 200);
    assert.match(order.headers.get('set-cookie') ?? '', /^demo_cart=; .*Max-Age=0/, 'the cart is emptied');
    const placed = await order.text();
    const number = orderNumber(readCart('blue-mug.2~notebook.1'), 'Ada Lovelace', 'ada@example.com');
    assert.match(number, /^DEMO-[0-9A-F]{6}$/);
    assert.ok(placed.includes(`<strong id="order">${number}</strong>`), placed);
    assert.match(placed, /Total: <strong>€28\.20<\/strong>/);
    assert.match(placed, /Thank you, Ada Lovelace\./);
  });

  test('what a person types is shown as text, never as markup', async () => {
    const added = await post('/cart', { product: 'green-tea', quantity: '1' });
    const placed = await (
      await post('/checkout', { name: '<img src=x onerror=alert(1)>', email: 'a@b.test' }, cookieOf(added))
    ).text();
    assert.ok(placed.includes('Thank you, &lt;img src=x onerror=alert(1)&gt;.'), placed);
    assert.ok(!placed.includes('<img'), 'no markup from the form');
  });

  test('a form that does not hold is 400 naming its field; an unknown page is 404', async () => {
    assert.deepEqual(await issueOf(await post('/cart', { product: 'teapot', quantity: '1' })), [
      400,
      'bad_request',
      'body.product',
    ]);
    for (const quantity of ['0', '10', '1.5', 'two', ''])
      assert.deepEqual(
        await issueOf(await post('/cart', { product: 'blue-mug', quantity })),
        [400, 'bad_request', 'body.quantity'],
        `quantity ${JSON.stringify(quantity)}`,
      );
    // Nine of a product at most, however many times it is added.
    const nine = await post('/cart', { product: 'blue-mug', quantity: '9' });
    assert.equal(nine.status, 303);
    assert.deepEqual(await issueOf(await post('/cart', { product: 'blue-mug', quantity: '1' }, cookieOf(nine))), [
      400,
      'bad_request',
      'body.quantity',
    ]);
    assert.deepEqual(await issueOf(await post('/checkout', { name: 'Ada', email: 'ada@example.com' })), [
      400,
      'bad_request',
      'cookie.demo_cart',
    ]);
    const cookie = cookieOf(nine);
    assert.deepEqual(await issueOf(await post('/checkout', { name: ' ', email: 'ada@example.com' }, cookie)), [
      400,
      'bad_request',
      'body.name',
    ]);
    assert.deepEqual(await issueOf(await post('/checkout', { name: 'Ada', email: 'not an email' }, cookie)), [
      400,
      'bad_request',
      'body.email',
    ]);
    // A cart cookie that was tampered with keeps what reads as a cart, and drops the rest.
    const tampered = await fetch(`${shop}/cart`, { headers: { cookie: 'demo_cart=teapot.3~notebook.12~notebook.2' } });
    assert.match(await tampered.text(), /Cart \(2 items\)/);
    const missing = await fetch(`${shop}/products/teapot`);
    assert.deepEqual([missing.status, ((await missing.json()) as { code: string }).code], [404, 'not_found']);
    assert.ok(missing.headers.get('x-request-id'), 'the Error object comes with its request id');
  });

  test('emptying the cart clears its cookie', async () => {
    const added = await post('/cart', { product: 'desk-lamp', quantity: '1' });
    const emptied = await post('/cart/empty', {}, cookieOf(added));
    assert.equal(emptied.status, 303);
    assert.match(emptied.headers.get('set-cookie') ?? '', /^demo_cart=; .*Max-Age=0/);
    const cart = await (await fetch(`${shop}/cart`)).text();
    assert.match(cart, /Your cart is empty/);
  });
});
