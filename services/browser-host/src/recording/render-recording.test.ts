// A render is recorded as a browser session of kind `scrape` (docs/sessions.md,
// "Scrapes"): through the Render RPC as the host serves it, its page reaches
// JetStream as signed chunks (rrweb and the network log), its row goes live
// and ends, told to the recorder as `scrape`, with nothing billed. Renders
// sharing a pool browser at once are recorded apart. Real Chromium, NATS and
// Postgres, a loopback site.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { create } from '@bufbuild/protobuf';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  chunkMacValid,
  chunkMetaOf,
  ensureStreams,
  type NatsLink,
  type SessionSnapshot,
  sessionStreamNames,
  sessionStreams,
} from '@wap/events';
import { browser as proto } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import { type FreshDatabase, quietLog, testNats, uniqueNamespace, until } from '@wap/testkit';
import { openBrowserHost } from '../browser-host.js';
import type { BrowserSession } from '../generated/prisma/client.js';
import { type BrowserHostDatabase, openBrowserHostDatabase } from '../store/database.js';
import { freshDatabase, testHostConfig } from '../test-support.js';

const KEY = 'a-test-recording-key-of-at-least-32-chars';
const namespace = uniqueNamespace('render_recording');
const names = sessionStreamNames(namespace);
let nats: NatsLink;
let database: FreshDatabase;
let db: BrowserHostDatabase;
let site: Server;
let base: string;
let host: ReturnType<typeof openBrowserHost>;

const PAGES: Record<string, string> = {
  '/article': '<!doctype html><title>Article</title><h1>The recorded article</h1><img src="/dot.svg">',
  '/other': '<!doctype html><title>Other</title><h1>Another page entirely</h1>',
  // A request the site never answers, still open when the render answers and its context closes.
  '/pending': '<!doctype html><title>Pending</title><h1>Waiting</h1><script>fetch("/never")</script>',
  // The text the click adds is written nowhere in the page before it: the snapshot cannot hold it early.
  '/button':
    "<!doctype html><button id=\"b\" onclick=\"document.body.insertAdjacentHTML('beforeend', '<p>' + ['Clicked', 'it'].join(' '))\">go</button>",
};

before(async () => {
  [nats, database] = await Promise.all([testNats('render-recording-test'), freshDatabase()]);
  await ensureStreams(nats.nc, sessionStreams(namespace));
  db = openBrowserHostDatabase(database.url);
  site = createServer((req, res) => {
    if (req.url === '/never') return;
    if (req.url === '/dot.svg')
      return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const page = PAGES[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' }).end(page ?? 'not here');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  host = openBrowserHost(
    testHostConfig({
      BROWSER_POOL_SIZE: 1,
      PAGES_PER_BROWSER: 2,
      RECYCLE_AFTER_PAGES: 50,
      EGRESS_ALLOW: '127.0.0.0/8',
      SESSION_UIDS: 'off',
      RECORDING_KEY: KEY,
      NATS_NAMESPACE: namespace,
    }),
    db,
    nats,
    quietLog(),
  );
  await host.start();
});
after(async () => {
  await host?.stop();
  await db?.$disconnect();
  await database?.drop();
  const jsm = await jetstreamManager(nats.nc);
  await jsm.streams.delete(names.stream).catch(() => undefined);
  await nats?.drain();
  site?.close();
});

/**
 * Renders through the RPC as the crawl asks it: for a workspace and a request. The call's signal
 * aborts once it is answered, as the gRPC server's does when the call ends.
 */
const render = async (path: string, init: Omit<Partial<proto.RenderRequest>, '$typeName'> = {}) => {
  const call = new AbortController();
  const ctx: CallContext = { metadata: {} as never, signal: call.signal, method: 'Render' };
  try {
    return await host.impl.render(
      create(proto.RenderRequestSchema, {
        url: `${base}${path}`,
        timeoutMs: 15_000,
        workspaceId: 'ws-render-recording',
        requestId: `req-${path.slice(1)}`,
        ...init,
      }),
      ctx,
    );
  } finally {
    call.abort(new Error('call ended'));
  }
};

interface RrwebEvent {
  type: number;
  data?: { href?: string; source?: number };
}

/** The messages the stream holds on `subject`, in order. */
async function messages(subject: string) {
  const jsm = await jetstreamManager(nats.nc);
  const { state } = await jsm.streams.info(names.stream);
  const out = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const msg = await jsm.streams.getMessage(names.stream, { seq }).catch(() => undefined);
    if (msg?.subject === subject) out.push(msg);
  }
  return out;
}

/** A session's chunks: each checked against its MAC, read back. */
async function chunks(sessionId: string) {
  return (await messages(names.chunks(sessionId))).map((msg) => {
    const meta = chunkMetaOf((name) => msg.header.get(name) || undefined);
    assert.ok(meta, 'every chunk says what it is');
    assert.ok(chunkMacValid(KEY, meta, msg.data, msg.header.get('Wap-Mac')), `chunk ${meta.seq} is signed`);
    return { ...meta, payload: JSON.parse(gunzipSync(msg.data).toString('utf8')) as unknown[] };
  });
}

/** The session's row, if it has one. */
const sessionRow = async (id: string) =>
  (await db.query<BrowserSession>`SELECT * FROM browser_sessions WHERE id = ${id}::uuid`)[0];

const sessionCount = async () => (await db.query<{ n: number }>`SELECT count(*)::int AS n FROM browser_sessions`)[0]?.n;

/** The session as recorded, once its row ended: the row, its snapshots sent, its rrweb events and network rows. */
async function recorded(sessionId: string) {
  await until('the render session ended', async () => (await sessionRow(sessionId))?.status === 'ended');
  // Its chunks went out before its row ended; its snapshots go through the outbox.
  await until('the ended snapshot is on NATS', async () =>
    (await messages(names.lifecycle)).some((m) => {
      const s = m.json<SessionSnapshot>();
      return s.id === sessionId && s.status === 'ended';
    }),
  );
  const row = await sessionRow(sessionId);
  assert.ok(row);
  const snapshots = (await messages(names.lifecycle))
    .map((m) => m.json<SessionSnapshot>())
    .filter((s) => s.id === sessionId);
  const all = await chunks(sessionId);
  const events = all
    .filter((c) => c.kind === 'rrweb')
    .flatMap((c) => (c.payload as { tab: number; events: RrwebEvent[] }[]).flatMap((b) => b.events));
  const requests = all
    .filter((c) => c.kind === 'network')
    .flatMap((c) => c.payload as { url: string; type: string; tab: number }[]);
  return { row, snapshots, chunks: all, events, requests };
}

test('a render is recorded as a session of kind scrape: its page on NATS, its row live then ended, nothing billed', async () => {
  const out = await render('/article');
  assert.equal(out.status, 200);
  assert.match(out.sessionId ?? '', /^[0-9a-f-]{36}$/, 'the answer names its session');
  const { row, snapshots, chunks: all, events, requests } = await recorded(out.sessionId as string);
  assert.deepEqual(
    all.map((c) => c.seq),
    all.map((_, i) => i),
    'chunks are numbered from 0 without a gap',
  );
  assert.ok(
    events.some((e) => e.type === 4 && e.data?.href === `${base}/article`),
    'the page is recorded: its document starts the recording',
  );
  assert.ok(JSON.stringify(events).includes('The recorded article'), 'the snapshot holds what the page showed');
  assert.ok(
    requests.some((r) => r.type === 'Document' && r.url === `${base}/article`),
    'the network log has the page',
  );
  assert.ok(
    requests.some((r) => r.url === `${base}/dot.svg`),
    'and what it loaded',
  );
  assert.deepEqual(row.options, { task: { kind: 'scrape', requestId: 'req-article' } });
  assert.equal(row.operationId, 'req-article');
  assert.equal(row.outcome, 'closed');
  // The crawl bills the page; the session meters nothing, holds no credit (this host has no ledger at all).
  assert.deepEqual([row.seconds, row.chargedMc, row.metering], [0, 0n, null]);
  assert.ok(row.proxyBytes > 0n, "the render's egress bytes are counted on it");
  assert.deepEqual(
    snapshots.map((s) => [s.kind, s.status, s.outcome]),
    [
      ['scrape', 'live', null],
      ['scrape', 'ended', 'closed'],
    ],
  );
});

test("a request still open when a render's page closes stays in its network log, as it stood", async () => {
  const out = await render('/pending', { waitForSelector: 'h1' });
  const { requests } = await recorded(out.sessionId as string);
  assert.ok(
    requests.some((r) => r.url === `${base}/never`),
    `the open request is logged: ${requests.map((r) => r.url)}`,
  );
});

test('two renders at once in one browser are recorded apart; actions are recorded as they happen', async () => {
  const [a, b] = await Promise.all([
    render('/button', {
      actions: [create(proto.ActionSchema, { kind: { case: 'click', value: { selector: '#b' } } })],
    }),
    render('/other'),
  ]);
  assert.match(a.html ?? '', /Clicked it/);
  const [first, second] = await Promise.all([recorded(a.sessionId as string), recorded(b.sessionId as string)]);
  const hrefs = (r: typeof first) => r.events.flatMap((e) => (e.type === 4 ? [e.data?.href ?? ''] : []));
  assert.deepEqual(hrefs(first), [`${base}/button`]);
  assert.deepEqual(hrefs(second), [`${base}/other`]);
  const paths = (r: typeof first) => new Set(r.requests.map((q) => new URL(q.url).pathname));
  assert.ok(paths(first).has('/button') && !paths(first).has('/other'), `its own requests only: ${[...paths(first)]}`);
  assert.ok(
    paths(second).has('/other') && !paths(second).has('/button'),
    `its own requests only: ${[...paths(second)]}`,
  );
  // The snapshot came before the click, and the click's change after it (an incremental mutation).
  const snapshot = first.events.findIndex((e) => e.type === 2);
  assert.ok(snapshot >= 0, 'a full snapshot');
  assert.ok(!JSON.stringify(first.events[snapshot]).includes('Clicked it'), 'taken before the click');
  assert.ok(
    first.events.slice(snapshot + 1).some((e) => e.type === 3 && JSON.stringify(e).includes('Clicked it')),
    "the click's change is recorded after it",
  );
});

test('a render that names no request is not recorded', async () => {
  const before = await sessionCount();
  const out = await render('/other', { workspaceId: '', requestId: '' });
  assert.equal(out.status, 200);
  assert.equal(out.sessionId, '');
  assert.equal(await sessionCount(), before);
});
