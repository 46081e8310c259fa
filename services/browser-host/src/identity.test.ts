// Both engines present one browser (docs/decisions/0011-browser-identity.md):
// the fetch engine's User-Agent and client hints are what browser-host's
// Chromium sends, and those agree with the Chromium installed.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { CHROMIUM_MAJOR, CLIENT_HINT_HEADERS, chromiumBrands, createFetchAgent, fetchPage } from '@wap/fetch';
import { AllowList } from '@wap/netguard';
import { browser as proto } from '@wap/proto';
import { startTestHost, type TestHost } from './test-support.js';

const IDENTITY = ['user-agent', ...CLIENT_HINT_HEADERS];

let t: TestHost;
const seen = new Map<string, IncomingHttpHeaders>();

before(async () => {
  t = await startTestHost((req, res) => {
    seen.set(req.url ?? '', req.headers);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>who is asking</p></body></html>');
  });
});
after(() => t.close());

const pick = (headers: IncomingHttpHeaders | undefined) => Object.fromEntries(IDENTITY.map((h) => [h, headers?.[h]]));

for (const mobile of [false, true]) {
  test(`the fetch engine and the browser present one ${mobile ? 'mobile' : 'desktop'} identity`, async () => {
    const path = `/${mobile ? 'mobile' : 'desktop'}`;
    await t.run(create(proto.RenderRequestSchema, { url: `${t.base}${path}/browser`, timeoutMs: 15_000, mobile }));
    const agent = createFetchAgent({ allow: new AllowList(['127.0.0.0/8']) });
    await fetchPage(`${t.base}${path}/fetch`, { agent, mobile });
    const browser = pick(seen.get(`${path}/browser`));
    assert.ok(browser['sec-ch-ua'], 'the browser sends client hints');
    assert.doesNotMatch(String(browser['user-agent']), /Headless/);
    assert.deepEqual(pick(seen.get(`${path}/fetch`)), browser);
  });
}

test('the identity is the installed Chromium, GREASE brand and all', async () => {
  // A page with no override shows what this Chromium says of itself.
  const own = await t.host.deps.pool.with(async (b) => {
    const page = await b.newPage();
    try {
      await page.goto(`${t.base}/own`); // userAgentData is there in secure contexts only; loopback is one
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
