// Monitors past a lowered plan's cap (docs/monitors.md, "Limits per plan"),
// through the whole fleet: the plan moved as an operator moves it (the admin
// CLI, which tells the gateway and the ledger), the monitor service learning
// it from the ledger's announcement, checks on pages on 127.0.0.2.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { call } from './api.js';
import { changingSite, type MonitorJson, monitorChecks } from './monitor-fixtures.js';
import { fleet, sharedFleet } from './shared-fleet.js';

describe('monitors past their plan', () => {
  before(() => sharedFleet('site'));

  test("a plan lowered below a workspace's monitors pauses the newest past its cap, kept and shown; they resume in order as room comes", async () => {
    const site = await changingSite(
      (path) => `<!doctype html><html><body><main><article><h1>Page ${path}</h1>
      <p>A page that stays the same from one check to the next, long enough to be content.</p></article></main></body></html>`,
    );
    const { db, due, checked, putOff, checksOf, close } = await monitorChecks(fleet);
    try {
      const ws = `plans-${Date.now()}`;
      await fleet.admin('workspace', 'create', ws, '--plan', 'pro');
      const { apiKey } = await fleet.admin<{ apiKey: string }>('key', 'create', ws);
      // Seven monitors on pro; free keeps five.
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const made = await call<{ monitor: MonitorJson }>(fleet.gatewayUrl, 'POST', '/v1/monitors', {
          key: apiKey,
          body: { url: site.url(`/${i}`), schedule: { every: '1h' }, notify: { webhook: 'https://example.com/h' } },
        });
        assert.equal(made.status, 200, JSON.stringify(made.body));
        ids.push(made.body.monitor.id);
      }
      await putOff(ids);
      const newest = ids.slice(5);
      const oldest = ids.slice(0, 5);
      /** The monitors paused for the plan, read from the monitor database (no API budget spent on polls). */
      const pausedNow = async () =>
        (
          await db.query<{ id: string }>(
            'SELECT id FROM monitors WHERE id = ANY($1::uuid[]) AND plan_paused_at IS NOT NULL ORDER BY created_at',
            [ids],
          )
        ).rows.map((r) => r.id);
      type Listed = { id: string; skippedReason: string | null };
      const listed = async () => {
        const r = await call<{ monitors: Listed[] }>(fleet.gatewayUrl, 'GET', '/v1/monitors', { key: apiKey });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return new Map(r.body.monitors.map((m) => [m.id, m.skippedReason]));
      };

      await fleet.admin('workspace', 'plan', ws, 'free');
      await until('the two newest are paused for the plan', async () => (await pausedNow()).join() === newest.join());
      const reasons = await listed();
      assert.equal(reasons.size, 7, 'all seven are kept');
      assert.deepEqual(
        ids.map((id) => reasons.get(id)),
        [null, null, null, null, null, 'plan', 'plan'],
        'the API says which are paused, and why',
      );

      // Their slots come with the others': only the five the plan keeps are checked (and billed).
      // (A first check may have come while they were made: counted from here.)
      const [keptBefore, newestBefore] = [await checksOf(oldest), await checksOf(newest)];
      const fetchedBefore = site.fetches.get('/5') ?? 0;
      await due(ids);
      await checked(oldest, keptBefore + 5);
      assert.equal(await checksOf(newest), newestBefore, 'a monitor past the cap is not checked');
      assert.equal(site.fetches.get('/5') ?? 0, fetchedBefore);

      // A monitor deleted makes room for one: the older of the two resumes, and is checked when due.
      const resumed = newest[0] as string;
      const resumedBefore = await checksOf([resumed]);
      assert.equal((await call(fleet.gatewayUrl, 'DELETE', `/v1/monitors/${ids[0]}`, { key: apiKey })).status, 200);
      await until('the older paused one resumed', async () => (await pausedNow()).join() === newest.slice(1).join());
      await due([resumed]);
      await checked([resumed], resumedBefore + 1);

      // A plan that keeps them all resumes the last.
      await fleet.admin('workspace', 'plan', ws, 'pro');
      await until('none is paused', async () => (await pausedNow()).length === 0);
      assert.deepEqual(
        [...(await listed()).values()],
        [null, null, null, null, null, null],
        'no reason left on any of the six',
      );
      await putOff(ids);
    } finally {
      await close();
      await site.close();
    }
  });
});
