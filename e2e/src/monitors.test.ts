// Monitors through the gateway (docs/monitors.md): created with what they
// are given checked by name, listed per workspace newest first with a
// cursor, deleted; free to create, list and delete.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import pg from 'pg';
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
    const local = await startFleet({
      env: { LOG_LEVEL: 'info', EGRESS_ALLOW: '127.0.0.2/32', MONITOR_POLL_MS: '200' },
    });
    const db = new pg.Client({ connectionString: local.databaseUrl('monitor') });
    await db.connect();
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
      await db.end();
      await local.stop();
      await local.dropDatabases();
      site.close();
    }
  });
});
