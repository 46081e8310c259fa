// Monitors through the gateway (docs/monitors.md): created with what they
// are given checked by name, listed per workspace newest first with a
// cursor, deleted; free to create, list and delete.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { availableCredits, call } from './api.js';
import type { MonitorJson } from './monitor-fixtures.js';
import { fleet, sharedFleet } from './shared-fleet.js';

describe('monitors', () => {
  before(() => sharedFleet('plain'));

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

  test("a workspace keeps at most its plan's monitors, checked at most as often as its plan allows", async () => {
    const { apiKey } = await fleet.workspace('free');
    const create = (every: string) =>
      call<{ monitor?: MonitorJson; code?: string; details?: Record<string, unknown> }>(
        fleet.gatewayUrl,
        'POST',
        '/v1/monitors',
        {
          key: apiKey,
          body: { url: 'https://example.com/', schedule: { every }, notify: { webhook: 'https://example.com/h' } },
        },
      );
    const tooOften = await create('15m');
    assert.deepEqual(
      [tooOften.status, tooOften.body.code, tooOften.body.details],
      [403, 'plan_required', { plan: 'builder', current: 'free' }],
    );
    // Eight at once: the free plan's five are made, the rest refused, whatever the order.
    const made = await Promise.all(Array.from({ length: 8 }, () => create('1h')));
    assert.deepEqual(made.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 402, 402, 402]);
    for (const r of made.filter((r) => r.status === 402))
      assert.deepEqual([r.body.code, r.body.details], ['cap_exceeded', { cap: 5, spent: 5, needed: 1 }]);
    // Deleting one makes room for one.
    const first = made.find((r) => r.status === 200)?.body.monitor?.id;
    assert.equal((await call(fleet.gatewayUrl, 'DELETE', `/v1/monitors/${first}`, { key: apiKey })).status, 200);
    assert.equal((await create('1d')).status, 200);
    assert.equal((await create('1d')).status, 402);
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
