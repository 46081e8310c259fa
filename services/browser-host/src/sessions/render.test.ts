import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { isApiError } from '@wap/errors';
import { AllowList } from '@wap/netguard';
import { browser as proto } from '@wap/proto';
import { freePort, until } from '@wap/testkit';
import { EgressProxy } from '../egress/proxy.js';
import type { BrowserPool } from '../pool/pool.js';
import { startTestHost, type TestHost } from '../test-support.js';
import { render } from './render.js';

const PAGES: Record<string, string> = {
  '/static': '<html><head><title>Static</title></head><body><p>Plain words.</p></body></html>',
  '/scripted':
    '<html><body><div id="app"></div><script>setTimeout(() => { document.getElementById("app").innerHTML = "<p id=late>Rendered by script</p>" }, 50)</script></body></html>',
  '/button':
    '<html><body><button id="b" onclick="document.body.insertAdjacentHTML(\'beforeend\', \'<p id=shown>Clicked!</p>\')">go</button></body></html>',
  '/link': '<html><body><a id="next" href="/static">next</a></body></html>',
  '/metadata-probe':
    '<html><body><p>probe</p><script>fetch("http://169.254.169.254/latest/meta-data/").catch(() => {}); fetch("http://10.1.2.3/").catch(() => {})</script></body></html>',
};

let t: TestHost;
let pool: BrowserPool;

before(async () => {
  t = await startTestHost((req, res) => {
    if (req.url === '/set-cookie') {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=secret-1; Path=/' }).end('<p>set</p>');
      return;
    }
    if (req.url === '/echo-cookie') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<p id=c>cookie=[${req.headers.cookie ?? ''}]</p>`);
      return;
    }
    const page = PAGES[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' }).end(page ?? 'not here');
  }, 3);
  pool = t.host.deps.pool;
});
after(() => t.close());

const request = (path: string, init: Omit<Partial<proto.RenderRequest>, '$typeName'> = {}) =>
  create(proto.RenderRequestSchema, { url: `${t.base}${path}`, timeoutMs: 15_000, ...init });
const run = (req: proto.RenderRequest) => t.run(req);

test('renders script-made content through the egress and counts its bytes', async () => {
  const out = await run(request('/scripted', { waitForSelector: '#late' }));
  assert.equal(out.status, 200);
  assert.match(out.html, /Rendered by script/);
  assert.equal(out.finalUrl, `${t.base}/scripted`);
  assert.ok(out.proxyBytes > 0n, 'the page came through the egress proxy');
});

test('actions run before capture, and a screenshot is a PNG', async () => {
  const out = await run(
    request('/button', {
      actions: [create(proto.ActionSchema, { kind: { case: 'click', value: { selector: '#b' } } })],
      screenshot: true,
    }),
  );
  assert.match(out.html, /Clicked!/);
  assert.deepEqual([...out.screenshot.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
});

test('an action that loads another document: waits, scrolls and the HTML are of the new one', async () => {
  // Each new document's worlds are made anew for Puppeteer, without Runtime enabled (quiet-runtime.ts).
  const out = await run(
    request('/link', {
      actions: [
        create(proto.ActionSchema, { kind: { case: 'click', value: { selector: '#next' } } }),
        create(proto.ActionSchema, { kind: { case: 'wait', value: { selector: 'p' } } }),
        create(proto.ActionSchema, { kind: { case: 'scroll', value: { direction: 'down' } } }),
      ],
    }),
  );
  assert.equal(out.finalUrl, `${t.base}/static`);
  assert.match(out.html, /Plain words\./);
});

test("a page's own requests to private and metadata addresses are refused", async () => {
  const out = await run(request('/metadata-probe', { waitUntil: proto.WaitUntil.NETWORK_IDLE }));
  assert.equal(out.status, 200);
  assert.ok(
    out.blockedRequests.some((b) => b.includes('169.254.169.254')),
    out.blockedRequests.join('; '),
  );
  assert.ok(
    out.blockedRequests.some((b) => b.includes('10.1.2.3')),
    out.blockedRequests.join('; '),
  );
});

test('without the allow-list, a loopback page is unreachable', async () => {
  const strict = new EgressProxy(new AllowList());
  await strict.start();
  try {
    const err = await pool
      .with((b) => render(b, strict, request('/static'), new AbortController().signal))
      .catch((e: unknown) => e);
    assert.ok(isApiError(err), String(err));
    assert.equal(err.code, 'page_unreachable');
    assert.equal((err.details as { reason: string }).reason, 'private_address');
  } finally {
    await strict.stop();
  }
});

test('a crashed browser is replaced and the next render works', async () => {
  const killed = await pool.with(async (b) => {
    // The browser's pipe is the pool's: Chromium crashes itself when told to.
    const cdp = await b.target().createCDPSession();
    void cdp.send('Browser.crash').catch(() => undefined);
    return b;
  });
  // The pool hears of the crash from the browser's own disconnect; the next render must not land on it.
  await until('the killed Chromium is disconnected', async () => !killed.connected);
  const out = await run(request('/static'));
  assert.match(out.html, /Plain words/);
});

test('one render never sees the cookies of another', async () => {
  assert.equal((await run(request('/set-cookie'))).status, 200);
  const [a, b] = await Promise.all([run(request('/echo-cookie')), run(request('/echo-cookie'))]);
  assert.match(a.html, /cookie=\[\]/);
  assert.match(b.html, /cookie=\[\]/);
});

/** The `page_unreachable` reason a render fails with (and fails the test when it does not). */
async function unreachableReason(req: proto.RenderRequest) {
  const err = await run(req).then(
    (out) => assert.fail(`rendered with status ${out.status}`),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  assert.equal(err.code, 'page_unreachable', JSON.stringify(err.details));
  return (err.details as { reason: string }).reason;
}

test('a name that does not resolve is dns, as the fetch engine says (not the proxy answer 404)', async () => {
  assert.equal(await unreachableReason(create(proto.RenderRequestSchema, { url: 'http://nowhere.invalid/' })), 'dns');
  assert.equal(
    await unreachableReason(create(proto.RenderRequestSchema, { url: 'https://nowhere.invalid/' })),
    'dns',
    'through a tunnel too',
  );
});

test('a refused port is connect, over HTTP and through a tunnel', async () => {
  const port = await freePort(); // free a moment ago: nothing listens there
  for (const scheme of ['http', 'https'])
    assert.equal(
      await unreachableReason(create(proto.RenderRequestSchema, { url: `${scheme}://127.0.0.1:${port}/` })),
      'connect',
      scheme,
    );
});

test('a header Chromium refuses is bad_request naming the header, not an internal error', async () => {
  for (const headers of [{ 'bad name': 'x' }, { 'x-ok': 'line\r\nbreak' }] as Record<string, string>[]) {
    const err = await run(request('/static', { headers })).catch((e: unknown) => e);
    assert.ok(isApiError(err), String(err));
    assert.equal(err.code, 'bad_request');
    const issues = (err.details as { issues: { path: string }[] }).issues;
    assert.equal(issues[0]?.path, `headers.${Object.keys(headers)[0]}`);
  }
  assert.equal((await run(request('/static', { headers: { 'x-fine': 'yes' } }))).status, 200);
});
