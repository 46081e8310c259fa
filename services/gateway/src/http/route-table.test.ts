// The route table answers every request exactly as express's router behind it would: the same
// routes, matched the same way (case, trailing slash, decoded parameters, order), errors to the
// same error handler, and what it does not take passed on. Two apps on loopback, one with the
// table in front and one without, get the same requests.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { routeTable, type TableRoute } from './route-table.js';

/** Which handlers ran, in order, per app. */
const trail: Record<string, string[]> = { table: [], express: [] };
/** The requests the table passed on to express. */
const passed: string[] = [];

function appOf(name: 'table' | 'express') {
  const mark =
    (label: string): RequestHandler =>
    (_req, _res, next) => {
      trail[name]?.push(label);
      next();
    };
  const answer: RequestHandler = (req, res) => {
    res.json({ params: req.params, path: req.path });
  };
  const routes: TableRoute[] = [
    { method: 'get', path: '/v1/crawl/active', handlers: [mark('active'), answer] },
    { method: 'get', path: '/v1/crawl/:id', handlers: [mark('guard'), answer] },
    {
      method: 'post',
      path: '/v1/fails/:id',
      handlers: [
        mark('guard'),
        async () => {
          throw Object.assign(new Error('refused'), { status: 422 });
        },
      ],
    },
    {
      method: 'get',
      path: '/v1/throws',
      handlers: [
        () => {
          throw Object.assign(new Error('thrown'), { status: 409 });
        },
      ],
    },
  ];
  const router = express.Router({ strict: false });
  for (const route of routes) router[route.method as 'get' | 'post'](route.path, ...route.handlers);
  router.all('/v1/crawl/:id', (_req, res) => {
    res.status(405).json({ error: 'method_not_allowed' });
  });
  const app = express();
  if (name === 'table')
    app.use(routeTable(routes), (req, _res, next) => {
      passed.push(`${req.method} ${req.originalUrl}`);
      next();
    });
  // A router the table lets requests skip, as the app's docs, console and MCP routers are skipped.
  app.use(express.Router().get('/docs', (_req, res) => void res.send('docs')));
  app.use(router);
  app.use((_req, res) => void res.status(404).json({ error: 'not_found' }));
  const errors: ErrorRequestHandler = (err: { status?: number; message: string }, _req, res, _next) => {
    res.status(err.status ?? 500).json({ error: err.message });
  };
  app.use(errors);
  return app;
}

const servers: Server[] = [];
const urls: Record<string, string> = {};

before(async () => {
  for (const name of ['table', 'express'] as const) {
    const server = appOf(name).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
});

after(() => {
  for (const server of servers) server.close();
});

const requests: [string, string][] = [
  ['GET', '/v1/crawl/abc'],
  ['GET', '/V1/Crawl/abc'],
  ['GET', '/v1/crawl/abc/'],
  ['GET', '/v1/crawl/active'],
  ['GET', '/v1/crawl/a%20b%2Fc'],
  ['GET', '/v1/crawl/%E0%A4%A'],
  ['GET', '/v1/crawl/abc?x=1'],
  ['GET', '/v1/crawl//'],
  ['GET', '/v1/crawl/abc/more'],
  ['HEAD', '/v1/crawl/abc'],
  ['DELETE', '/v1/crawl/abc'],
  ['POST', '/v1/fails/x'],
  ['GET', '/v1/throws'],
  ['GET', '/docs'],
  ['GET', '/v1/nothing'],
];

test('the table answers each request as express alone does', async () => {
  for (const [method, path] of requests) {
    const [withTable, alone] = await Promise.all(
      ['table', 'express'].map(async (name) => {
        const res = await fetch(`${urls[name]}${path}`, { method });
        return { status: res.status, body: await res.text() };
      }),
    );
    assert.deepEqual(withTable, alone, `${method} ${path}`);
  }
  assert.deepEqual(trail.table, trail.express, 'the same handlers ran, in the same order');
  // Express alone answers only what the table does not take.
  assert.deepEqual(passed, [
    'GET /v1/crawl/%E0%A4%A',
    'GET /v1/crawl//',
    'GET /v1/crawl/abc/more',
    'HEAD /v1/crawl/abc',
    'DELETE /v1/crawl/abc',
    'GET /docs',
    'GET /v1/nothing',
  ]);
});
