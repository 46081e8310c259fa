// The hub on a real Chromium's pipe: connections kept apart by the session
// read from each message's tail, and what they send in one turn written to
// the pipe at once.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { type CdpChannel, CdpHub } from './cdp-hub.js';

let chromium: ChildProcess;
let dir: string;
let hub: CdpHub;
/** Writes that reached Chromium's pipe, each one batch of messages. */
let writes = 0;
/** An answer that never comes fails the test rather than hanging the file. */
const BOUND = { timeout: 30_000 };

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wap-hub-test-'));
  chromium = spawn(
    '/usr/bin/chromium',
    ['--headless=new', '--no-sandbox', `--user-data-dir=${dir}`, '--remote-debugging-pipe', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], detached: true },
  );
  const pipe = chromium.stdio[3] as Writable;
  // Chromium killed at the end: a last detach may find the pipe closed.
  pipe.on('error', () => undefined);
  const counted = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes++;
      pipe.write(chunk, done);
    },
    writev(chunks, done) {
      writes++;
      pipe.write(Buffer.concat(chunks.map((c) => c.chunk as Buffer)), done);
    },
  });
  hub = new CdpHub(counted, chromium.stdio[4] as Readable);
});

after(async () => {
  hub.end();
  const exited = new Promise((resolve) => chromium.once('exit', resolve));
  // Its helpers too: they write into its dir until they go.
  process.kill(-(chromium.pid as number), 'SIGKILL');
  await exited;
  rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
});

/** A connection that keeps what it is sent, by id and in order. */
async function connection() {
  const channel = await hub.open();
  const seen: Record<string, unknown>[] = [];
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  channel.onmessage = (text) => {
    const message = JSON.parse(text) as Record<string, unknown>;
    seen.push(message);
    if (typeof message.id === 'number') waiting.get(message.id)?.(message);
  };
  let id = 0;
  const send = (method: string, params: object = {}, sessionId?: string) => {
    const own = ++id;
    const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(own, resolve));
    channel.send(JSON.stringify({ id: own, method, params, ...(sessionId !== undefined && { sessionId }) }));
    return answered;
  };
  return { channel, seen, send };
}

async function pageSession(send: (method: string, params?: object, sessionId?: string) => Promise<unknown>) {
  const { result } = (await send('Target.getTargets')) as {
    result: { targetInfos: { targetId: string; type: string }[] };
  };
  const page = result.targetInfos.find((t) => t.type === 'page');
  assert.ok(page, 'about:blank is open');
  const attached = (await send('Target.attachToTarget', { targetId: page.targetId, flatten: true })) as {
    result: { sessionId: string };
  };
  return attached.result.sessionId;
}

test(
  "a connection reaches only the sessions attached through it; another's is answered as unknown, unrun",
  BOUND,
  async () => {
    const a = await connection();
    const b = await connection();
    const own = await pageSession(a.send);
    const set = await a.send('Runtime.evaluate', { expression: 'globalThis.mark = 1' }, own);
    assert.ok(set.result, JSON.stringify(set));
    const refused = await b.send('Runtime.evaluate', { expression: 'globalThis.mark = 2' }, own);
    assert.deepEqual(refused.error, { code: -32001, message: 'Session with given id not found.' });
    assert.equal(refused.sessionId, own);
    const read = (await a.send('Runtime.evaluate', { expression: 'globalThis.mark' }, own)) as {
      result: { result: { value: number } };
    };
    assert.equal(read.result.result.value, 1, "b's command never ran");
    // Its own browser session is a connection's alone: messages without a sessionId, and it sees none in what comes.
    const version = await b.send('Browser.getVersion');
    assert.ok(version.result);
    assert.equal(version.sessionId, undefined);
    assert.deepEqual(
      b.seen.filter((m) => m.sessionId === own).map((m) => m.id),
      [refused.id],
      "b sees nothing of a's page but the refusal",
    );
    a.channel.close();
    b.channel.close();
  },
);

test('what a connection sends in one turn reaches Chromium in one write, answered in order', BOUND, async () => {
  const c = await connection();
  const before = writes;
  const answers = Array.from({ length: 5 }, () => c.send('Browser.getVersion'));
  const ids = (await Promise.all(answers)).map((m) => m.id);
  assert.deepEqual(ids, [1, 2, 3, 4, 5]);
  assert.equal(writes - before, 1, 'one write for the five');
  c.channel.close();
});

test("each connection's messages are handed over on turns of their own, in order", BOUND, async () => {
  const c: { channel: CdpChannel; seen: Record<string, unknown>[]; send: (m: string) => Promise<unknown> } =
    await connection();
  // What a connection does on one message runs before the next one reaches it (puppeteer relies on it).
  const order: string[] = [];
  const handler = c.channel.onmessage;
  c.channel.onmessage = (text) => {
    handler?.(text);
    order.push(`message ${JSON.parse(text).id}`);
    queueMicrotask(() => order.push(`after ${JSON.parse(text).id}`));
  };
  await Promise.all([c.send('Browser.getVersion'), c.send('Browser.getVersion')]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['message 1', 'after 1', 'message 2', 'after 2']);
  c.channel.close();
});
