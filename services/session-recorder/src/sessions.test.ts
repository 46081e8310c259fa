// The recorder's sessions through the real parts: snapshots published on the
// SESSIONS stream (as browser hosts' outboxes do) reach the table in any order,
// any number of times, and the gRPC reads answer them per workspace.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type Timestamp, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { jetstreamManager } from '@nats-io/jetstream';
import { isApiError } from '@wap/errors';
import { type NatsLink, Publisher, type SessionSnapshot, sessionStreamNames } from '@wap/events';
import { sessions } from '@wap/proto';
import { createClient } from '@wap/rpc';
import {
  type FreshDatabase,
  freePort,
  type ServiceProcess,
  testNats,
  uniqueNamespace,
  until,
  waitServing,
} from '@wap/testkit';
import { freshDatabase, spawnSessionRecorder } from './test-support.js';

const namespace = uniqueNamespace('rec');
let database: FreshDatabase;
let recorder: ServiceProcess;
let client: ReturnType<typeof createClient<(typeof sessions.SessionService)['method']>>;
let publisher: Publisher;
let nats: NatsLink;

before(async () => {
  database = await freshDatabase();
  recorder = spawnSessionRecorder(database.url, await freePort(), { NATS_NAMESPACE: namespace });
  await waitServing(recorder.address);
  client = createClient(sessions.SessionService, recorder.address);
  nats = await testNats('recorder-test');
  publisher = new Publisher(nats.nc);
});
after(async () => {
  client?.close();
  await nats?.drain();
  recorder?.proc.kill('SIGTERM');
  await recorder?.exited;
  await database?.drop();
});

const snapshot = (over: Partial<SessionSnapshot> & { id: string; workspaceId: string }): SessionSnapshot => ({
  kind: 'connect',
  status: 'live',
  outcome: null,
  startedAt: new Date().toISOString(),
  endedAt: null,
  options: { idleTimeoutSeconds: 0 },
  usage: { contextSeconds: 0, proxyBytes: 0, chargedMc: '0' },
  ...over,
});

const publish = (s: SessionSnapshot) =>
  publisher.publish(sessionStreamNames(namespace).lifecycle, s, { msgId: randomUUID() });

/** Every snapshot published so far has been handled and acked. */
async function drained(): Promise<void> {
  const names = sessionStreamNames(namespace);
  const jsm = await jetstreamManager(nats.nc);
  await until('the recorder has handled every snapshot', async () => {
    const info = await jsm.consumers.info(names.stream, names.lifecycleConsumer);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  });
}

const get = (workspaceId: string, sessionId: string) =>
  client.getSession({ workspaceId, sessionId }).then(
    (r) => r.session,
    (err: unknown) => {
      if (isApiError(err) && err.code === 'not_found') return undefined;
      throw err;
    },
  );

test('an ended snapshot wins over a live one whatever the order, and a repeat changes nothing', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const id = randomUUID();
  const startedAt = new Date(Date.now() - 65_000).toISOString();
  const ended = snapshot({
    id,
    workspaceId,
    startedAt,
    status: 'ended',
    outcome: 'closed',
    endedAt: new Date().toISOString(),
    usage: { contextSeconds: 65, proxyBytes: 4_096, chargedMc: '1084' },
  });
  // The end arrives first (two relays raced), then the opening, then the end again.
  await publish(ended);
  await publish(snapshot({ id, workspaceId, startedAt }));
  await publish(ended);
  await drained();
  const s = await get(workspaceId, id);
  assert.deepEqual(
    {
      status: s?.status,
      outcome: s?.outcome,
      started: s?.startedAt && Number(s.startedAt.seconds),
      usage: s?.usage && {
        contextSeconds: s.usage.contextSeconds,
        proxyBytes: s.usage.proxyBytes,
        charged: s.usage.chargedMillicredits,
      },
    },
    {
      status: 'ended',
      outcome: 'closed',
      started: Math.floor(Date.parse(startedAt) / 1000),
      usage: { contextSeconds: 65n, proxyBytes: 4_096n, charged: 1_084n },
    },
  );
  assert.equal(await get(`ws-${randomUUID()}`, id), undefined, "another workspace's read is not_found");
});

test('the listing is newest first, filters, pages with a cursor, and shows one workspace only', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const base = Date.now() - 3_600_000;
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const id = randomUUID();
    ids.push(id);
    const startedAt = new Date(base + i * 60_000).toISOString();
    const ended = i % 2 === 0;
    await publish(
      snapshot({
        id,
        workspaceId,
        startedAt,
        ...(ended && { status: 'ended', outcome: i === 4 ? 'lifetime' : 'closed', endedAt: startedAt }),
      }),
    );
  }
  await publish(snapshot({ id: randomUUID(), workspaceId: `ws-${randomUUID()}` }));
  type Filter = {
    status?: string;
    outcome?: string;
    limit?: number;
    cursor?: string;
    startedAfter?: Timestamp;
    startedBefore?: Timestamp;
  };
  const list = (req: Filter = {}) => client.listSessions({ workspaceId, ...req });
  await until('all five are recorded', async () => (await list({ limit: 100 })).sessions.length === 5);
  const newestFirst = [...ids].reverse();
  const first = await list({ limit: 2 });
  const second = await list({ limit: 2, cursor: first.nextCursor });
  const third = await list({ limit: 2, cursor: second.nextCursor });
  assert.deepEqual(
    [...first.sessions, ...second.sessions, ...third.sessions].map((s) => s.id),
    newestFirst,
  );
  assert.equal(third.nextCursor, '', 'no cursor after the last page');
  assert.deepEqual(
    (await list({ status: 'live' })).sessions.map((s) => s.id),
    [ids[3], ids[1]],
  );
  assert.deepEqual(
    (await list({ outcome: 'lifetime' })).sessions.map((s) => s.id),
    [ids[4]],
  );
  const window = await list({
    startedAfter: timestampFromDate(new Date(base + 60_000)),
    startedBefore: timestampFromDate(new Date(base + 180_000)),
  });
  assert.deepEqual(
    window.sessions.map((s) => s.id),
    [ids[2], ids[1]],
  );
  await assert.rejects(list({ cursor: 'not-a-cursor' }), (err) => isApiError(err) && err.code === 'bad_request');
  await assert.rejects(list({ limit: 101 }), (err) => isApiError(err) && err.code === 'bad_request');
});
