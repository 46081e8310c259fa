// The recorder's sessions through the real parts: snapshots published on the
// SESSIONS stream (as browser hosts' outboxes do) reach the table in any order,
// any number of times, and the gRPC reads answer them per workspace.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { type Timestamp, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { jetstreamManager } from '@nats-io/jetstream';
import { isApiError } from '@wap/errors';
import { chunkHeaders, type NatsLink, Publisher, type SessionSnapshot, sessionStreamNames } from '@wap/events';
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
import pg from 'pg';
import { freshDatabase, spawnSessionRecorder } from './test-support.js';

const namespace = uniqueNamespace('rec');
const KEY = 'the-recording-key-of-this-test-run-0123456789';
let database: FreshDatabase;
let recorder: ServiceProcess;
let client: ReturnType<typeof createClient<(typeof sessions.SessionService)['method']>>;
let publisher: Publisher;
let nats: NatsLink;

before(async () => {
  database = await freshDatabase();
  recorder = spawnSessionRecorder(database.url, await freePort(), {
    NATS_NAMESPACE: namespace,
    RECORDING_KEY: KEY,
    // Sweeps every second; the retention stays 30 days, so only sessions dated back in a test go.
    RECORDING_SWEEP: '1s',
  });
  await waitServing(recorder.address);
  client = createClient(sessions.SessionService, recorder.address, { token: recorder.token });
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

/** Every snapshot and chunk published so far has been handled and acked. */
async function drained(): Promise<void> {
  const names = sessionStreamNames(namespace);
  const jsm = await jetstreamManager(nats.nc);
  await until('the recorder has handled every message', async () => {
    for (const consumer of [names.lifecycleConsumer, names.chunksConsumer]) {
      const info = await jsm.consumers.info(names.stream, consumer);
      if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
    }
    return true;
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

/** A chunk as a browser host publishes it: gzip'd events, signed with `key`. */
async function publishChunk(
  sessionId: string,
  workspaceId: string,
  seq: number,
  text: string,
  key = KEY,
  kind: 'rrweb' | 'network' = 'rrweb',
) {
  const meta = { sessionId, workspaceId, seq, kind, pages: seq === 0 ? 1 : 0 };
  const body = gzipSync(
    JSON.stringify(
      kind === 'network'
        ? [
            {
              tab: 1,
              url: `http://127.0.0.1/${text}`,
              method: 'GET',
              type: 'Document',
              status: 200,
              startedAt: Date.now(),
            },
          ]
        : [{ tab: 1, events: [{ type: 3, data: { text } }] }],
    ),
  );
  await publisher.publishBytes(sessionStreamNames(namespace).chunks(sessionId), body, {
    msgId: `${sessionId}:${seq}:${key.length}`,
    headers: chunkHeaders(key, meta, body),
  });
}

test('chunks join their chain in order whatever order they come in; a forged one is dropped; a changed byte is found', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const sessionId = randomUUID();
  await publish(snapshot({ id: sessionId, workspaceId }));
  // Out of order, one twice, and one signed with another key (a forger without the fleet's key).
  for (const seq of [2, 0, 1, 1]) await publishChunk(sessionId, workspaceId, seq, `chunk ${seq}`);
  await publishChunk(sessionId, workspaceId, 3, 'forged', 'not-the-fleet-key-but-long-enough-0123456789');
  await drained();
  const s = await get(workspaceId, sessionId);
  assert.equal(s?.recording?.chunks, 3, 'three chunks, the forged one left out');
  assert.equal(s?.pageCount, 1);
  const check = await client.verifyRecording({ workspaceId, sessionId });
  assert.deepEqual(
    { valid: check.valid, chunks: check.chunks, head: check.head },
    { valid: true, chunks: 3, head: s?.recording?.head },
  );
  await assert.rejects(
    client.verifyRecording({ workspaceId: `ws-${randomUUID()}`, sessionId }),
    (err) => isApiError(err) && err.code === 'not_found',
  );
  // One stored byte changed: the chain no longer holds, from that chunk on.
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    await db.query(
      `UPDATE recording_chunks SET body = set_byte(body, 20, (get_byte(body, 20) + 1) % 256) WHERE session_id = $1 AND seq = 1`,
      [sessionId],
    );
  } finally {
    await db.end();
  }
  const broken = await client.verifyRecording({ workspaceId, sessionId });
  assert.deepEqual({ valid: broken.valid, brokenAt: broken.brokenAt }, { valid: false, brokenAt: 1 });
  assert.match(broken.reason, /bytes changed/);
});

/** What the database and the stream still hold of a session. */
async function leftOf(sessionId: string) {
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const count = async (sql: string) => Number((await db.query(sql, [sessionId])).rows[0].n);
    const names = sessionStreamNames(namespace);
    const jsm = await jetstreamManager(nats.nc);
    const info = await jsm.streams.info(names.stream, { subjects_filter: names.chunks(sessionId) });
    return {
      sessions: await count('SELECT count(*) AS n FROM sessions WHERE id = $1'),
      recordings: await count('SELECT count(*) AS n FROM recordings WHERE session_id = $1'),
      chunks: await count('SELECT count(*) AS n FROM recording_chunks WHERE session_id = $1'),
      network: await count('SELECT count(*) AS n FROM network_requests WHERE session_id = $1'),
      onStream: info.state.subjects?.[names.chunks(sessionId)] ?? 0,
    };
  } finally {
    await db.end();
  }
}

const notFound = (err: unknown) => isApiError(err) && err.code === 'not_found';

test('deleting an ended session removes its recording, network log and stream chunks; nothing brings it back', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const sessionId = randomUUID();
  await publish(snapshot({ id: sessionId, workspaceId }));
  await publishChunk(sessionId, workspaceId, 0, 'page one');
  await publishChunk(sessionId, workspaceId, 1, 'a.html', KEY, 'network');
  await drained();
  assert.deepEqual(await leftOf(sessionId), { sessions: 1, recordings: 1, chunks: 2, network: 1, onStream: 2 });

  // Running: refused, and nothing is lost.
  await assert.rejects(
    client.deleteSession({ workspaceId, sessionId }),
    (err) => isApiError(err) && err.code === 'bad_request',
  );
  await publish(
    snapshot({ id: sessionId, workspaceId, status: 'ended', outcome: 'closed', endedAt: new Date().toISOString() }),
  );
  await drained();
  await assert.rejects(client.deleteSession({ workspaceId: `ws-${randomUUID()}`, sessionId }), notFound);
  assert.equal((await get(workspaceId, sessionId))?.recording?.chunks, 2, "another workspace's delete changed nothing");

  const removed = await client.deleteSession({ workspaceId, sessionId });
  assert.deepEqual({ chunks: removed.chunks, network: removed.networkRequests }, { chunks: 2, network: 1 });
  assert.ok(removed.bytes > 0n);
  assert.deepEqual(await leftOf(sessionId), { sessions: 1, recordings: 0, chunks: 0, network: 0, onStream: 0 });
  assert.equal(await get(workspaceId, sessionId), undefined, 'a deleted session is not_found');
  await assert.rejects(client.verifyRecording({ workspaceId, sessionId }), notFound);
  await assert.rejects(client.deleteSession({ workspaceId, sessionId }), notFound, 'deleting twice is not_found');
  const listed = await client.listSessions({ workspaceId, limit: 10 });
  assert.deepEqual(
    listed.sessions.map((s) => s.id),
    [],
    'the listing leaves it out',
  );

  // A chunk and a snapshot still on their way do not bring it back.
  await publishChunk(sessionId, workspaceId, 2, 'late');
  await publish(
    snapshot({ id: sessionId, workspaceId, status: 'ended', outcome: 'closed', endedAt: new Date().toISOString() }),
  );
  await drained();
  assert.equal(await get(workspaceId, sessionId), undefined);
  const left = await leftOf(sessionId);
  assert.deepEqual({ recordings: left.recordings, chunks: left.chunks }, { recordings: 0, chunks: 0 });
});

test('sessions past the retention go for good, with recordings no session claims; recent ones stay', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const old = randomUUID();
  const recent = randomUUID();
  const orphan = randomUUID();
  const longAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
  for (const id of [old, recent]) {
    await publishChunk(id, workspaceId, 0, 'page');
    await publishChunk(id, workspaceId, 1, 'b.html', KEY, 'network');
  }
  await publishChunk(orphan, workspaceId, 0, 'no session row');
  await drained();
  await publish(snapshot({ id: recent, workspaceId, status: 'ended', outcome: 'closed', endedAt: longAgo(29) }));
  // The orphan's recording was last written 31 days ago; the old session ended 31 days ago.
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    await db.query(`UPDATE recordings SET updated_at = now() - interval '31 days' WHERE session_id = $1`, [orphan]);
  } finally {
    await db.end();
  }
  await publish(
    snapshot({
      id: old,
      workspaceId,
      startedAt: longAgo(32),
      status: 'ended',
      outcome: 'closed',
      endedAt: longAgo(31),
    }),
  );
  await drained();
  await until('the sweep has deleted what is past the retention', async () => {
    const [a, b] = await Promise.all([leftOf(old), leftOf(orphan)]);
    return a.sessions + a.recordings + b.recordings === 0;
  });
  for (const id of [old, orphan])
    assert.deepEqual(await leftOf(id), { sessions: 0, recordings: 0, chunks: 0, network: 0, onStream: 0 }, id);
  assert.deepEqual(await leftOf(recent), { sessions: 1, recordings: 1, chunks: 2, network: 1, onStream: 2 });
  assert.equal((await get(workspaceId, recent))?.recording?.chunks, 2);
});
