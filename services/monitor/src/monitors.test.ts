// The MonitorService through gRPC, the service run as the fleet runs it:
// monitors created with their schedule and target checked and the target
// sealed at rest, listed per workspace newest first, deleted with what they kept.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { isApiError } from '@wap/errors';
import { ledger, monitor } from '@wap/proto';
import { createClient } from '@wap/rpc';
import { type FreshDatabase, freePort, type ServiceProcess, waitServing } from '@wap/testkit';
import pg from 'pg';
import { freshDatabase, spawnMonitor } from './test-support.js';

let database: FreshDatabase;
let service: ServiceProcess;
let client: ReturnType<typeof createClient<(typeof monitor.MonitorService)['method']>>;

before(async () => {
  database = await freshDatabase();
  service = spawnMonitor(database.url, await freePort(), {
    MONITOR_KEY: 'the-monitor-key-of-this-test-run-0123456789',
  });
  await waitServing(service.address);
  client = createClient(monitor.MonitorService, service.address, { token: service.token });
});
after(async () => {
  client?.close();
  service?.proc.kill('SIGTERM');
  await service?.exited;
  await database?.drop();
});

const code = (c: string) => (err: unknown) => isApiError(err) && err.code === c;
const every = (value: string) => ({ kind: { case: 'every' as const, value } });
const webhook = (value: string) => ({ kind: { case: 'webhook' as const, value } });

test('a monitor is created with its schedule and target; the target is sealed at rest; a webhook gets its secret once', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const made = await client.createMonitor({
    workspaceId,
    plan: ledger.Plan.PRO,
    url: 'https://example.com/news',
    schedule: every('15m'),
    target: webhook('https://hooks.example.com/notify/abc?token=sekrit-token-value'),
  });
  const m = made.monitor as monitor.Monitor;
  assert.match(made.webhookSecret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
  assert.deepEqual([m.url, m.targetKind, m.schedule?.kind.value], ['https://example.com/news', 'webhook', '15m']);
  assert.equal(m.targetUrl, 'https://hooks.example.com/notify/…', 'the list never shows the token');
  const due = Number(m.nextCheckAt?.seconds) * 1000 - Date.now();
  assert.ok(due < 91_000, 'the first check takes the baseline within a tenth of the interval');
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const { rows } = await db.query('SELECT row_to_json(m)::text AS row FROM monitors m WHERE id = $1', [m.id]);
    assert.ok(!rows[0].row.includes('sekrit-token-value'), 'no target token in the row');
    assert.ok(!rows[0].row.includes(made.webhookSecret.slice(6)), 'no signing secret in the row');
  } finally {
    await db.end();
  }
});

test('schedules, targets and settings it cannot use are refused by name', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const base = {
    workspaceId,
    url: 'https://example.com/',
    schedule: every('1h'),
    target: webhook('https://example.com/h'),
  };
  await assert.rejects(client.createMonitor({ ...base, schedule: every('30s') }), code('bad_request'));
  await assert.rejects(
    client.createMonitor({
      ...base,
      schedule: { kind: { case: 'cron', value: { expression: '* * * * * *', timezone: 'UTC' } } },
    }),
    code('bad_request'),
  );
  await assert.rejects(
    client.createMonitor({
      ...base,
      target: { kind: { case: 'discord', value: 'https://example.com/api/webhooks/1/x' } },
    }),
    code('bad_request'),
  );
  await assert.rejects(client.createMonitor({ ...base, target: webhook('http://example.com/h') }), code('bad_request'));
  await assert.rejects(
    client.createMonitor({ ...base, target: webhook('https://169.254.169.254/latest') }),
    code('page_unreachable'),
  );
  await assert.rejects(client.createMonitor({ ...base, url: 'file:///etc/passwd' }), code('bad_request'));
  await assert.rejects(client.createMonitor({ ...base, target: undefined }), code('bad_request'));
  await assert.rejects(
    client.createMonitor({ ...base, scrape: { engine: 'telepathy', headers: {}, waitForMs: 0 } }),
    code('bad_request'),
  );
  const cron = await client.createMonitor({
    ...base,
    schedule: { kind: { case: 'cron', value: { expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' } } },
    target: { kind: { case: 'slack', value: 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX' } },
  });
  assert.equal(cron.webhookSecret, '', 'no secret for a Slack target');
});

test('monitors are listed newest first with a cursor, per workspace, and deleted with what they kept', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (
        await client.createMonitor({
          workspaceId,
          url: `https://example.com/${i}`,
          schedule: every('1h'),
          target: webhook('https://example.com/h'),
        })
      ).monitor?.id as string,
    );
  const first = await client.listMonitors({ workspaceId, limit: 2 });
  assert.deepEqual(
    first.monitors.map((m) => m.id),
    [ids[2], ids[1]],
  );
  const rest = await client.listMonitors({ workspaceId, limit: 2, cursor: first.nextCursor });
  assert.deepEqual(
    rest.monitors.map((m) => m.id),
    [ids[0]],
  );
  assert.equal(rest.nextCursor, '');
  assert.deepEqual((await client.listMonitors({ workspaceId: `ws-${randomUUID()}`, limit: 10 })).monitors, []);
  await assert.rejects(
    client.deleteMonitor({ workspaceId: `ws-${randomUUID()}`, monitorId: ids[0] as string }),
    code('not_found'),
  );
  await client.deleteMonitor({ workspaceId, monitorId: ids[0] as string });
  await assert.rejects(client.deleteMonitor({ workspaceId, monitorId: ids[0] as string }), code('not_found'));
  assert.equal((await client.listMonitors({ workspaceId, limit: 10 })).monitors.length, 2);
});

test('a workspace keeps as many monitors as its plan allows, checked at most as often as it allows; a creation past either is refused', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  type Schedule = Parameters<typeof client.createMonitor>[0]['schedule'];
  const make = (schedule: Schedule = every('1h'), plan = ledger.Plan.FREE, ws = workspaceId) =>
    client.createMonitor({
      workspaceId: ws,
      plan,
      url: 'https://example.com/',
      schedule,
      target: webhook('https://example.com/h'),
    });
  const refusal = async (made: Promise<unknown>) => {
    const err = await made.then(
      () => assert.fail('created'),
      (e: unknown) => e,
    );
    assert.ok(isApiError(err), String(err));
    return { code: err.code, details: err.details };
  };
  // Twelve at once on a free workspace: exactly its five are made, whatever the order.
  const made = await Promise.allSettled(Array.from({ length: 12 }, () => make()));
  assert.equal(made.filter((m) => m.status === 'fulfilled').length, 5);
  for (const m of made.filter((m) => m.status === 'rejected'))
    assert.deepEqual(
      { code: m.reason.code, details: m.reason.details },
      { code: 'cap_exceeded', details: { cap: 5, spent: 5, needed: 1 } },
    );
  // Room again once one is deleted.
  const [one] = (await client.listMonitors({ workspaceId, limit: 1 })).monitors;
  await client.deleteMonitor({ workspaceId, monitorId: one?.id as string });
  await make();
  assert.deepEqual(await refusal(make()), { code: 'cap_exceeded', details: { cap: 5, spent: 5, needed: 1 } });
  // The same workspace on pro (its plan moved) has room for more.
  await make(every('1h'), ledger.Plan.PRO);
  // Intervals: free checks hourly at most, builder every 5 minutes, pro every minute.
  const other = `ws-${randomUUID()}`;
  assert.deepEqual(await refusal(make(every('15m'), ledger.Plan.FREE, other)), {
    code: 'plan_required',
    details: { plan: 'builder', current: 'free' },
  });
  const everyTwoMinutes = { kind: { case: 'cron' as const, value: { expression: '*/2 * * * *', timezone: 'UTC' } } };
  assert.deepEqual(await refusal(make(everyTwoMinutes, ledger.Plan.BUILDER, other)), {
    code: 'plan_required',
    details: { plan: 'pro', current: 'builder' },
  });
  await make(every('5m'), ledger.Plan.BUILDER, other);
  await make(everyTwoMinutes, ledger.Plan.PRO, other);
  await make(every('1m'), ledger.Plan.SCALE, other);
  // A gateway that names no plan gets the strictest.
  assert.equal((await refusal(make(every('15m'), ledger.Plan.UNSPECIFIED, other))).code, 'plan_required');
});
