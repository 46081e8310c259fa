// The demo shop's catalogue, cart and pages (docs/demo.md): plain HTML with no script, for an
// agent run to try on a machine with no internet. Nothing is stored: the cart is a cookie of
// the shop's own origin, and an order is a page.
import { createHash } from 'node:crypto';
import { escapeHtml } from '../http/html.js';

export interface Product {
  slug: string;
  name: string;
  /** Euro cents. */
  price: number;
  about: string;
}

export const PRODUCTS: readonly Product[] = [
  { slug: 'blue-mug', name: 'Blue mug', price: 1200, about: 'A 350 ml stoneware mug, glazed blue.' },
  { slug: 'desk-lamp', name: 'Desk lamp', price: 3450, about: 'An LED lamp on an arm that bends.' },
  { slug: 'notebook', name: 'Notebook', price: 420, about: 'A5, 96 dotted pages, a cloth cover.' },
  { slug: 'green-tea', name: 'Green tea', price: 650, about: 'Sencha, 100 g, in a tin.' },
];

/** The most of one product a cart holds. */
export const MAX_QUANTITY = 9;

export const productOf = (slug: string) => PRODUCTS.find((p) => p.slug === slug);

/** Cents as the shop writes them: €12.00. */
export const euros = (cents: number) => `€${(cents / 100).toFixed(2)}`;

/** Quantity per product slug, in the catalogue's order. */
export type Cart = Map<string, number>;

/** The cart cookie's value: `blue-mug.2~notebook.1`; whatever does not read as that is dropped. */
export function readCart(value: string | undefined): Cart {
  const cart: Cart = new Map();
  for (const part of (value ?? '').split('~')) {
    const m = /^([a-z-]{1,40})\.([1-9])$/.exec(part);
    if (m && productOf(m[1] as string)) cart.set(m[1] as string, Number(m[2]));
  }
  return cart;
}

export function writeCart(cart: Cart): string {
  return PRODUCTS.filter((p) => cart.has(p.slug))
    .map((p) => `${p.slug}.${cart.get(p.slug)}`)
    .join('~');
}

const lines = (cart: Cart) =>
  PRODUCTS.filter((p) => cart.has(p.slug)).map((p) => ({ product: p, quantity: cart.get(p.slug) as number }));

const totalOf = (cart: Cart) => lines(cart).reduce((sum, l) => sum + l.product.price * l.quantity, 0);

const count = (cart: Cart) => [...cart.values()].reduce((a, b) => a + b, 0);

/** The pages' policy: nothing loads, forms post to the shop only, nobody frames it. */
export const SHOP_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
header{display:flex;justify-content:space-between;align-items:baseline;border-bottom:1px solid #d0d7de}
header a{color:inherit}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid #eaeef2}
.num{text-align:right}label{display:block;margin:.8rem 0 .2rem}input{padding:.4rem;font:inherit}
button{margin-top:.8rem;padding:.5rem 1rem;font:inherit;cursor:pointer}.note{color:#57606a;font-size:.9rem}`;

function page(title: string, cart: Cart, body: string): string {
  const n = count(cart);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Demo shop</title><style>${STYLE}</style></head>
<body><header><p><a href="/"><strong>Demo shop</strong></a></p><p><a href="/cart">Cart (${n} ${n === 1 ? 'item' : 'items'})</a></p></header>
<main>${body}</main>
<footer><p class="note">A shop your own fleet serves for agent runs to try: nothing is sold, nothing is kept.</p></footer>
</body></html>`;
}

export function homePage(cart: Cart): string {
  const rows = PRODUCTS.map(
    (p) =>
      `<tr><td><a href="/products/${p.slug}">${escapeHtml(p.name)}</a></td><td class="num">${euros(p.price)}</td></tr>`,
  ).join('');
  return page(
    'Products',
    cart,
    `<h1>Products</h1>
<table><thead><tr><th scope="col">Product</th><th scope="col" class="num">Price</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

export function productPage(p: Product, cart: Cart): string {
  return page(
    p.name,
    cart,
    `<h1>${escapeHtml(p.name)}</h1>
<p>${escapeHtml(p.about)}</p>
<p>Price: <strong id="price">${euros(p.price)}</strong></p>
<form method="post" action="/cart">
<input type="hidden" name="product" value="${p.slug}">
<label for="quantity">Quantity</label><input id="quantity" name="quantity" type="number" min="1" max="${MAX_QUANTITY}" value="1" required>
<button type="submit">Add to cart</button>
</form>`,
  );
}

export function cartPage(cart: Cart): string {
  if (cart.size === 0)
    return page('Cart', cart, '<h1>Cart</h1><p>Your cart is empty. <a href="/">See the products</a>.</p>');
  const rows = lines(cart)
    .map(
      (l) =>
        `<tr><td>${escapeHtml(l.product.name)}</td><td class="num">${l.quantity}</td><td class="num">${euros(l.product.price * l.quantity)}</td></tr>`,
    )
    .join('');
  return page(
    'Cart',
    cart,
    `<h1>Cart</h1>
<table><thead><tr><th scope="col">Product</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody>${rows}</tbody><tfoot><tr><th scope="row" colspan="2">Total</th><td class="num" id="total">${euros(totalOf(cart))}</td></tr></tfoot></table>
<h2>Check out</h2>
<form method="post" action="/checkout">
<label for="name">Name</label><input id="name" name="name" type="text" maxlength="100" autocomplete="name" required>
<label for="email">Email</label><input id="email" name="email" type="email" maxlength="254" autocomplete="email" required>
<button type="submit">Place order</button>
</form>
<form method="post" action="/cart/empty"><button type="submit">Empty the cart</button></form>`,
  );
}

/** An order's number: the same cart, name and email give the same one. */
export const orderNumber = (cart: Cart, name: string, email: string) =>
  `DEMO-${createHash('sha256')
    .update(`${writeCart(cart)}\n${name}\n${email.toLowerCase()}`)
    .digest('hex')
    .slice(0, 6)
    .toUpperCase()}`;

export function orderPage(cart: Cart, name: string, email: string): string {
  const items = lines(cart)
    .map((l) => `<li>${l.quantity} × ${escapeHtml(l.product.name)}, ${euros(l.product.price * l.quantity)}</li>`)
    .join('');
  return page(
    'Order placed',
    new Map(),
    `<h1>Order placed</h1>
<p>Thank you, ${escapeHtml(name)}. Your order number is <strong id="order">${orderNumber(cart, name, email)}</strong>.</p>
<ul>${items}</ul>
<p>Total: <strong>${euros(totalOf(cart))}</strong>. A confirmation would go to ${escapeHtml(email)}; this shop sends nothing.</p>`,
  );
}
