// A run's secrets and purchases against real Postgres (sealed secrets, their
// single-use intents), real Chromium on loopback pages of two hosts, and the
// pause store: a login filled where it may be and refused where it may not,
// a frame of another host included; a purchase past a limit ending the run;
// one within them approved by a person, recorded, its card filled and its
// CVC used once; a denied one ending the run.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { sealText } from '@wap/sealed';
import { OTHER_HOST_RULE, serveTestPages, type TestServer } from '../../browser/test-support.js';
import { CVC_PURPOSE } from '../../domain/secrets.js';
import type { PurchaseLimits } from '../../store/grants.js';
import {
  elementIndex,
  type SystemsFixture,
  startTestRun,
  systemsFixture,
  TEST_SECRETS_KEY,
} from '../../test-support.js';
import { Stop } from './context.js';
import { MeteringSystem } from './metering.js';
import { PauseSystem } from './pauses.js';
import { SecretSystem } from './secrets.js';

const workspaceId = randomUUID();
const PASSWORD = 'pw-Lovelace-1815';
const LIMITS: PurchaseLimits = { spendCap: 5_000, perPurchaseLimit: 3_000, currency: 'EUR', merchants: [] };

let fx: SystemsFixture;
let pages: { site: TestServer; other: TestServer };
const ids: Record<string, string> = {};

before(async () => {
  fx = await systemsFixture();
  pages = await serveTestPages();
  const login = await fx.stores.secrets.create(workspaceId, {
    handle: 'shop',
    domains: ['127.0.0.1'],
    value: { kind: 'login', username: 'ada@example.org', password: PASSWORD },
  });
  const card = await fx.stores.secrets.create(workspaceId, {
    handle: 'visa',
    domains: ['127.0.0.1'],
    value: { kind: 'card', number: '4242424242424242', expMonth: 12, expYear: 2031, holder: 'Ada Lovelace' },
  });
  ids.shop = login?.id ?? '';
  ids.visa = card?.id ?? '';
});

afterEach(() => fx.release());

after(async () => {
  await pages.site.close();
  await pages.other.close();
  await fx.close();
});

/** A run granted the login and the card (and purchases within LIMITS), on `path` of the site, with its secrets. */
async function secretRun(path: string) {
  const run = await startTestRun(fx.stores, workspaceId, {
    grants: {
      secrets: [
        { handle: 'shop', id: ids.shop ?? '' },
        { handle: 'visa', id: ids.visa ?? '' },
      ],
      integrations: [],
      purchases: LIMITS,
    },
    sessionId: randomUUID(),
  });
  const metering = new MeteringSystem(run, fx.ledger);
  const browser = await fx.browser(run, metering, { chromium: true, args: [OTHER_HOST_RULE] });
  const pauses = new PauseSystem(run, metering, browser, { pauses: fx.stores.pauses, approvalTimeoutMs: 60_000 });
  const secrets = new SecretSystem(run, browser, pauses, {
    intents: fx.stores.policy.intents,
    secretsKey: TEST_SECRETS_KEY,
  });
  await browser.startPage(path.startsWith('http') ? path : `${pages.site.origin}${path}`);
  const page = await browser.observe(false);
  return { run, browser, pauses, secrets, page };
}

const fill = (index: number, handle: string, part: string) =>
  ({ action: 'fill_secret', index, handle, part }) as Parameters<SecretSystem['fill']>[0];

const purchase = (amount: number) =>
  ({ action: 'purchase', merchant: 'shop.example', amount, currency: 'eur', item: 'a lamp' }) as const;

describe('SecretSystem', () => {
  test("fills a login where it may be, never showing it; not on another host, nor into another host's frame", async () => {
    const { run, browser, secrets, page } = await secretRun('/form');
    const results: string[] = [];
    const email = elementIndex(page.elements, 'type=email');
    const password = elementIndex(page.elements, 'type=password');
    assert.equal(await secrets.fill(fill(email, 'shop', 'username'), results, page.url), 'ok');
    assert.equal(await secrets.fill(fill(password, 'shop', 'password'), results, page.url), 'ok');
    assert.deepEqual(results, [
      `fill_secret ${email} shop.username: filled`,
      `fill_secret ${password} shop.password: filled`,
    ]);
    const after = await browser.observe(false);
    assert.doesNotMatch(after.elements, new RegExp(PASSWORD));
    assert.equal(await secrets.fill(fill(email, 'shop', 'number'), [], page.url), 'failed', 'a login has no number');

    const framed = await secretRun('/framed-field');
    const field = elementIndex(framed.page.elements, 'name=user');
    const refused: string[] = [];
    assert.equal(await framed.secrets.fill(fill(field, 'shop', 'username'), refused, framed.page.url), 'failed');
    assert.match(refused[0] ?? '', /is in a frame of other\.test, which is not among shop's domains/);

    const elsewhere = await secretRun(`${pages.other.origin}/field`);
    const there: string[] = [];
    const user = elementIndex(elsewhere.page.elements, 'name=user');
    assert.equal(await elsewhere.secrets.fill(fill(user, 'shop', 'username'), there, elsewhere.page.url), 'failed');
    assert.match(there[0] ?? '', /shop may not be filled on other\.test/);
    const events = await fx.stores.store.events(run.row.id, ['step'], 0n, 20);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['secret', 'secret', 'dead_end'],
    );
    assert.doesNotMatch(JSON.stringify(events.map((e) => [e.message, e.data])), new RegExp(PASSWORD));
  });

  test('a purchase past its limit ends the run with its code', async () => {
    const { run, secrets, page } = await secretRun('/form');
    await assert.rejects(secrets.purchase(purchase(40), [], page.url), Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.reasonCode], ['failed', 'per_purchase_exceeded']);
    assert.equal(row?.reasonMessage, 'The purchase of 40.00 EUR is over the limit of 30.00 EUR a purchase.');
  });

  test('an approved purchase is recorded, its card filled, and the CVC its approval brought used once', async () => {
    const { run, pauses, secrets, page } = await secretRun('/form');
    const email = elementIndex(page.elements, 'type=email');
    const password = elementIndex(page.elements, 'type=password');
    const early: string[] = [];
    assert.equal(await secrets.fill(fill(email, 'visa', 'number'), early, page.url), 'failed');
    assert.match(early[0] ?? '', /a card is filled only for an approved purchase/);

    const results: string[] = [];
    assert.equal(await secrets.purchase(purchase(12.5), results, page.url), 'stop');
    const paused = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([paused?.status, paused?.pausedFor], ['paused', 'approval']);
    assert.equal(paused?.question, 'Approve the purchase of a lamp for 12.50 EUR at shop.example (127.0.0.1)?');

    const waiting = pauses.checkpoint(async (d) => {
      assert.equal(await secrets.decided(d), true);
    });
    await fx.stores.pauses.approve(
      workspaceId,
      run.row.id,
      true,
      sealText(TEST_SECRETS_KEY, CVC_PURPOSE, run.row.id, '737'),
    );
    await waiting;
    assert.deepEqual(run.memory.results, [
      'purchase approved: fill the card (fill_secret) and complete it; the approval brought the cvc (part cvc)',
    ]);
    assert.equal(run.memory.spent, 1_250);
    const [record] = await fx.stores.store.records(run.row.id, 0n, 10);
    const { approvedAt, ...bought } =
      (record?.data as { purchase: Record<string, string> } | undefined)?.purchase ?? {};
    assert.deepEqual(bought, {
      merchant: 'shop.example',
      host: '127.0.0.1',
      item: 'a lamp',
      amount: '12.50 EUR',
      currency: 'EUR',
    });
    assert.ok(approvedAt && Date.now() - Date.parse(approvedAt) < 60_000, 'approved just now');
    assert.equal(await secrets.fill(fill(email, 'visa', 'number'), [], page.url), 'ok');
    assert.equal(await secrets.fill(fill(password, 'visa', 'cvc'), [], page.url), 'ok');
    const again: string[] = [];
    assert.equal(await secrets.fill(fill(password, 'visa', 'cvc'), again, page.url), 'failed');
    assert.match(again[0] ?? '', /visa has no cvc to fill/);
  });

  test('a denied purchase ends the run', async () => {
    const { run, pauses, secrets, page } = await secretRun('/form');
    assert.equal(await secrets.purchase(purchase(12.5), [], page.url), 'stop');
    const waiting = pauses.checkpoint(async (d) => {
      await secrets.decided(d);
    });
    await fx.stores.pauses.approve(workspaceId, run.row.id, false);
    await assert.rejects(waiting, Stop);
    const row = await fx.stores.store.byId(run.row.id);
    assert.deepEqual([row?.outcome, row?.reasonCode], ['failed', 'approval_denied']);
  });
});
