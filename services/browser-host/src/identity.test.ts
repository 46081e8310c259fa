// Both engines present one browser (docs/decisions/0011-browser-identity.md):
// the fetch engine's User-Agent and client hints are what browser-host's
// Chromium sends, and those agree with the Chromium installed.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { CHROMIUM_MAJOR, CLIENT_HINT_HEADERS, chromiumBrands, createFetchAgent, fetchPage } from '@wap/fetch';
import { createLogger } from '@wap/log';
import { AllowList } from '@wap/netguard';
import { browser as proto } from '@wap/proto';
import { EgressProxy } from './egress/proxy.js';
import { BrowserPool } from './pool/pool.js';
import { render } from './render.js';

const log = createLogger({ service: 'test', level: 'error', destination: new Writable({ write: (_c, _e, d) => d() }) });
const IDENTITY = ['user-agent', ...CLIENT_HINT_HEADERS];

let site: Server;
let base: string;
let egress: EgressProxy;
let pool: BrowserPool;
const seen = new Map<string, IncomingHttpHeaders>();

before(async () => {
  site = createServer((req, res) => {
    seen.set(req.url ?? '', req.headers);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>who is asking</p></body></html>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  egress = new EgressProxy(new AllowList(['127.0.0.0/8']));
  await egress.start();
  pool = new BrowserPool({
    executablePath: '/usr/bin/chromium',
    size: 1,
    pagesPerBrowser: 2,
    recycleAfterPages: 10,
    log,
  });
});
after(async () => {
  await pool.close();
  await egress.stop();
  site.close();
});

const pick = (headers: IncomingHttpHeaders | undefined) => Object.fromEntries(IDENTITY.map((h) => [h, headers?.[h]]));

for (const mobile of [false, true]) {
  test(`the fetch engine and the browser present one ${mobile ? 'mobile' : 'desktop'} identity`, async () => {
    const path = `/${mobile ? 'mobile' : 'desktop'}`;
    await pool.with((b) =>
      render(
        b,
        egress,
        create(proto.RenderRequestSchema, { url: `${base}${path}/browser`, timeoutMs: 15_000, mobile }),
        new AbortController().signal,
      ),
    );
    const agent = createFetchAgent({ allow: new AllowList(['127.0.0.0/8']) });
    await fetchPage(`${base}${path}/fetch`, { agent, mobile });
    const browser = pick(seen.get(`${path}/browser`));
    assert.ok(browser['sec-ch-ua'], 'the browser sends client hints');
    assert.doesNotMatch(String(browser['user-agent']), /Headless/);
    assert.deepEqual(pick(seen.get(`${path}/fetch`)), browser);
  });
}

test('the identity is the installed Chromium, GREASE brand and all', async () => {
  // A page with no override shows what this Chromium says of itself.
  const own = await pool.with(async (b) => {
    const page = await b.newPage();
    try {
      await page.goto(`${base}/own`); // userAgentData is there in secure contexts only; loopback is one
      return {
        version: await b.version(),
        brands: await page.evaluate(
          () => (navigator as unknown as { userAgentData: { brands: unknown } }).userAgentData.brands,
        ),
      };
    } finally {
      await page.close();
    }
  });
  const major = Number(/\/(\d+)\./.exec(own.version)?.[1]);
  assert.equal(major, CHROMIUM_MAJOR, 'CHROMIUM_MAJOR in libs/fetch names the installed Chromium');
  assert.deepEqual(own.brands, chromiumBrands(major));
});
