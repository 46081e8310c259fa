import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { before, test } from 'node:test';
import { SERVICES } from '@wap/config';
import { readLogLines, until } from '@wap/testkit';
import { fleet, sharedFleet } from './shared-fleet.js';

before(() => sharedFleet('plain'));

test('readiness reports all seven services healthy', async () => {
  const res = await fetch(`${fleet.gatewayUrl}/readyz`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { status: string; checks: Record<string, boolean> };
  assert.equal(body.status, 'ready');
  assert.deepEqual(Object.keys(body.checks).sort(), [...SERVICES].sort());
  assert.ok(Object.values(body.checks).every(Boolean));
  assert.ok(res.headers.get('x-request-id'), 'every response carries a request id');
});

test('one trace id crosses from the gateway to every service', async () => {
  const traceId = randomBytes(16).toString('hex');
  const res = await fetch(`${fleet.gatewayUrl}/readyz`, {
    headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
  });
  assert.equal(res.status, 200);
  for (const service of SERVICES) {
    await until(`${service} logs trace ${traceId}`, async () =>
      readLogLines(fleet.logFile(service)).some((line) => line.trace_id === traceId),
    );
  }
  const ledgerLine = readLogLines(fleet.logFile('billing-ledger')).find((l) => l.trace_id === traceId);
  assert.equal(ledgerLine?.rpc, '/grpc.health.v1.Health/Check');
});

test('a request with a body keeps its trace past the body read, into the service it calls', async () => {
  const { apiKey } = await fleet.workspace('pro');
  const traceId = randomBytes(16).toString('hex');
  // The body comes in two writes, so the gateway reads its end after the request's first events.
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${fleet.gatewayUrl}/v1/crawl/${randomUUID()}/cancel`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-length': '2',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.flushHeaders();
    req.write('{', () => setImmediate(() => req.end('}')));
  });
  assert.equal(status, 404);
  await until(`crawl logs its Cancel call in trace ${traceId}`, async () =>
    readLogLines(fleet.logFile('crawl')).some((line) => line.trace_id === traceId && /Cancel/.test(String(line.rpc))),
  );
  await until(`the gateway logs the request in trace ${traceId}`, async () =>
    readLogLines(fleet.logFile('gateway')).some((line) => line.trace_id === traceId && line.msg === 'request'),
  );
});

test('an unknown route answers the Error object of docs/errors.md', async () => {
  const res = await fetch(`${fleet.gatewayUrl}/v1/nothing-here`);
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), {
    code: 'not_found',
    message: (await import('@wap/errors')).ERRORS.not_found.message,
  });
});

test('with a service down, /readyz is 503 naming it, and ?scope=gateway (the probe) stays 200', async () => {
  assert.equal(await fleet.stopOne('monitor'), 0, 'monitor drained and exited 0');
  await until('readiness to name monitor down', async () => {
    const res = await fetch(`${fleet.gatewayUrl}/readyz`);
    const body = (await res.json()) as { checks: Record<string, boolean> };
    return res.status === 503 && body.checks.monitor === false && body.checks.crawl === true;
  });
  const own = await fetch(`${fleet.gatewayUrl}/readyz?scope=gateway`);
  assert.equal(own.status, 200);
  assert.deepEqual(await own.json(), { status: 'ready', checks: { gateway: true } });
});

test('SIGTERM drains and every service exits 0', async () => {
  // Exit 0 is a drain finished within SHUTDOWN_TIMEOUT: past it, a service exits 1 (libs/service).
  // (monitor was stopped, and its exit code checked, by the test before.)
  for (const service of SERVICES.filter((s) => s !== 'monitor')) {
    assert.equal(await fleet.stopOne(service), 0, `${service} exit code`);
  }
});
