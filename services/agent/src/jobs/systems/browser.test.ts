// The run's browser against real Chromium over its CDP endpoint (as a host's
// session is reached), loopback pages, real NATS and real Postgres: pages
// billed, a navigation to the page the run is on refused, extracted text
// without a secret's value, a handed file given to the page, and a person's
// pages left off the bill once the wheel is handed back.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { sessionStreamNames } from '@wap/events';
import { until } from '@wap/testkit';
import { chromium } from 'playwright-core';
import { serveTestPages, type TestServer } from '../../browser/test-support.js';
import { newFileHandle, sealFile } from '../../domain/files.js';
import { elementIndex, type SystemsFixture, startTestRun, systemsFixture } from '../../test-support.js';
import type { BrowserSystem } from './browser.js';
import type { RunContext } from './context.js';
import { MeteringSystem } from './metering.js';

const FILES_KEY = 'f'.repeat(40);
const workspaceId = randomUUID();

let fx: SystemsFixture;
let pages: { site: TestServer; other: TestServer };

before(async () => {
  fx = await systemsFixture();
  pages = await serveTestPages();
  // What the article says of the fee is this workspace's secret: extract must not hand it on.
  await fx.stores.secrets.create(workspaceId, {
    handle: 'fee',
    domains: ['127.0.0.1'],
    value: { kind: 'env', value: '42 kroner' },
  });
});

afterEach(() => fx.release());

after(async () => {
  await pages.site.close();
  await pages.other.close();
  await fx.close();
});

/** A started run granted the secret `fee`, its metering, and its browser on a Chromium of its own. */
async function browserRun(): Promise<{ run: RunContext; metering: MeteringSystem; browser: BrowserSystem }> {
  const [secret] = await fx.db.secret.findMany({ where: { workspaceId, handle: 'fee' } });
  const run = await startTestRun(fx.stores, workspaceId, {
    grants: { secrets: [{ handle: 'fee', id: secret?.id ?? '' }], integrations: [], purchases: undefined },
    sessionId: randomUUID(),
  });
  const metering = new MeteringSystem(run, fx.ledger);
  const browser = await fx.browser(run, metering, { chromium: true, filesKey: FILES_KEY });
  return { run, metering, browser };
}

const eventsOf = (run: RunContext, kind: string) =>
  fx.stores.store
    .events(run.row.id, ['summary', 'step', 'debug'], 0n, 200)
    .then((e) => e.filter((x) => x.kind === kind));

describe('BrowserSystem', () => {
  test('the start page and each document after it is a billed page; the page the run is on is not loaded again', async () => {
    const { run, metering, browser } = await browserRun();
    const { origin } = pages.site;
    await browser.startPage(`${origin}/form`);
    assert.equal(metering.spentMc(), 1_000n, 'a page is a credit');
    const page = await browser.observe(false);
    assert.equal(page.url, `${origin}/form`);
    assert.equal(
      (await fx.stores.store.byId(run.row.id))?.site,
      '127.0.0.1',
      'where a person who takes over may drive',
    );

    const results: string[] = [];
    assert.deepEqual(await browser.act({ action: 'navigate', url: `${origin}/form#top` }, results, true), {
      done: 'failed',
      actMs: 0,
      documents: 0,
    });
    assert.match(results[0] ?? '', /not done, the browser is on that page already/);
    const moved = await browser.act({ action: 'navigate', url: `${origin}/choices` }, results, true);
    assert.equal(moved.done, 'changed', 'a navigation ends the step');
    assert.equal(moved.documents, 1, 'the act says the document it loaded');
    assert.equal(metering.spentMc(), 2_000n);
    assert.deepEqual(
      (await eventsOf(run, 'page')).map((e) => (e.data as { url: string }).url),
      [`${origin}/form`, `${origin}/choices`],
    );
  });

  test("what extract reads reaches the model without a secret's value", async () => {
    const { run, browser } = await browserRun();
    await browser.startPage(`${pages.site.origin}/article`);
    await browser.observe(false);
    const results: string[] = [];
    const read = await browser.act({ action: 'extract', query: 'What is the shipping fee to Norway?' }, results, false);
    assert.equal(read.done, 'ok');
    assert.match(run.memory.extracted ?? '', /shipping fee to Norway is \[secret fee\] per parcel/);
    const [withheld] = await eventsOf(run, 'dead_end');
    assert.deepEqual(withheld?.data, { code: 'secret_in_answer' });
    const [finding] = await eventsOf(run, 'finding');
    assert.doesNotMatch(JSON.stringify(finding?.data), /42 kroner/);
  });

  test("attach_file gives the page the run's file, opened from its seal", async () => {
    const { run, browser } = await browserRun();
    const bytes = Buffer.from('Ada Lovelace, analyst');
    const handle = newFileHandle();
    await fx.stores.store.addFile(workspaceId, run.row.id, {
      handle,
      name: 'cv.txt',
      mimeType: 'text/plain',
      size: bytes.length,
      sealed: sealFile(FILES_KEY, run.row.id, bytes),
    });
    await browser.startPage(`${pages.site.origin}/upload`);
    const page = await browser.observe(false);
    const index = elementIndex(page.elements, 'Choose a document');
    const results: string[] = [];
    const attached = await browser.act({ action: 'attach_file', index, file: handle }, results, false);
    assert.notEqual(attached.done, 'failed', results.join('\n'));
    const digest = createHash('sha256').update(bytes).digest('hex');
    await until('the page read the file', async () =>
      (await browser.observe(false)).elements.includes(`cv.txt ${bytes.length} text/plain ${digest}`),
    );
  });

  test("a person's pages are not billed, and the host is told the wheel is back", async () => {
    const { metering, browser } = await browserRun();
    const { origin } = pages.site;
    await browser.startPage(`${origin}/form`);
    const sessionId = randomUUID();
    const told: unknown[] = [];
    const host = fx.nats.nc.subscribe(sessionStreamNames(fx.namespace).liveInput(sessionId), {
      callback: (_err, msg) => {
        told.push(msg.json());
        msg.respond(JSON.stringify({ ok: true }));
      },
    });
    // The person drives the same browser over a connection of their own.
    const person = await chromium.connectOverCDP(fx.chromiumOf(browser)?.webSocketUrl ?? '');
    const [tab] = person.contexts()[0]?.pages() ?? [];
    await tab?.goto(`${origin}/article`);
    await tab?.goto(`${origin}/choices`);
    await person.close();
    await browser.handBack(sessionId);
    host.unsubscribe();
    assert.deepEqual(told, [{ release: true }]);
    const results: string[] = [];
    await browser.act({ action: 'scroll', direction: 'down' }, results, false);
    assert.equal(metering.spentMc(), 1_000n, 'the start page alone');
  });
});
