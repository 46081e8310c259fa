// Monitors through the gateway (docs/monitors.md): created with what they
// are given checked by name, listed per workspace newest first with a
// cursor, deleted; free to create, list and delete.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { availableCredits, call } from './api.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet({ env: { LOG_LEVEL: 'info' } });
});
after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
});

type MonitorJson = {
  id: string;
  url: string;
  notify: { kind: string; url: string };
  nextCheckAt: string;
  lastCheck: null;
};

describe('monitors', () => {
  test('a monitor is created, listed and deleted through the gateway, for free, in its workspace only', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const other = await fleet.workspace('pro');
    const before = await availableCredits(fleet.gatewayUrl, apiKey);
    const made = await call<{ monitor: MonitorJson; webhookSecret: string | null }>(
      fleet.gatewayUrl,
      'POST',
      '/v1/monitors',
      {
        key: apiKey,
        body: {
          url: 'https://example.com/pricing',
          schedule: { every: '1h' },
          notify: { webhook: 'https://hooks.example.com/wap/secret-token' },
        },
      },
    );
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.match(made.body.webhookSecret ?? '', /^whsec_/);
    assert.deepEqual(made.body.monitor.notify, { kind: 'webhook', url: 'https://hooks.example.com/wap/…' });
    assert.equal(made.body.monitor.lastCheck, null);
    const second = await call<{ monitor: MonitorJson }>(fleet.gatewayUrl, 'POST', '/v1/monitors', {
      key: apiKey,
      body: {
        url: 'https://example.com/news',
        schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
        watch: { selector: 'article' },
        notify: { slack: 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX' },
      },
    });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const list = async (key: string, query = '') =>
      (
        await call<{ monitors: MonitorJson[]; nextCursor: string | null }>(
          fleet.gatewayUrl,
          'GET',
          `/v1/monitors${query}`,
          { key },
        )
      ).body;
    const first = await list(apiKey, '?limit=1');
    assert.deepEqual(
      first.monitors.map((m) => m.id),
      [second.body.monitor.id],
      'newest first',
    );
    const rest = await list(apiKey, `?limit=1&cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
    assert.deepEqual(
      rest.monitors.map((m) => m.id),
      [made.body.monitor.id],
    );
    assert.deepEqual((await list(other.apiKey)).monitors, []);
    const theirs = await call<{ code: string }>(fleet.gatewayUrl, 'DELETE', `/v1/monitors/${made.body.monitor.id}`, {
      key: other.apiKey,
    });
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'not_found']);
    assert.equal(
      (await call(fleet.gatewayUrl, 'DELETE', `/v1/monitors/${made.body.monitor.id}`, { key: apiKey })).status,
      200,
    );
    assert.deepEqual(
      (await list(apiKey)).monitors.map((m) => m.id),
      [second.body.monitor.id],
    );
    assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), before, 'creating, listing and deleting are free');
  });

  test('what a monitor cannot use is refused by name', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const create = (body: Record<string, unknown>) =>
      call<{ code: string; details?: { issues?: { path: string }[] } }>(fleet.gatewayUrl, 'POST', '/v1/monitors', {
        key: apiKey,
        body: {
          url: 'https://example.com/',
          schedule: { every: '1h' },
          notify: { webhook: 'https://example.com/h' },
          ...body,
        },
      });
    const refused = async (body: Record<string, unknown>, path: RegExp, code = 'bad_request') => {
      const r = await create(body);
      assert.equal(r.body.code, code, JSON.stringify(r.body));
      assert.ok(r.status >= 400 && r.status < 500);
      if (code === 'bad_request') assert.match(JSON.stringify(r.body.details), path);
    };
    await refused({ schedule: { every: '10s' } }, /schedule/);
    await refused({ schedule: { cron: 'whenever' } }, /schedule/);
    await refused({ notify: { discord: 'https://example.com/api/webhooks/1/x' } }, /notify/);
    await refused({ notify: { webhook: 'http://example.com/h' } }, /notify/);
    await refused({ notify: { webhook: 'https://169.254.169.254/latest/meta-data' } }, /./, 'page_unreachable');
    await refused({ url: 'ftp://example.com/' }, /url/);
    await refused(
      { notify: { webhook: 'https://example.com/h', slack: 'https://hooks.slack.com/services/a/b/c' } },
      /notify/,
    );
  });
});

/** A fleet whose monitors check pages on 127.0.0.2, polling every 200 ms, and its monitor database. */
async function checkingFleet() {
  const local = await startFleet({ env: { LOG_LEVEL: 'info', EGRESS_ALLOW: '127.0.0.2/32', MONITOR_POLL_MS: '200' } });
  const db = new pg.Client({ connectionString: local.databaseUrl('monitor') });
  await db.connect();
  return {
    local,
    db,
    close: async () => {
      await db.end();
      await local.stop();
      await local.dropDatabases();
    },
  };
}

describe('monitor checks', () => {
  test('a check bills a page; noise is no change; a real change bills a change, keeps its diff and queues one notification', async () => {
    let article = 'Prices rise in winter, the report says.';
    let clock = '10:00:01';
    const site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><head><title>Report</title></head><body><main><article>
        <h1>Daily report</h1><p>Updated at ${clock}</p><p>${article}</p>
        <p>Analysts expect the trend to hold through the season, with the usual caveats about the weather.</p>
      </article></main></body></html>`);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.2', r));
    const { local, db, close } = await checkingFleet();
    try {
      const { apiKey } = await local.workspace('pro');
      const made = await call<{ monitor: MonitorJson }>(local.gatewayUrl, 'POST', '/v1/monitors', {
        key: apiKey,
        body: {
          url: `http://127.0.0.2:${(site.address() as { port: number }).port}/report`,
          schedule: { every: '1h' },
          notify: { webhook: 'https://example.com/h' },
        },
      });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const id = made.body.monitor.id;
      type Listed = {
        id: string;
        lastCheck: { at: string; status: string; changed: boolean; errorCode: string | null } | null;
      };
      const read = async () =>
        (
          await call<{ monitors: Listed[] }>(local.gatewayUrl, 'GET', '/v1/monitors', { key: apiKey })
        ).body.monitors.find((m) => m.id === id) as Listed;
      /** Makes the monitor due now (the clock moved on an hour) and waits for that check. */
      const check = async () => {
        const before = (await read()).lastCheck?.at ?? '';
        await db.query('UPDATE monitors SET next_check_at = now() WHERE id = $1', [id]);
        await until('the check ran', async () => ((await read()).lastCheck?.at ?? '') > before);
        return (await read()).lastCheck;
      };
      const credits0 = await availableCredits(local.gatewayUrl, apiKey);
      assert.deepEqual(await check().then((c) => [c?.status, c?.changed]), ['ok', false], 'the baseline');
      assert.equal(await availableCredits(local.gatewayUrl, apiKey), credits0 - 1, 'one page');
      clock = '11:42:09';
      assert.deepEqual(await check().then((c) => [c?.status, c?.changed]), ['ok', false], 'a clock is noise');
      assert.equal(await availableCredits(local.gatewayUrl, apiKey), credits0 - 2);
      article = 'Prices fall in winter, the report says.';
      assert.deepEqual(await check().then((c) => [c?.status, c?.changed]), ['changed', true]);
      assert.equal(await availableCredits(local.gatewayUrl, apiKey), credits0 - 4, 'a page and a change');
      const snapshots = await db.query('SELECT diff FROM snapshots WHERE monitor_id = $1 ORDER BY taken_at', [id]);
      assert.equal(snapshots.rowCount, 2, 'the baseline and the change');
      assert.deepEqual(snapshots.rows[1].diff, { added: ['fall'], removed: ['rise'] });
      const deliveries = await db.query('SELECT status FROM deliveries WHERE monitor_id = $1', [id]);
      assert.deepEqual(deliveries.rows, [{ status: 'pending' }], 'one notification queued');
      // A workspace with nothing left: the check is skipped, nothing billed.
      const ws = `broke-${Date.now()}`;
      await local.admin('workspace', 'create', ws, '--plan', 'free', '--allowance', '0');
      const { apiKey: broke } = await local.admin<{ apiKey: string }>('key', 'create', ws);
      const poor = await call<{ monitor: MonitorJson }>(local.gatewayUrl, 'POST', '/v1/monitors', {
        key: broke,
        body: { url: made.body.monitor.url, schedule: { every: '1h' }, notify: { webhook: 'https://example.com/h' } },
      });
      await db.query('UPDATE monitors SET next_check_at = now() WHERE id = $1', [poor.body.monitor.id]);
      await until('the check was skipped', async () => {
        const m = (
          await call<{ monitors: (Listed & { skippedReason: string | null })[] }>(
            local.gatewayUrl,
            'GET',
            '/v1/monitors',
            { key: broke },
          )
        ).body.monitors[0];
        return m?.lastCheck?.status === 'skipped' && m.skippedReason === 'credits';
      });
      assert.equal(await availableCredits(local.gatewayUrl, broke), 0);
    } finally {
      await close();
      site.close();
    }
  });
});

describe('monitor notifications', () => {
  test('a change reaches a signed webhook once, after its 500s; a 429 with Retry-After: 2 waits at least 2 s', async () => {
    let article = 'The bridge opens in spring.';
    const site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><body><main><article><h1>Works</h1><p>${article}</p>
        <p>The council published the schedule for the remaining construction work this week.</p></article></main></body></html>`);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.2', r));
    // The webhook: answers 500 twice, then 200; another answers 429 (Retry-After: 2) once, then 200.
    const received: { path: string; at: number; body: string; headers: Record<string, string> }[] = [];
    const answers: Record<string, number[]> = { '/flaky': [500, 500, 200], '/busy': [429, 200] };
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({ path, at: Date.now(), body, headers: req.headers as Record<string, string> });
        const status = answers[path]?.shift() ?? 200;
        res.writeHead(status, status === 429 ? { 'retry-after': '2' } : {}).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.2', r));
    const { local, db, close } = await checkingFleet();
    try {
      const { apiKey } = await local.workspace('pro');
      const base = `http://127.0.0.2:${(hook.address() as { port: number }).port}`;
      const pageUrl = `http://127.0.0.2:${(site.address() as { port: number }).port}/works`;
      const made: { id: string; secret: string }[] = [];
      for (const path of ['/flaky', '/busy']) {
        const r = await call<{ monitor: MonitorJson; webhookSecret: string }>(
          local.gatewayUrl,
          'POST',
          '/v1/monitors',
          {
            key: apiKey,
            body: { url: pageUrl, schedule: { every: '1h' }, notify: { webhook: `${base}${path}` } },
          },
        );
        assert.equal(r.status, 200, JSON.stringify(r.body));
        made.push({ id: r.body.monitor.id, secret: r.body.webhookSecret });
      }
      const due = () =>
        db.query('UPDATE monitors SET next_check_at = now() WHERE id = ANY($1::uuid[])', [made.map((m) => m.id)]);
      const checked = async (n: number) =>
        until('the checks ran', async () => {
          const { rows } = await db.query(
            'SELECT count(*)::int AS n FROM checks WHERE finished_at IS NOT NULL AND monitor_id = ANY($1::uuid[])',
            [made.map((m) => m.id)],
          );
          return rows[0].n >= n;
        });
      await due();
      await checked(2);
      article = 'The bridge opens in autumn.';
      await due();
      await checked(4);
      await until(
        'both notifications delivered',
        async () => {
          const { rows } = await db.query("SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'");
          return rows[0].n === 2;
        },
        60_000,
      );
      const flaky = received.filter((r) => r.path === '/flaky');
      assert.equal(flaky.length, 3, 'two 500s, then delivered');
      const event = new Webhook(made[0]?.secret as string).verify(
        flaky[2]?.body as string,
        flaky[2]?.headers as Record<string, string>,
      ) as {
        type: string;
        data: { url: string; diff: { added: string[]; removed: string[] } };
      };
      assert.deepEqual([event.type, event.data.url], ['monitor.changed', pageUrl]);
      assert.match(event.data.diff.added.join(' '), /autumn/, JSON.stringify(event.data.diff));
      assert.match(event.data.diff.removed.join(' '), /spring/);
      assert.throws(() =>
        new Webhook(made[1]?.secret as string).verify(
          flaky[2]?.body as string,
          flaky[2]?.headers as Record<string, string>,
        ),
      );
      const busy = received.filter((r) => r.path === '/busy');
      assert.equal(busy.length, 2);
      assert.ok(
        (busy[1]?.at ?? 0) - (busy[0]?.at ?? 0) >= 2_000,
        `waited ${(busy[1]?.at ?? 0) - (busy[0]?.at ?? 0)} ms`,
      );
      const log = await db.query('SELECT attempts, log FROM deliveries WHERE monitor_id = $1', [made[0]?.id]);
      assert.equal(log.rows[0].attempts, 3);
      assert.deepEqual(
        log.rows[0].log.map((a: { status: number }) => a.status),
        [500, 500, 200],
        'every attempt logged',
      );
    } finally {
      await close();
      site.close();
      hook.close();
    }
  });
});
