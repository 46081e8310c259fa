// The demo shop as an HTTP app (docs/demo.md), served by the gateway on DEMO_SITE, an address of
// its own that EGRESS_ALLOW lets agent runs reach (the API's address stays refused to them):
//
// - GET  /, /products      the products and their prices
// - GET  /products/{slug}  a product, with a form that adds it to the cart
// - POST /cart             product, quantity (1 to 9): into the cart cookie; 303 to /cart
// - GET  /cart             the cart, its total, and the checkout form
// - POST /cart/empty       empties the cart; 303 to /cart
// - POST /checkout         name, email: the order's page (its number), and the cart emptied
//
// A form that does not hold (an unknown product, a quantity out of range, a missing name or
// email, an empty cart) is 400 `bad_request` naming the field; any other path is 404 `not_found`.
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import express, { type Response } from 'express';
import { cookieFrom } from '../domain/credentials.js';
import { requestId } from '../http/app.js';
import { errorHandler } from '../http/errors.js';
import { textFields } from '../http/input.js';
import {
  type Cart,
  cartPage,
  homePage,
  MAX_QUANTITY,
  orderPage,
  productOf,
  productPage,
  readCart,
  SHOP_POLICY,
  writeCart,
} from './shop.js';

const CART_COOKIE = 'demo_cart';

const refuse = (path: string, message: string) => new ApiError('bad_request', { issues: [{ path, message }] });

function html(res: Response, body: string): void {
  res
    .type('html')
    .set({
      'Cache-Control': 'no-store',
      'Content-Security-Policy': SHOP_POLICY,
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    })
    .send(body);
}

function keepCart(res: Response, cart: Cart): void {
  const value = writeCart(cart);
  res.setHeader(
    'Set-Cookie',
    value
      ? `${CART_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax`
      : `${CART_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
  );
}

export function demoSite(log: Logger): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const cartOf = (cookie: string | undefined) => readCart(cookieFrom(cookie, CART_COOKIE));

  // The products at /products too: where a model that read the heading "Products" may look for them.
  app.get(['/', '/products'], (req, res) => html(res, homePage(cartOf(req.headers.cookie))));
  app.get('/products/:slug', (req, res) => {
    const product = productOf(String(req.params.slug));
    if (!product) throw new ApiError('not_found');
    html(res, productPage(product, cartOf(req.headers.cookie)));
  });
  app.get('/cart', (req, res) => html(res, cartPage(cartOf(req.headers.cookie))));
  app.post('/cart', form, (req, res) => {
    const body = textFields(req.body);
    const product = productOf(body.product ?? '');
    if (!product) throw refuse('body.product', 'is not a product of the shop');
    const cart = cartOf(req.headers.cookie);
    const quantity = Number(body.quantity);
    const total = (cart.get(product.slug) ?? 0) + quantity;
    if (!Number.isInteger(quantity) || quantity < 1 || total > MAX_QUANTITY)
      throw refuse('body.quantity', `must be a whole number from 1, up to ${MAX_QUANTITY} of a product in the cart`);
    cart.set(product.slug, total);
    keepCart(res, cart);
    res.redirect(303, '/cart');
  });
  app.post('/cart/empty', (_req, res) => {
    keepCart(res, new Map());
    res.redirect(303, '/cart');
  });
  app.post('/checkout', form, (req, res) => {
    const body = textFields(req.body);
    const cart = cartOf(req.headers.cookie);
    const name = (body.name ?? '').trim();
    const email = (body.email ?? '').trim();
    if (cart.size === 0) throw refuse('cookie.demo_cart', 'is empty: add a product first');
    if (!name || name.length > 100) throw refuse('body.name', 'is required, 100 characters at most');
    if (!/^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254)
      throw refuse('body.email', 'is not an email address');
    keepCart(res, new Map());
    html(res, orderPage(cart, name, email));
  });

  app.use((_req, _res, next) => next(new ApiError('not_found')));
  app.use(errorHandler(log));
  return app;
}
