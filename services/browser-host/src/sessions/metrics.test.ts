// The host's busy-browser figures as Prometheus scrapes them, from the service
// run as the fleet runs it (the shared runtime around service.ts, METRICS_PORT
// set), with a real ledger served in-process and a real Chromium: a session
// opened over gRPC and ended by its client moves them, and only the metrics
// port serves them, not the public CDP one.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  freshDatabase as freshLedgerDatabase,
  type InProcessLedger,
  serveLedger,
} from '@wap/billing-ledger/test-support';
import { sessionStreams } from '@wap/events';
import { browser, ledger } from '@wap/proto';
import { createClient } from '@wap/rpc';
import {
  type FreshDatabase,
  freePorts,
  type ServiceProcess,
  testNats,
  uniqueNamespace,
  until,
  waitServing,
} from '@wap/testkit';
import { freshDatabase, spawnBrowserHost } from '../test-support.js';

const namespace = uniqueNamespace('metrics');
let database: FreshDatabase;
let ledgerDatabase: { url: string; drop(): Promise<void> };
let served: InProcessLedger;
let host: ServiceProcess;
let cdpPort: number;
let metricsPort: number;

before(async () => {
  [database, ledgerDatabase] = await Promise.all([freshDatabase(), freshLedgerDatabase()]);
  served = await serveLedger(ledgerDatabase.url, () => new Date());
  const [grpcPort, cdp, metrics] = (await freePorts(3)) as [number, number, number];
  [cdpPort, metricsPort] = [cdp, metrics];
  host = spawnBrowserHost(database.url, grpcPort, {
    BILLING_LEDGER_ADDR: served.address,
    NATS_NAMESPACE: namespace,
    CDP_PORT: String(cdpPort),
    METRICS_PORT: String(metricsPort),
    SESSION_CAPACITY: '4',
  });
  const died = host.exited.then((code) => {
    throw new Error(`exited ${code} before serving; log: ${readFileSync(host.logFile, 'utf8')}`);
  });
  await Promise.race([waitServing(host.address), died]);
});

after(async () => {
  if (host?.proc.exitCode === null) host.proc.kill('SIGKILL');
  await served?.close();
  const nats = await testNats('metrics-test');
  const jsm = await jetstreamManager(nats.nc);
  for (const { name } of sessionStreams(namespace)) await jsm.streams.delete(name).catch(() => undefined);
  await nats.drain();
  await Promise.all([database?.drop(), ledgerDatabase?.drop()]);
});

/** The host's figures, parsed from the Prometheus text format at GET /metrics. */
async function figures(): Promise<{ live: number; capacity: number; busy: number }> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const value = (name: string) => {
    const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    assert.ok(line, `${name} is served`);
    return Number(line[1]);
  };
  return {
    live: value('wap_browser_sessions_live'),
    capacity: value('wap_browser_sessions_capacity'),
    busy: value('wap_browser_sessions_busy_ratio'),
  };
}

test('the metrics port serves the figures and the process metrics; the CDP port does not', async () => {
  assert.deepEqual(await figures(), { live: 0, capacity: 4, busy: 0 });
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  assert.match(text, /^# TYPE wap_browser_sessions_busy_ratio gauge$/m);
  assert.match(text, /^process_cpu_user_seconds_total /m);
  assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/`)).status, 404);
  assert.equal((await fetch(`http://127.0.0.1:${cdpPort}/metrics`)).status, 404);
});

test('a session opening and ending moves live and the busy ratio', async () => {
  const workspaceId = `ws-metrics-${randomUUID()}`;
  await served.client.ensureAccount({ workspaceId, plan: ledger.Plan.FREE, monthlyAllowanceMillicredits: 100_000n });
  const client = createClient(browser.BrowserService, host.address, { defaultTimeoutMs: 30_000, token: host.token });
  try {
    const opened = await client.openSession({ workspaceId, requestId: `op_${randomUUID()}`, sessionId: '' });
    assert.deepEqual(await figures(), { live: 1, capacity: 4, busy: 0.25 });
    // The client connects and goes: with no idle timeout, the session ends with it.
    const socket = new WebSocket(opened.webSocketUrl);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    socket.close();
    await until('the session ended', async () => (await figures()).live === 0);
    assert.deepEqual(await figures(), { live: 0, capacity: 4, busy: 0 });
  } finally {
    client.close();
  }
});

test('the host exits 0 on SIGTERM', async () => {
  host.proc.kill('SIGTERM');
  assert.equal(await host.exited, 0, readFileSync(host.logFile, 'utf8'));
});
