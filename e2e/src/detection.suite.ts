// The detection suite (@wap/testsite's detection site; docs/connect.md, "What
// a detector sees"), and the held-out detectors (BotD, fpscanner old and new,
// headless-detector), against every engine through the real fleet: GET
// /connect driven by unmodified Puppeteer and Playwright, and POST /v1/scrape
// with the browser engine (the render pool every crawl, search render and
// monitor uses too). Each engine's count of checks passed is printed. The
// clients keep the session's window (Puppeteer's defaultViewport: null,
// Playwright's viewport: null), as docs/connect.md advises: their own
// viewport emulation would replace the face's window and screen.
//
// The fleet records every session and render (docs/sessions.md): the
// recorder runs in an isolated world and patches nothing a page can reach,
// so the prototype audit passes recorded too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type DetectionSite,
  SEEN_WITH_RUNTIME,
  STILL_SEEN,
  startDetectionSite,
  type Verdict,
  type VisitPage,
} from '@wap/testsite';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { call } from './api.js';
import { auth, workspaces } from './connect-fixtures.js';
import { step } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

let site: DetectionSite;
const { workspace } = workspaces(() => fleet);
const wsBase = () => fleet.gatewayUrl.replace(/^http/, 'ws');

/**
 * The held-out detectors (docs/connect.md, "What a detector sees") see no
 * more than that page says; the shared fleet sets no EGRESS_PLACE, so its
 * browsers keep UTC, which fpscanner reports. A stock client's
 * `Runtime.enable` is seen only where `runtimeEnabled`: the host's own
 * renders never enable it.
 */
function assertHeldOut(engine: string, verdict: Verdict, { runtimeEnabled = false } = {}) {
  console.log(`held-out detectors, ${engine}: ${verdict.passed} of ${verdict.total} checks passed`);
  assert.ok(verdict.total >= 40, `${verdict.total} checks`);
  const expected = (name: string) =>
    STILL_SEEN[name] || (runtimeEnabled && SEEN_WITH_RUNTIME[name]) || name === 'fpscanner.hasUTCTimezone';
  assert.deepEqual(
    verdict.checks.filter((c) => !c.passed && !expected(c.name)),
    [],
    engine,
  );
}

/** Every check passes. */
function assertClean(engine: string, verdict: Verdict) {
  console.log(`detection suite, ${engine}: ${verdict.passed} of ${verdict.total} checks passed`);
  assert.ok(verdict.total >= 25, `${verdict.total} checks`);
  assert.deepEqual(
    verdict.checks.filter((c) => !c.passed),
    [],
    engine,
  );
}

describe('the detection suite on every engine', () => {
  before(async () => {
    site = await startDetectionSite();
    await sharedFleet('browsers');
  });

  after(() => site?.close());

  test('GET /connect with Puppeteer', async () => {
    const { apiKey } = await workspace('free');
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${wsBase()}/connect`,
      headers: auth(apiKey),
      defaultViewport: null,
    });
    try {
      const page = await browser.newPage();
      const visit = site.visit();
      await page.goto(visit.url);
      assertClean('connect, Puppeteer', await site.verdict(visit.id));
      const heldOut = site.visit('held-out');
      await page.goto(heldOut.url);
      assertHeldOut('connect, Puppeteer', await site.verdict(heldOut.id), { runtimeEnabled: true });
    } finally {
      await browser.close();
    }
  });

  test('GET /connect with Playwright, in its default context and in a new one', async () => {
    const { apiKey } = await workspace('free');
    const browser = await chromium.connectOverCDP(`${fleet.gatewayUrl}/connect`, { headers: auth(apiKey) });
    try {
      const contexts = [
        browser.contexts()[0] ?? (await browser.newContext({ viewport: null })),
        await browser.newContext({ viewport: null }),
      ];
      for (const [n, context] of contexts.entries()) {
        const page = await context.newPage();
        const visit = site.visit();
        await page.goto(visit.url);
        assertClean(`connect, Playwright, context ${n}`, await site.verdict(visit.id));
        const heldOut = site.visit('held-out');
        await page.goto(heldOut.url);
        assertHeldOut(`connect, Playwright, context ${n}`, await site.verdict(heldOut.id), {
          runtimeEnabled: true,
        });
      }
    } finally {
      await browser.close();
    }
  });

  /** A scrape of a visit of `page` with the browser engine, waiting for the page's verdict. */
  const scrape = async (page: VisitPage) => {
    const { apiKey } = await workspace('free');
    const visit = site.visit(page);
    const r = await call<{ data: { markdown?: string } }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
      key: apiKey,
      body: {
        url: visit.url,
        engine: 'browser',
        formats: ['markdown'],
        onlyMainContent: false,
        timeout: 60_000,
        actions: [{ type: 'wait', selector: '#done' }],
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.markdown ?? '', /checks passed/);
    return site.verdict(visit.id);
  };

  test('POST /v1/scrape with the browser engine', async () => {
    assertClean('scrape, browser engine', await scrape('suite'));
  });

  test('POST /v1/scrape with the browser engine, the held-out detectors', async () => {
    assertHeldOut('scrape, browser engine', await scrape('held-out'));
  });

  test("POST /v1/agent: the run's browser, the held-out detectors on its start page", async () => {
    const { apiKey } = await workspace('pro');
    const visit = site.visit('held-out');
    // The run waits on its start page while the detectors run there, then finishes.
    const task = `Read the detectors' page ${visit.id}`;
    let steps = 0;
    scripted.scripts.set(task, () =>
      steps++ === 0
        ? step([{ action: 'wait', seconds: 5 }])
        : step([{ action: 'finish', success: true, answer: 'read' }]),
    );
    const submitted = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/agent', {
      key: apiKey,
      body: { task, url: visit.url },
    });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    assertHeldOut('agent run', await site.verdict(visit.id, 90_000));
  });
});
