// Monitors through the gateway (docs/monitors.md): created with what they
// are given checked by name, listed per workspace newest first with a
// cursor, deleted; free to create, list and delete. And the monitor tests
// that need fleets of their own: one real change reaches Discord, Slack and a
// webhook once each, in its own wire format, through stand-ins the fleet is
// pointed at; and two replicas share 200 monitors, each check done once, none
// lost when one is killed (its fleet's checks all counted). Monitors checking
// pages otherwise share a fleet: monitor-checks.suite.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import { startFakeDiscord, startFakeSlack, startFakeWebhook } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { changingSite, checkingFleet, type MonitorJson } from './monitor-fixtures.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet({ env: { LOG_LEVEL: 'info' } });
});
after(async () => {
  await fleet?.stop();
  await fleet?.dropDatabases();
});

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
