import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { NatsLink } from '@wap/events';
import { quietLog, testNats, until } from '@wap/testkit';
import { LedgerViews } from './ledger-views.js';

const log = quietLog('gateway-test');
let link: NatsLink;

before(async () => {
  link = await testNats('ledger-views-test', log);
});
after(async () => {
  await link.drain();
});

/**
 * Views on a subject of their own, with counted loads that answer the load's
 * number, and a clock that moves only when the test says.
 */
async function views(settings: { ttlMs?: number } = {}) {
  const subject = `test_${randomUUID().slice(0, 8)}.ledger.credits.changed`;
  const clock = { ms: Date.UTC(2026, 10, 24), advance: (ms: number) => (clock.ms += ms) };
  const cache = new LedgerViews(link.nc, subject, log, { ...settings, now: () => clock.ms });
  await cache.start();
  const counted = { loads: 0 };
  const get = (workspaceId: string, validUntil?: (view: number) => number) =>
    cache.get(workspaceId, 'credits', async () => ++counted.loads, validUntil);
  /**
   * As the ledger does: one message naming the workspaces. The views listen on
   * the same connection, and the server sends the message to it before it
   * answers the flush's ping: once flushed, the message has been handled.
   */
  const announce = async (...ids: string[]) => {
    link.nc.publish(subject, JSON.stringify(ids));
    await link.nc.flush();
  };
  return { cache, get, counted, announce, clock };
}

test('a view is loaded once, then served until the ledger announces a change to its workspace', async () => {
  const { cache, get, counted, announce } = await views();
  try {
    assert.equal(await get('ws-a'), 1);
    assert.equal(await get('ws-b'), 2);
    assert.equal(await get('ws-a'), 1, 'served from memory');
    await announce('ws-a');
    assert.equal(await get('ws-a'), 3, 'the announced workspace is read again');
    assert.equal(await get('ws-b'), 2, 'the other is not');
    assert.equal(counted.loads, 3);
    cache.changed('ws-b'); // a billed request of ws-b ended here
    assert.equal(await get('ws-b'), 4);
  } finally {
    await cache.stop();
  }
});

test("a workspace's views of each kind are kept apart and dropped together", async () => {
  const { cache, announce } = await views();
  try {
    let usageLoads = 0;
    const usage = () => cache.get('ws-k', 'usage', async () => `usage ${++usageLoads}`);
    const credits = () => cache.get('ws-k', 'credits', async () => 1_000);
    assert.equal(await credits(), 1_000);
    assert.equal(await usage(), 'usage 1', 'one kind is not answered with the other');
    assert.equal(await usage(), 'usage 1');
    await announce('ws-k');
    assert.equal(await usage(), 'usage 2', 'a change drops every kind of view of the workspace');
  } finally {
    await cache.stop();
  }
});

test('a view loaded while its workspace changed is answered but not kept', async () => {
  const { cache, announce } = await views();
  try {
    let loads = 0;
    const racing = await cache.get('ws-race', 'credits', async () => {
      loads++;
      await announce('ws-race'); // the change commits while the read is on its way back
      return 1;
    });
    assert.equal(racing, 1);
    assert.equal(
      await cache.get('ws-race', 'credits', async () => ++loads),
      2,
      'read again: the racing view was not kept',
    );
    assert.equal(await cache.get('ws-race', 'credits', async () => ++loads), 2);
  } finally {
    await cache.stop();
  }
});

test('after a request that failed here, nothing of its workspace is cached for a while', async () => {
  const { cache, get, clock } = await views();
  try {
    cache.changed('ws-failed', 80); // say a scrape hit its deadline while the crawl service still settles
    assert.equal(await get('ws-failed'), 1);
    assert.equal(await get('ws-failed'), 2, 'not kept during the hold-off');
    assert.equal(await get('ws-other'), 3);
    assert.equal(await get('ws-other'), 3, 'other workspaces are cached as usual');
    clock.advance(79);
    assert.equal(await get('ws-failed'), 4, 'still in the hold-off');
    clock.advance(1);
    assert.equal(await get('ws-failed'), 5);
    assert.equal(await get('ws-failed'), 5, 'cached again after it');
  } finally {
    await cache.stop();
  }
});

test('a view expires on its own: after the time to live, and when something in it lapses', async () => {
  const { cache, get, clock } = await views({ ttlMs: 100 });
  try {
    assert.equal(await get('ws-ttl'), 1);
    clock.advance(99);
    assert.equal(await get('ws-ttl'), 1, 'within the time to live');
    clock.advance(1);
    assert.equal(await get('ws-ttl'), 2, 'past the time to live');
    const lapsesAt = clock.ms + 30; // a grant lapses in 30 ms
    const lapsing = () => lapsesAt;
    assert.equal(await get('ws-lapse', lapsing), 3);
    clock.advance(29);
    assert.equal(await get('ws-lapse', lapsing), 3);
    clock.advance(1);
    assert.equal(await get('ws-lapse', lapsing), 4, 'the grant lapsed: read again');
  } finally {
    await cache.stop();
  }
});

test('without NATS nothing is cached: every read asks the ledger', async () => {
  const own = await testNats('ledger-views-closing', log);
  const cache = new LedgerViews(own.nc, 'test.closing.ledger.credits.changed', log);
  await cache.start();
  let loads = 0;
  assert.equal(await cache.get('ws-x', 'credits', async () => ++loads), 1);
  assert.equal(await cache.get('ws-x', 'credits', async () => ++loads), 1);
  await own.nc.close();
  await until('the views stop listening', async () => !cache.isListening);
  assert.equal(await cache.get('ws-x', 'credits', async () => ++loads), 2);
  assert.equal(await cache.get('ws-x', 'credits', async () => ++loads), 3);
  await cache.stop();
});
