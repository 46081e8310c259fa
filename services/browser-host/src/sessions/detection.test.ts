// The detection suite (@wap/testsite's detection site: CreepJS's headless
// checks, the classic ones, and our own consistency and prototype audit)
// against both of the host's browsers: a session browser driven by a CDP
// client, and the render pool's (every scrape, crawl, search render and
// monitor). Stealth off shows the suite can tell headless Chromium. Real
// Chromium, the real egress proxy, a loopback site on two addresses.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { AllowList } from '@wap/netguard';
import { browser as proto } from '@wap/proto';
import {
  type DetectionSite,
  SEEN_WITH_RUNTIME,
  STILL_SEEN,
  startDetectionSite,
  type Verdict,
  type VisitPage,
} from '@wap/testsite';
import puppeteer from 'puppeteer-core';
import { atPlace, browserFace } from '../domain/browser-face.js';
import { placeFace } from '../domain/exit-place.js';
import { sessionSettings } from '../domain/session-options.js';
import { startTestHost } from '../test-support.js';
import { quietRuntime } from './quiet-runtime.js';
import { chromiumVersion, launchSessionBrowser } from './session-browser.js';

const CHROMIUM = '/usr/bin/chromium';
let site: DetectionSite;

before(async () => {
  site = await startDetectionSite();
});
after(() => site.close());

const failed = (verdict: Verdict) => verdict.checks.filter((c) => !c.passed);
const names = (verdict: Verdict) => failed(verdict).map((c) => c.name);
const explain = (verdict: Verdict) => JSON.stringify(failed(verdict), null, 1);

/** A visit of the detection page (or the held-out detectors') by a CDP client of a session browser launched with `options`. */
async function sessionVerdict(
  options: { stealth?: boolean; record?: boolean; page?: VisitPage; country?: string; quiet?: boolean } = {},
): Promise<Verdict> {
  const settings = sessionSettings({ stealth: options.stealth ?? true } as Parameters<typeof sessionSettings>[0]);
  const face = browserFace(
    atPlace(settings, undefined, placeFace({ ...(options.country && { country: options.country }) })),
    chromiumVersion(CHROMIUM),
  );
  const launched = await launchSessionBrowser(CHROMIUM, AllowList.parse('127.0.0.0/8'), face, {
    record: options.record ?? false,
  });
  const channel = await launched.openChannel();
  const transport = options.quiet ? quietRuntime(channel) : channel;
  const client = await puppeteer.connect({ transport, defaultViewport: null });
  try {
    const page = await client.newPage();
    const visit = site.visit(options.page);
    await page.goto(visit.url);
    return await site.verdict(visit.id);
  } finally {
    await client.disconnect();
    await launched.close();
  }
}

test('a session browser passes every check of the detection suite', async () => {
  const verdict = await sessionVerdict();
  assert.ok(verdict.total >= 25, `${verdict.total} checks`);
  assert.equal(verdict.passed, verdict.total, explain(verdict));
});

test('a recorded session browser passes every check too: the recorder leaves nothing in the page', async () => {
  const verdict = await sessionVerdict({ record: true });
  assert.equal(verdict.passed, verdict.total, explain(verdict));
});

/**
 * The held-out detectors see nothing but what docs/connect.md says they still
 * see; a stock CDP client's Runtime.enable only where `runtimeEnabled`.
 */
function assertHeldOut(engine: string, verdict: Verdict, { runtimeEnabled = false } = {}) {
  console.log(`held-out detectors, ${engine}: ${verdict.passed} of ${verdict.total} checks passed`);
  assert.ok(verdict.total >= 40, `${verdict.total} checks`);
  assert.deepEqual(
    failed(verdict).filter((c) => !STILL_SEEN[c.name] && !(runtimeEnabled && SEEN_WITH_RUNTIME[c.name])),
    [],
    engine,
  );
}

test('the held-out detectors see no more in a session browser, recorded or not, than docs/connect.md says', async () => {
  for (const record of [false, true])
    assertHeldOut(
      `session browser${record ? ', recorded' : ''}`,
      await sessionVerdict({ record, page: 'held-out', country: 'US' }),
      { runtimeEnabled: true },
    );
});

test("behind the quiet runtime (an agent run's session), the console trap is not sprung", async () => {
  const verdict = await sessionVerdict({ record: true, page: 'held-out', country: 'US', quiet: true });
  assertHeldOut('session browser, quiet runtime, recorded', verdict);
  assert.ok(verdict.checks.some((c) => c.name === 'fpscanner.hasCDP' && c.passed));
});

test("a session browser's clock is UTC when nothing says where its traffic comes out", async () => {
  assert.deepEqual(
    names(await sessionVerdict({ page: 'held-out' })).filter((n) => !STILL_SEEN[n] && !SEEN_WITH_RUNTIME[n]),
    ['fpscanner.hasUTCTimezone'],
  );
});

test('the held-out detectors see headless Chromium with stealth off', async () => {
  const seen = names(await sessionVerdict({ stealth: false, page: 'held-out' }));
  for (const name of ['botd', 'fpscanner.hasWebdriver', 'fpscanner-classic.HEADCHR_UA'])
    assert.ok(seen.includes(name), `${name} among ${seen}`);
});

test('with stealth off the suite sees headless Chromium', async () => {
  const seen = names(await sessionVerdict({ stealth: false }));
  for (const name of ['webDriverIsOn', 'hasHeadlessUA', 'hasHeadlessWorkerUA'])
    assert.ok(seen.includes(name), `${name} among ${seen}`);
});

test("the render pool's browser passes every check of the detection suite, desktop", async () => {
  const host = await startTestHost((_req, res) => res.end());
  try {
    const visit = site.visit();
    const out = await host.run(
      create(proto.RenderRequestSchema, { url: visit.url, waitForSelector: '#done', timeoutMs: 20_000 }),
    );
    assert.match(out.html, /id="done"/);
    const verdict = await site.verdict(visit.id);
    assert.equal(verdict.passed, verdict.total, explain(verdict));
  } finally {
    await host.close();
  }
});

test("the held-out detectors see no more in the render pool's browser than docs/connect.md says", async () => {
  // Where the host's traffic comes out: its renders keep that place's time.
  const host = await startTestHost((_req, res) => res.end(), 10, { EGRESS_PLACE: '{"country":"US"}' });
  try {
    const visit = site.visit('held-out');
    const out = await host.run(
      create(proto.RenderRequestSchema, { url: visit.url, waitForSelector: '#done', timeoutMs: 30_000 }),
    );
    assert.match(out.html, /id="done"/);
    assertHeldOut('render pool', await site.verdict(visit.id));
  } finally {
    await host.close();
  }
});

test('a mobile render is one phone in its page, its frames, its workers and on the wire', async () => {
  const host = await startTestHost((_req, res) => res.end());
  try {
    const visit = site.visit();
    await host.run(
      create(proto.RenderRequestSchema, { url: visit.url, waitForSelector: '#done', timeoutMs: 20_000, mobile: true }),
    );
    const verdict = await site.verdict(visit.id);
    const wanted = ['highEntropyHintsFilled', 'hintsMatchUserAgent', 'clientHintHeaders', 'highEntropyHintHeaders'];
    const seen = failed(verdict).filter((c) => wanted.includes(c.name));
    assert.deepEqual(seen, []);
  } finally {
    await host.close();
  }
});
