import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { context, propagation, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { localInfra } from '@wap/db';
import { createLogger } from '@wap/log';
import { Consumer, type ConsumeSettings, connectNats, ensureStreams, type NatsLink, Publisher } from './index.js';

const log = createLogger({ service: 'test', level: 'error', destination: new Writable({ write: (_c, _e, d) => d() }) });
// The local NATS from @wap/db, and an until() of its own: @wap/testkit depends on this library.
const NATS_URL = localInfra().natsUrl;
let link: NatsLink;
const streams: string[] = [];

before(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  link = await connectNats({ url: NATS_URL, name: 'events-test', log });
});
after(async () => {
  const jsm = await jetstreamManager(link.nc);
  for (const name of streams) await jsm.streams.delete(name).catch(() => undefined);
  await link.drain();
});

/** A work-queue stream and consumer with names no other test run shares. */
async function workQueue(ackWaitMs = 30_000) {
  const name = `T_${randomBytes(4).toString('hex').toUpperCase()}`;
  const subject = `test.${name.toLowerCase()}`;
  streams.push(name);
  await ensureStreams(
    link.nc,
    [{ name, subjects: [`${subject}.>`], retention: 'workqueue' }],
    [{ stream: name, name: 'worker', ackWaitMs, maxDeliver: 5 }],
  );
  return { name, subject };
}

function collect<T>(stream: string, handle: ConsumeSettings<T>['handle'], concurrency = 2) {
  return new Consumer<T>(link.nc, { stream, consumer: 'worker', concurrency, retryDelayMs: 50, log, handle });
}

/** Polls `check` until it holds; throws after `ms` (a ceiling, not a pace). */
const until = async (check: () => boolean | Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};
/** Messages the stream still holds: a work queue drops each once it is acked or terminated. */
const held = async (stream: string) => (await (await jetstreamManager(link.nc)).streams.info(stream)).state.messages;

test('declaring streams twice is harmless and updates them', async () => {
  const { name, subject } = await workQueue();
  await ensureStreams(link.nc, [{ name, subjects: [`${subject}.>`], retention: 'workqueue', maxAgeMs: 60_000 }]);
  const info = await (await jetstreamManager(link.nc)).streams.info(name);
  assert.equal(info.config.max_age, 60_000 * 1_000_000);
});

test('the same Nats-Msg-Id is stored once', async () => {
  const { name, subject } = await workQueue();
  const publisher = new Publisher(link.nc);
  const first = await publisher.publish(`${subject}.a`, { n: 1 }, { msgId: 'same' });
  const second = await publisher.publish(`${subject}.a`, { n: 1 }, { msgId: 'same' });
  assert.equal(first.duplicate, false);
  assert.equal(second.duplicate, true);
  const info = await (await jetstreamManager(link.nc)).streams.info(name);
  assert.equal(info.state.messages, 1);
});

test('a failed handler gets the message again; success acks it', async () => {
  const { name, subject } = await workQueue();
  const seen: number[] = [];
  const consumer = collect<{ n: number }>(name, async (d) => {
    seen.push(d.deliveryCount);
    if (d.deliveryCount < 3) throw new Error('transient');
  });
  await consumer.start();
  await new Publisher(link.nc).publish(`${subject}.x`, { n: 1 }, { msgId: 'retry-1' });
  await until(() => seen.length === 3);
  await consumer.stop();
  assert.deepEqual(seen, [1, 2, 3]);
  // The ack travels after the handler returns: acked, the work queue lets the message go.
  await until(async () => (await held(name)) === 0);
});

test('a handler that says "not yet" gets the message back after that delay', async () => {
  const { name, subject } = await workQueue();
  const seen: number[] = [];
  const consumer = collect<{ n: number }>(name, async () => {
    seen.push(Date.now());
    return seen.length < 2 ? { retryInMs: 400 } : undefined;
  });
  await consumer.start();
  await new Publisher(link.nc).publish(`${subject}.x`, { n: 1 }, { msgId: 'later-1' });
  await until(() => seen.length === 2);
  await consumer.stop();
  const [first = 0, second = 0] = seen;
  assert.ok(second - first >= 350, `offered again after ${second - first} ms`);
});

test('a body that is not JSON is terminated, not retried forever', async () => {
  const { name, subject } = await workQueue();
  let handled = 0;
  const consumer = collect(name, async () => {
    handled++;
  });
  await consumer.start();
  link.nc.publish(`${subject}.bad`, 'not json{');
  await new Publisher(link.nc).publish(`${subject}.good`, { ok: true }, { msgId: 'good' });
  await until(() => handled === 1);
  // Both messages settled with the server: nothing waits for an ack or a redelivery.
  const worker = async () => (await jetstreamManager(link.nc)).consumers.info(name, 'worker');
  await until(async () => {
    const info = await worker();
    return info.num_ack_pending === 0 && info.num_pending === 0;
  });
  await consumer.stop();
  assert.equal((await worker()).num_redelivered, 0, 'the bad body was not handed back');
  assert.equal(handled, 1);
});

test('the publisher trace context reaches the handler', async () => {
  const { name, subject } = await workQueue();
  const traceId = randomBytes(16).toString('hex');
  let seen: string | undefined;
  const consumer = collect(name, async () => {
    seen = trace.getSpan(context.active())?.spanContext().traceId;
  });
  await consumer.start();
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId: randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.SAMPLED,
  });
  await context.with(parent, () => new Publisher(link.nc).publish(`${subject}.t`, {}, { msgId: 't' }));
  await until(() => seen !== undefined);
  await consumer.stop();
  assert.equal(seen, traceId);
});

test('a worker that dies without acking loses nothing: another gets the message', async () => {
  const { name, subject } = await workQueue(500);
  const otherLink = await connectNats({ url: NATS_URL, name: 'doomed-worker', log });
  let doomedGot = 0;
  const doomed = new Consumer(otherLink.nc, {
    stream: name,
    consumer: 'worker',
    log,
    handle: () => {
      doomedGot++;
      return new Promise(() => undefined); // never finishes: the process "dies" below
    },
  });
  await doomed.start();
  await new Publisher(link.nc).publish(`${subject}.job`, { job: 1 }, { msgId: 'job-1' });
  await until(() => doomedGot === 1);
  otherLink.nc.close();
  const got: number[] = [];
  const survivor = collect<{ job: number }>(name, async (d) => {
    got.push(d.data.job);
  });
  await survivor.start();
  await until(() => got.length === 1);
  await survivor.stop();
  assert.deepEqual(got, [1]);
});
