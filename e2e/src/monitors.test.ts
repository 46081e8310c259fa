// The monitor tests that need fleets of their own (docs/monitors.md): one
// real change reaches Discord, Slack and a webhook once each, in its own wire
// format, through stand-ins the fleet is pointed at; and two replicas share
// 200 monitors, each check done once, none lost when one is killed (its
// fleet's checks all counted). The others share fleets: monitor-routes.suite.ts
// and monitor-checks.suite.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startFakeDiscord, startFakeSlack, startFakeWebhook } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { changingSite, checkingFleet, type MonitorJson } from './monitor-fixtures.js';

type Delivered = { status: string; attempts: number; lastStatus: number | null };
type ListedMonitor = {
  id: string;
  lastCheck: { status: string; changed: boolean } | null;
  deliveries: Delivered[];
};

describe('monitor notifications to Discord, Slack and a webhook', () => {
  test('one real change reaches each once, in its own wire format, with the diff and links to both snapshots', async () => {
    let article = 'The library opens on Sundays from March.';
    const site = await changingSite(
      () => `<!doctype html><html><body><main><article><h1>Library hours</h1><p>${article}</p>
        <p>The reading room keeps its usual hours, and the archive stays open by appointment.</p>
        </article></main></body></html>`,
    );
    const [discord, slack, webhook] = await Promise.all([
      startFakeDiscord('127.0.0.2'),
      startFakeSlack('127.0.0.2'),
      startFakeWebhook('127.0.0.2'),
    ]);
    const { local, due, checked, close } = await checkingFleet({
      DISCORD_API_URL: discord.origin,
      SLACK_HOOKS_URL: slack.origin,
    });
    try {
      const { apiKey } = await local.workspace('pro');
      const ids: string[] = [];
      for (const notify of [{ discord: discord.hookUrl }, { slack: slack.hookUrl }, { webhook: webhook.hookUrl }]) {
        const r = await call<{ monitor: MonitorJson; webhookSecret: string | null }>(
          local.gatewayUrl,
          'POST',
          '/v1/monitors',
          { key: apiKey, body: { url: site.url('/hours'), schedule: { every: '1h' }, notify } },
        );
        assert.equal(r.status, 200, JSON.stringify(r.body));
        ids.push(r.body.monitor.id);
        if (r.body.webhookSecret) webhook.secret = r.body.webhookSecret;
      }
      await due(ids);
      await checked(ids, 3);
      article = 'The library opens on Sundays from April.';
      await due(ids);
      await checked(ids, 6);
      await until('each target got its notification', async () =>
        [discord, slack, webhook].every((f) => f.received.length >= 1),
      );
      // Two more checks of the changed page: nothing new to say.
      await due(ids);
      await checked(ids, 9);
      const list = async () =>
        (await call<{ monitors: ListedMonitor[] }>(local.gatewayUrl, 'GET', '/v1/monitors', { key: apiKey })).body
          .monitors;
      await until('every delivery settled', async () =>
        (await list()).every((m) => m.deliveries.length === 1 && m.deliveries[0]?.status === 'delivered'),
      );
      for (const fake of [discord, slack, webhook]) {
        assert.equal(fake.received.length, 1, `${fake.origin}: exactly one notification`);
        assert.deepEqual(fake.rejected, [], 'nothing the target refuses');
      }
      const statuses = (await list()).map((m) => [m.deliveries[0]?.attempts, m.deliveries[0]?.lastStatus]);
      assert.deepEqual(statuses.sort(), [
        [1, 200],
        [1, 204],
        [1, 204],
      ]);

      const embeds = discord.received[0]?.body.embeds as { description: string; fields: { value: string }[] }[];
      const embed = embeds?.[0];
      assert.match(embed?.description ?? '', /^```diff\n[\s\S]*- March[\s\S]*\+ April/, embed?.description);
      const slackText = JSON.stringify(slack.received[0]?.body.blocks);
      assert.match(slackText, /- March/);
      assert.match(slackText, /\+ April/);
      const event = webhook.received[0]?.body as {
        type: string;
        data: {
          url: string;
          diff: { added: string[]; removed: string[] };
          snapshots: { before: string; after: string };
        };
      };
      assert.equal(event.type, 'monitor.changed');
      assert.deepEqual(event.data.diff, { added: ['April'], removed: ['March'] });
      assert.equal(event.data.url, site.url('/hours'));

      // The snapshot links open without a key; changed, they open nothing.
      const after = await fetch(event.data.snapshots.after);
      assert.equal(after.status, 200);
      const afterPage = await after.text();
      assert.match(afterPage, /from April/);
      assert.match(after.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      const before = await fetch(event.data.snapshots.before);
      assert.match(await before.text(), /from March/);
      const discordAfter = /\((http[^)]+)\)/.exec(embed?.fields.at(-1)?.value ?? '')?.[1] ?? '';
      assert.match(await (await fetch(discordAfter)).text(), /from April/, 'Discord links its own snapshots');
      const forged = new URL(event.data.snapshots.after);
      forged.searchParams.set('exp', String(Number(forged.searchParams.get('exp')) + 1));
      assert.equal((await fetch(forged)).status, 404);
    } finally {
      await close();
      await Promise.all([site.close(), discord.close(), slack.close(), webhook.close()]);
    }
  });
});

describe('monitor schedule', () => {
  test('two replicas share 200 monitors for five rounds: each check done once, none lost when one is killed', async () => {
    const site = await changingSite(
      (path) => `<!doctype html><html><body><main><article><h1>Page ${path}</h1>
        <p>Nothing on this page changes between rounds; the test counts how often it is fetched.</p></article></main></body></html>`,
    );
    // Short leases so the killed replica's checks are taken over within the test's wait.
    const { local, db, due, checked, putOff, checksOf, close } = await checkingFleet({
      MONITOR_CHECK_LEASE: '3s',
    });
    const second = await local.replica('monitor', 'monitor-2');
    let killed = false;
    try {
      const { apiKey } = await local.workspace('pro');
      const paths = Array.from({ length: 200 }, (_, i) => `/m/${i}`);
      const ids: string[] = [];
      for (const path of paths) {
        const r = await call<{ monitor: MonitorJson }>(local.gatewayUrl, 'POST', '/v1/monitors', {
          key: apiKey,
          body: {
            url: site.url(path),
            schedule: { every: '1h' },
            notify: { webhook: 'https://example.com/h' },
            scrape: { engine: 'fetch' },
          },
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        ids.push(r.body.monitor.id);
      }
      await putOff(ids);
      const finishedBefore = await checksOf(ids);
      const t0 = (await db.query('SELECT now() AS t')).rows[0].t as Date;
      const credits = await availableCredits(local.gatewayUrl, apiKey);
      const fetched = (p: string) => site.fetches.get(p) ?? 0;
      const base = new Map(paths.map((p) => [p, fetched(p)]));
      // After the round a replica died in, a check it had fetched but not finished is fetched again
      // by the replica that takes it over (it still counts once): count on from there.
      let afterKill = new Map<string, number>();
      for (let round = 1; round <= 5; round++) {
        await due(ids);
        const since = (p: string) => fetched(p) - (base.get(p) ?? 0);
        if (round === 3) {
          await until('the round is under way', async () => paths.filter((p) => since(p) >= 3).length >= 40);
          await second.stop('SIGKILL');
          killed = true;
        }
        await checked(ids, finishedBefore + 200 * round, 120_000);
        const off = paths.filter((p) =>
          round < 3
            ? since(p) !== round
            : round === 3
              ? since(p) < 3
              : fetched(p) !== (afterKill.get(p) ?? 0) + round - 3,
        );
        assert.deepEqual(off, [], `round ${round}: every page fetched ${round === 3 ? 'at least' : 'exactly'} once`);
        if (round === 3) afterKill = new Map(site.fetches);
      }
      const perMonitor = await db.query(
        `SELECT monitor_id, count(*)::int AS n FROM checks
          WHERE finished_at IS NOT NULL AND due_at >= $2 AND monitor_id = ANY($1::uuid[]) GROUP BY monitor_id`,
        [ids, t0],
      );
      const unfinished = await db.query('SELECT count(*)::int AS n FROM checks WHERE finished_at IS NULL');
      assert.equal(unfinished.rows[0].n, 0, 'no check left behind');
      assert.equal(
        (await db.query('SELECT count(*)::int AS n FROM checks WHERE monitor_id = ANY($1::uuid[])', [ids])).rows[0].n,
        finishedBefore + 1_000,
        'a thousand checks, none lost and none twice',
      );
      assert.equal(perMonitor.rowCount, 200);
      assert.ok(
        perMonitor.rows.every((r) => r.n === 5),
        'five checks of each monitor',
      );
      const owners = await db.query('SELECT DISTINCT claimed_by FROM checks WHERE monitor_id = ANY($1::uuid[])', [ids]);
      assert.ok(owners.rowCount !== null && owners.rowCount >= 2, 'both replicas took checks');
      assert.equal(await availableCredits(local.gatewayUrl, apiKey), credits - 1_000, 'a thousand pages, once each');
    } finally {
      if (!killed) await second.stop();
      await close();
      await site.close();
    }
  });
});
