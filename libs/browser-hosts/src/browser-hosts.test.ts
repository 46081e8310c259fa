import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { browserHostsSubject, type HostAnnouncement, type NatsLink } from '@wap/events';
import { browser } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { quietLog, TEST_SERVICE_TOKEN, testNats, uniqueNamespace, until } from '@wap/testkit';
import { type BrowserClient, BrowserHosts } from './browser-hosts.js';

// Placement as the gateway and the agent service see it: hosts announce on a
// real NATS, and the directory answers from what it heard. No call reaches a
// host here (gRPC clients connect on their first call), so a client stands for
// its host by identity: the one `forSession` gives for a session only that
// host announced.

let link: NatsLink;
before(async () => {
  link = await testNats('browser-hosts-test');
});
after(() => link.drain());

const announcement = (hostId: string, room: Partial<HostAnnouncement>): HostAnnouncement => ({
  hostId,
  address: `127.0.0.1:${1_000 + hostId.charCodeAt(0)}`,
  capacity: 4,
  live: 0,
  sessions: [`session-of-${hostId}`],
  everyMs: 60_000,
  ...room,
});

async function directory(fallback?: BrowserClient) {
  const namespace = uniqueNamespace('hosts');
  const hosts = new BrowserHosts(link, namespace, fallback, TEST_SERVICE_TOKEN, quietLog());
  hosts.start();
  await link.nc.flush();
  const say = (message: unknown) => link.nc.publish(browserHostsSubject(namespace), JSON.stringify(message));
  /**
   * Announces, then waits until the directory has heard it: the server sends a
   * connection's own messages back before it answers that connection's PING.
   */
  const heard = async (...messages: unknown[]) => {
    for (const m of messages) say(m);
    await link.nc.flush();
  };
  const hostOf = (id: string) => {
    const [client, ...more] = hosts.forSession(`session-of-${id}`);
    assert.equal(more.length, 0, `only ${id} announced its session`);
    return client;
  };
  return { hosts, say, heard, hostOf, subject: browserHostsSubject(namespace) };
}

test('before any host announces, the configured fallback serves', async (t) => {
  const fallback = createClient(browser.BrowserService, '127.0.0.1:1');
  t.after(() => fallback.close());
  const { hosts } = await directory(fallback);
  t.after(() => hosts.stop());
  assert.deepEqual(
    hosts.forNewSession().map((h) => h.client),
    [fallback],
  );
  assert.deepEqual(hosts.forSession('any'), [fallback]);
  assert.equal(hosts.any(), undefined);
});

test('a new session goes to the host with the most room; a full host gets none', async (t) => {
  const { hosts, heard, hostOf } = await directory();
  t.after(() => hosts.stop());
  await heard(
    announcement('a', { capacity: 4, live: 1 }),
    announcement('b', { capacity: 4, live: 3 }),
    announcement('c', { capacity: 2, live: 2 }),
  );
  const [a, b] = [hostOf('a'), hostOf('b')];
  const order = hosts.forNewSession();
  assert.deepEqual(
    order.map((h) => h.client),
    [a, b],
    'a (3 free) before b (1 free), c (full) left out',
  );

  // Placing moves the count on at once, so a burst of connects spreads.
  const first = order[0];
  assert.ok(first);
  for (let i = 0; i < 3; i++) first.placed();
  assert.deepEqual(
    hosts.forNewSession().map((h) => h.client),
    [b],
    'a is full after three placements',
  );
});

test('an announcement that is not one is dropped whole, never half-read', async (t) => {
  const { hosts, say, heard, subject } = await directory();
  t.after(() => hosts.stop());
  link.nc.publish(subject, 'not json at all');
  link.nc.publish(subject, Buffer.from([0xff, 0xfe, 0x00]));
  say(null);
  say([announcement('in-a-list', {})]);
  await heard(
    { hostId: 'negative', address: '127.0.0.1:9', capacity: -5, live: 0, sessions: [], everyMs: 1000 },
    { hostId: 'text', address: '127.0.0.1:9', capacity: '4', live: 0, sessions: [], everyMs: 1000 },
    { hostId: 'no-address', capacity: 4, live: 0, sessions: [], everyMs: 1000 },
    { ...announcement('sessions-not-a-list', {}), sessions: 'all' },
  );
  assert.equal(hosts.forNewSession().length, 0, 'no host was taken from a bad announcement');
  assert.equal(hosts.any(), undefined);

  // Fields a newer host adds are dropped, the announcement kept.
  await heard({ ...announcement('newer', {}), gpu: true });
  assert.equal(hosts.forNewSession().length, 1);
});

test('a host that says it is leaving, or falls silent for three announcements, is forgotten', async (t) => {
  const { hosts, say, heard, hostOf } = await directory();
  t.after(() => hosts.stop());
  await heard(announcement('a', {}), announcement('b', {}));
  const a = hostOf('a');
  assert.equal(hosts.forNewSession().length, 2);

  await heard({ ...announcement('a', {}), leaving: true });
  assert.equal(hosts.forNewSession().length, 1);
  assert.notEqual(hosts.forSession('session-of-a')[0], a, 'a reconnect to a left host asks the others');

  say(announcement('quiet', { everyMs: 20 }));
  await until('the quiet host is heard', () => hosts.forNewSession().length === 2, 10_000, 5);
  await until('the quiet host is forgotten after three silent periods', () => hosts.forNewSession().length === 1);
  assert.ok(hostOf('b'));
});

test('profiles go to the host heard from last', async (t) => {
  const { hosts, heard, hostOf } = await directory();
  t.after(() => hosts.stop());
  await heard(announcement('a', {}));
  await heard(announcement('b', {}));
  assert.equal(hosts.any(), hostOf('b'));
  await heard(announcement('a', {}));
  assert.equal(hosts.any(), hostOf('a'));
});
