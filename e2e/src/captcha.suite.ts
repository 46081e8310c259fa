// Captchas as a user meets them through the fleet (docs/connect.md,
// "Captchas"), on @wap/testsite's captcha site: a browser scrape passes the
// real ALTCHA widget's wall and says so in `metadata.captcha`; one left
// behind a challenge page it cannot pass answers 422 page_unreachable,
// reason `blocked`, naming the captcha; a /connect
// client hears Captcha.found over CDP and has its page solved with
// Captcha.solve, as Browserless's clients do; an agent run whose start page
// stays behind a captcha pauses for a person (`pausedFor: control`) with a
// question saying why, and goes on once handed back. The fleet has no solver
// provider: token widgets are found and left (browser-host's tests hand them
// to a fake one).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { type CaptchaSite, startCaptchaSite } from '@wap/testsite';
import puppeteer from 'puppeteer-core';
import { call } from './api.js';
import { auth, workspaces } from './connect-fixtures.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: CaptchaSite;
const { workspace } = workspaces(() => fleet);

interface Scraped {
  data: { markdown?: string; metadata?: { captcha?: Record<string, unknown> } };
}

describe('captchas through the fleet', () => {
  before(async () => {
    // A light proof of work: the figure at altcha-lib's example cost is in make bench.
    site = await startCaptchaSite({ altcha: { cost: 500, counter: [500, 1_000] } });
    await sharedFleet('browsers');
  });

  after(() => site?.close());

  test('a scrape passes a proof-of-work wall and says so in its metadata', async () => {
    const { apiKey } = await workspace('free');
    const r = await call<Scraped>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key: apiKey,
      body: { url: `${site.url}/captcha/altcha?wall=1`, engine: 'browser', formats: ['markdown'] },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.markdown ?? '', /What the check kept/);
    const captcha = r.body.data.metadata?.captcha;
    assert.deepEqual(
      { found: captcha?.found, outcome: captcha?.outcome, method: captcha?.method, blocked: captcha?.blocked },
      { found: ['altcha'], outcome: 'solved', method: 'pow', blocked: false },
    );
    assert.deepEqual(site.passed.at(-1), { kind: 'altcha', ok: true });
  });

  test('a scrape left behind a challenge page is page_unreachable, blocked, naming it', async () => {
    const { apiKey } = await workspace('free');
    const r = await call<{ code: string; details: Record<string, unknown> }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key: apiKey,
      body: { url: `${site.url}/captcha/cloudflare-interstitial`, engine: 'browser', formats: ['markdown'] },
    });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, 'page_unreachable');
    assert.equal(r.body.details.reason, 'blocked');
    assert.equal(r.body.details.captcha, 'cloudflare_interstitial');
  });

  test('a /connect client hears Captcha.found and has its page solved with Captcha.solve', async () => {
    const { apiKey } = await workspace('free');
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${fleet.gatewayUrl.replace(/^http/, 'ws')}/connect`,
      headers: auth(apiKey),
      defaultViewport: null,
    });
    try {
      const page = await browser.newPage();
      const cdp = await page.createCDPSession();
      const found = new Promise<{ targetId: string; kinds: string[] }>((resolve) =>
        cdp.once('Captcha.found' as never, resolve as never),
      );
      const events: string[] = [];
      for (const name of ['solving', 'solved', 'failed'])
        cdp.on(`Captcha.${name}` as never, (() => events.push(name)) as never);
      await cdp.send('Captcha.enable' as never);
      await page.goto(`${site.url}/captcha/altcha?wall=1`);
      assert.deepEqual((await found).kinds, ['altcha']);
      const report = (await cdp.send('Captcha.solve' as never)) as unknown as { outcome: string; method: string };
      assert.equal(report.outcome, 'solved');
      assert.equal(report.method, 'pow');
      await page.waitForFunction("document.title === 'Through'");
      assert.deepEqual(events, ['solving', 'solved']);
      // A page with no captcha has nothing to solve.
      await page.goto(`${site.url}/captcha/passed`);
      const none = (await cdp.send('Captcha.solve' as never)) as unknown as { outcome: string };
      assert.equal(none.outcome, 'none');
    } finally {
      await browser.close();
    }
  });

  test('an agent run left behind a captcha pauses for a person, saying why, and goes on once handed back', async () => {
    const { apiKey } = await workspace('pro');
    const url = `${site.url}/captcha/hcaptcha?wall=1`;
    const submitted = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/agent', {
      key: apiKey,
      body: { task: 'Read the page behind the check', url },
    });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const { id } = submitted.body;
    type Run = { status: string; pausedFor: string | null };
    const read = async () =>
      (await call<{ run: Run }>(fleet.gatewayUrl, 'GET', `/v1/agent/${id}`, { key: apiKey })).body.run;
    await until('the run to pause for control', async () => (await read()).pausedFor === 'control', 90_000);
    const events = await call<{ events: { kind: string; message: string; data: Record<string, unknown> }[] }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/agent/${id}/events?level=debug&limit=500`,
      { key: apiKey },
    );
    const question = events.body.events.find((e) => e.kind === 'question');
    assert.match(question?.message ?? '', /hcaptcha captcha/);
    assert.equal(question?.data.takeOver, `/v1/agent/${id}/control`);
    assert.ok(events.body.events.some((e) => e.kind === 'captcha' && e.data.outcome === 'unsupported'));
    // The status says why it paused: nobody took control yet.
    const statuses = events.body.events.filter((e) => e.kind === 'status').map((e) => e.message);
    assert.ok(statuses.includes('paused: a hcaptcha captcha waits for a person'), statuses.join('; '));
    assert.ok(!statuses.includes('paused: a person took control'), statuses.join('; '));
    // The person takes over (the link the question names), then hands back: the run goes on and ends.
    const taken = await call<{ controlUrl: string | null }>(fleet.gatewayUrl, 'POST', `/v1/agent/${id}/control`, {
      key: apiKey,
      body: { action: 'take' },
    });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.ok(taken.body.controlUrl);
    const released = await call(fleet.gatewayUrl, 'POST', `/v1/agent/${id}/control`, {
      key: apiKey,
      body: { action: 'release' },
    });
    assert.equal(released.status, 200, JSON.stringify(released.body));
    await until('the run to settle', async () => (await read()).status === 'settled', 90_000);
  });
});
