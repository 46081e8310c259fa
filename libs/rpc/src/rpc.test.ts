import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ApiError, isApiError } from '@wap/errors';
import { createLogger } from '@wap/log';
import { health } from '@wap/proto';
import { addService, createClient, HealthService, type ServiceImpl } from './index.js';

const { SERVING, NOT_SERVING } = health.HealthCheckResponse_ServingStatus;
type HealthMethods = (typeof health.Health)['method'];

const lines: Record<string, unknown>[] = [];
const log = createLogger({
  service: 'test',
  // Health checks, the service these tests call, log their successes at debug.
  level: 'debug',
  destination: new Writable({
    write(chunk, _e, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  }),
});

const servers: grpc.Server[] = [];
async function serve(impl: ServiceImpl<HealthMethods>): Promise<string> {
  const server = new grpc.Server();
  addService(server, health.Health, impl, log);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  servers.push(server);
  return `127.0.0.1:${port}`;
}

before(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
after(() => {
  for (const s of servers) s.forceShutdown();
});

const notUsed = {
  list: async () => ({}),
  watch: async function* () {},
};

test('a typed unary call round-trips a message', async () => {
  const address = await serve({
    ...notUsed,
    check: async (req) => ({ status: req.service === 'crawl' ? SERVING : NOT_SERVING }),
  });
  const client = createClient(health.Health, address);
  assert.equal((await client.check({ service: 'crawl' })).status, SERVING);
  assert.equal((await client.check({ service: 'other' })).status, NOT_SERVING);
  client.close();
});

test('an API error keeps its code and details across three services', async () => {
  const deepest = await serve({
    ...notUsed,
    check: async () => {
      throw new ApiError('profile_in_use', { profileId: 'prof_1' });
    },
  });
  const deepClient = createClient(health.Health, deepest);
  const middle = await serve({ ...notUsed, check: async (req) => deepClient.check(req) });
  const middleClient = createClient(health.Health, middle);
  const front = await serve({ ...notUsed, check: async (req) => middleClient.check(req) });
  const client = createClient(health.Health, front);
  const err = await client.check({ service: '' }).catch((e) => e);
  assert.ok(isApiError(err));
  assert.equal(err.code, 'profile_in_use');
  assert.deepEqual(err.details, { profileId: 'prof_1' });
  for (const c of [client, middleClient, deepClient]) c.close();
});

test('an unexpected error becomes internal and leaks nothing', async () => {
  const address = await serve({
    ...notUsed,
    check: async () => {
      throw new Error('password=hunter2 at /srv/secret.ts:12');
    },
  });
  const client = createClient(health.Health, address);
  const err = await client.check({ service: '' }).catch((e) => e);
  assert.ok(isApiError(err));
  assert.equal(err.code, 'internal');
  assert.ok(!JSON.stringify({ m: err.message, d: err.details }).includes('hunter2'));
  client.close();
});

test('a database that cannot be reached is no_capacity with a Retry-After, not internal', async () => {
  // What node-postgres throws while Postgres restarts: the socket's own ECONNREFUSED.
  const { createServer, connect } = await import('node:net');
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const { port } = closed.address() as { port: number };
  await new Promise((r) => closed.close(r));
  const refused = await new Promise<Error>((resolve) => connect(port, '127.0.0.1').on('error', resolve));
  const address = await serve({
    ...notUsed,
    check: async () => {
      throw new Error('query failed', { cause: refused });
    },
  });
  const client = createClient(health.Health, address);
  const err = await client.check({ service: '' }).catch((e) => e);
  assert.ok(isApiError(err));
  assert.equal(err.code, 'no_capacity');
  assert.equal(err.status, 503);
  assert.deepEqual(err.details, { retryAfterSeconds: 2 });
  client.close();
});

test('every call has a deadline; passing it is deadline_exceeded', async () => {
  // The handler answers only once the test lets it (or after a minute): only the deadline can end the call first.
  let answer = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
    setTimeout(resolve, 60_000).unref();
  });
  const address = await serve({
    ...notUsed,
    check: async () => {
      await answered;
      return { status: SERVING };
    },
  });
  const client = createClient(health.Health, address, { defaultTimeoutMs: 100 });
  const err = await client.check({ service: '' }).catch((e) => e);
  assert.equal(err.code, 'deadline_exceeded');
  answer();
  client.close();
});

test('the caller trace context reaches the handler and its log lines', async () => {
  let seen: string | undefined;
  const address = await serve({
    ...notUsed,
    check: async () => {
      seen = trace.getSpan(context.active())?.spanContext().traceId;
      return { status: SERVING };
    },
  });
  const client = createClient(health.Health, address);
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
  });
  await context.with(parent, () => client.check({ service: '' }));
  assert.equal(seen, traceId);
  const line = lines.find((l) => l.trace_id === traceId && l.rpc === '/grpc.health.v1.Health/Check');
  assert.equal(
    line?.level,
    'debug',
    'a health check that succeeded is logged at debug (probes send them every few seconds)',
  );
  client.close();
});

test('health follows its probes, caches them, and stays down after shutdown', async () => {
  let up = true;
  let runs = 0;
  const probe = async () => {
    runs++;
    return up;
  };
  const service = new HealthService('crawl', [{ name: 'database', check: probe }], 0);
  const address = await serve(service.impl);
  const client = createClient(health.Health, address);
  assert.equal((await client.check({ service: '' })).status, SERVING);
  assert.equal((await client.check({ service: 'crawl' })).status, SERVING);
  const unknown = await client.check({ service: 'billing' }).catch((e) => e);
  assert.equal(unknown.code, 'not_found');
  up = false;
  assert.equal((await client.check({ service: '' })).status, NOT_SERVING);
  assert.deepEqual((await service.evaluate()).failing, ['database']);
  up = true;
  service.shutdown();
  assert.equal((await client.check({ service: '' })).status, NOT_SERVING);
  assert.ok(runs >= 3);
  client.close();
});

test('Watch streams status changes', async () => {
  let up = true;
  const service = new HealthService('crawl', [{ name: 'nats', check: async () => up }], 0);
  const client = createClient(health.Health, await serve(service.impl), { defaultTimeoutMs: 10_000 });
  const seen: number[] = [];
  for await (const update of client.watch({ service: '' })) {
    seen.push(update.status);
    if (seen.length === 1) up = false;
    if (seen.length === 2) service.shutdown();
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen, [SERVING, NOT_SERVING]);
  client.close();
});

test('a server stream outlives the default deadline of unary calls, and ends when the caller aborts', async () => {
  const address = await serve({
    ...notUsed,
    check: async () => ({ status: SERVING }),
    watch: async function* (_req, ctx) {
      for (let i = 0; !ctx.signal.aborted; i++) {
        yield { status: i % 2 === 0 ? SERVING : NOT_SERVING };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  });
  const client = createClient(health.Health, address, { defaultTimeoutMs: 150 });
  const abort = new AbortController();
  const started = Date.now();
  let seen = 0;
  for await (const _ of client.watch({ service: '' }, { signal: abort.signal })) {
    // Six updates take at least 500 ms: more than three times the default deadline.
    if (++seen === 6) break;
  }
  assert.equal(seen, 6);
  assert.ok(Date.now() - started >= 500);
  await assert.rejects(client.check({ service: '' }, { timeoutMs: 1 }), (e) => isApiError(e));
  const timed = client.watch({ service: '' }, { timeoutMs: 150 });
  await assert.rejects(
    (async () => {
      for await (const _ of timed) {
        // runs until the named deadline ends it
      }
    })(),
    (e) => isApiError(e) && e.code === 'deadline_exceeded',
  );
  abort.abort();
  client.close();
});

test('a peer that cannot be reached is a retryable no_capacity that says when to come back', async () => {
  // Nothing listens on this port: the call fails UNAVAILABLE without reaching a server.
  const client = createClient(health.Health, '127.0.0.1:1', { defaultTimeoutMs: 2_000 });
  const err = await client.check({ service: '' }).then(
    () => assert.fail('a call to nothing answered'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 'no_capacity');
  assert.equal(err.details?.retryAfterSeconds, 2);
  client.close();
});
