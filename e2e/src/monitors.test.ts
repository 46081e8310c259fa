// Monitors through the gateway (docs/monitors.md): created with what they
// are given checked by name, listed per workspace newest first with a
// cursor, deleted; free to create, list and delete.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Fleet } from '@wap/fleet';
import { startFleet, until } from '@wap/testkit';
import { startFakeDiscord, startFakeSlack, startFakeWebhook } from '@wap/testsite';
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

/** A fleet whose monitors check pages on 127.0.0.2, polling every 200 ms, and its monitor database. */
async function checkingFleet(env: Record<string, string> = {}) {
  const local = await startFleet({
    env: { LOG_LEVEL: 'info', EGRESS_ALLOW: '127.0.0.2/32', MONITOR_POLL: '200ms', ...env },
  });
  const db = new pg.Client({ connectionString: local.databaseUrl('monitor') });
  await db.connect();
  /** Makes the monitors due now, as if their next slot had come. */
  const due = (ids: string[]) =>
    db.query('UPDATE monitors SET next_check_at = now() WHERE id = ANY($1::uuid[])', [ids]);
  /** Waits until the monitors have `n` finished checks between them. */
  const checked = (ids: string[], n: number, ceilingMs?: number) =>
    until(
      `${n} checks finished`,
      async () => {
        const { rows } = await db.query(
          'SELECT count(*)::int AS n FROM checks WHERE finished_at IS NOT NULL AND monitor_id = ANY($1::uuid[])',
          [ids],
        );
        return rows[0].n >= n;
      },
      ceilingMs,
    );
  /**
   * Puts the monitors off a day and waits until no check is in flight: their first checks
   * (each due at its jitter after creation) may have come while others were made; count from here.
   */
  const putOff = async (ids: string[]) => {
    await db.query("UPDATE monitors SET next_check_at = now() + interval '1 day' WHERE id = ANY($1::uuid[])", [ids]);
    await until('no check in flight', async () => {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM checks WHERE finished_at IS NULL');
      return rows[0].n === 0;
    });
  };
  /** Checks of the monitors so far, finished or not. */
  const checksOf = async (ids: string[]) =>
    (await db.query('SELECT count(*)::int AS n FROM checks WHERE monitor_id = ANY($1::uuid[])', [ids])).rows[0]
      .n as number;
  return {
    local,
    db,
    due,
    checked,
    putOff,
    checksOf,
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
    const { local, db, due, close } = await checkingFleet();
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
        await due([id]);
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
    } finally {
      await close();
      site.close();
    }
  });

  test("a skipped monitor's checks resume when credits return; until then its workspace's monitors are not claimed again", async () => {
    const site = await changingSite(
      (path) => `<!doctype html><html><body><main><article><h1>Page ${path}</h1>
        <p>A page that stays the same from one check to the next, long enough to be content.</p></article></main></body></html>`,
    );
    const { local, db, due, checked, putOff, checksOf, close } = await checkingFleet();
    try {
      const make = async (key: string, path: string) => {
        const r = await call<{ monitor: MonitorJson }>(local.gatewayUrl, 'POST', '/v1/monitors', {
          key,
          body: { url: site.url(path), schedule: { every: '1h' }, notify: { webhook: 'https://example.com/h' } },
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.monitor.id;
      };
      // A workspace with nothing left, three monitors; and another that pays, one. (Pro with no allowance:
      // the free plan's 120 requests a minute would run out under the polls below on a busy machine.)
      const ws = `broke-${Date.now()}`;
      await local.admin('workspace', 'create', ws, '--plan', 'pro', '--allowance', '0');
      const { apiKey: broke } = await local.admin<{ apiKey: string }>('key', 'create', ws);
      const poor = [await make(broke, '/a'), await make(broke, '/b'), await make(broke, '/c')];
      const paying = await make((await local.workspace('pro')).apiKey, '/paid');
      await putOff([paying]);
      type Listed = {
        id: string;
        nextCheckAt: string;
        skippedReason: string | null;
        lastCheck: { status: string } | null;
      };
      const listed = async () =>
        (await call<{ monitors: Listed[] }>(local.gatewayUrl, 'GET', '/v1/monitors', { key: broke })).body.monitors;
      // Their first checks are refused for credits: skipped, nothing billed, and the workspace's monitors all wait.
      await due(poor);
      await until('the workspace is skipped for credits', async () => {
        const monitors = await listed();
        return monitors.length === 3 && monitors.every((m) => m.skippedReason === 'credits');
      });
      assert.ok((await listed()).some((m) => m.lastCheck?.status === 'skipped'));
      assert.equal(await availableCredits(local.gatewayUrl, broke), 0);
      await putOff(poor);
      const refused = await checksOf(poor);
      assert.ok(refused >= 1 && refused <= 3);
      // Their slots come again with the other workspace's: only the one that pays is checked.
      const paid = await checksOf([paying]);
      await due([...poor, paying]);
      await checked([paying], paid + 1);
      assert.equal(await checksOf(poor), refused, 'a workspace that cannot pay is not claimed again and again');
      // Say the pause lasted two hours: each monitor's next slot came meanwhile.
      await db.query(
        "UPDATE monitors SET last_check_at = now() - interval '2 hours', anchor_at = now() - interval '3 hours' WHERE id = ANY($1::uuid[])",
        [poor],
      );
      // Credits come back (the ledger announces it): each missed slot is checked once, at once, and the reason goes.
      await local.admin('credits', 'grant', ws, '10', '--kind', 'promotional');
      await until('the checks ran again', async () => (await listed()).every((m) => m.lastCheck?.status === 'ok'));
      assert.ok((await listed()).every((m) => m.skippedReason === null));
      assert.equal(await checksOf(poor), refused + 3, 'once each');
      assert.equal(await availableCredits(local.gatewayUrl, broke), 7, 'a page each');
    } finally {
      await close();
      await site.close();
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
    const { local, db, due, checked, close } = await checkingFleet();
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
      const ids = made.map((m) => m.id);
      await due(ids);
      await checked(ids, 2);
      article = 'The bridge opens in autumn.';
      await due(ids);
      await checked(ids, 4);
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

/** A page on 127.0.0.2 whose parts a test changes between checks; it counts its fetches per path. */
async function changingSite(render: (path: string) => string) {
  const fetches = new Map<string, number>();
  const site = createServer((req, res) => {
    const path = req.url ?? '/';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html' }).end(render(path));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.2', r));
  return {
    url: (path: string) => `http://127.0.0.2:${(site.address() as { port: number }).port}${path}`,
    fetches,
    close: () => new Promise<void>((r) => site.close(() => r())),
  };
}

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

  test('ten checks of a page whose clock, token and ads change every time notify nobody and bill ten pages', async () => {
    const ads = ['Cheap flights to Lisbon', 'Buy two shoes, get one free', 'The best mattress of 2026'];
    let round = 0;
    const site = await changingSite(() => {
      const now = new Date(Date.UTC(2026, 10, 25, 9, round * 7, round * 13));
      const token = randomBytes(24).toString('base64url');
      const shuffled = [...ads].sort(() => Math.random() - 0.5);
      return `<!doctype html><html><body><main><article>
        <h1>Opening hours</h1>
        <p>Last updated ${now.toUTCString()} (${round * 3 + 1} minutes ago).</p>
        <p>The pool opens at seven on weekdays and at nine at weekends, all year round.</p>
        <div class="inline-ad-slot"><p>Advertisement</p><p>${shuffled[0]}</p></div>
        <p>Lanes are kept for swimmers training for the winter race on Tuesday evenings.</p>
        <form action="/subscribe"><input type="hidden" name="csrf_token" value="${token}"></form>
        <p>Request id: ${randomBytes(16).toString('hex')}</p>
      </article></main></body></html>`;
    });
    const webhook = await startFakeWebhook('127.0.0.2');
    const { local, db, due, checked, close } = await checkingFleet();
    try {
      const { apiKey } = await local.workspace('pro');
      const r = await call<{ monitor: MonitorJson; webhookSecret: string }>(local.gatewayUrl, 'POST', '/v1/monitors', {
        key: apiKey,
        body: { url: site.url('/pool'), schedule: { every: '1h' }, notify: { webhook: webhook.hookUrl } },
      });
      webhook.secret = r.body.webhookSecret;
      const id = r.body.monitor.id;
      const credits = await availableCredits(local.gatewayUrl, apiKey);
      for (round = 0; round < 10; round++) {
        await due([id]);
        await checked([id], round + 1);
      }
      const { rows } = await db.query('SELECT status FROM checks WHERE monitor_id = $1', [id]);
      assert.deepEqual(
        rows.map((c) => c.status),
        Array(10).fill('ok'),
        'no check saw a change',
      );
      const deliveries = await db.query('SELECT count(*)::int AS n FROM deliveries WHERE monitor_id = $1', [id]);
      assert.equal(deliveries.rows[0].n, 0, 'no notification queued');
      assert.equal(webhook.received.length, 0);
      assert.equal(await availableCredits(local.gatewayUrl, apiKey), credits - 10, 'ten pages, no change');
    } finally {
      await close();
      await Promise.all([site.close(), webhook.close()]);
    }
  });
});

describe('monitor schedule', () => {
  test('a deleted monitor is fetched no more and its snapshots are gone', async () => {
    const site = await changingSite(
      (path) => `<!doctype html><html><body><main><article><h1>${path}</h1>
        <p>A page that stays the same from one check to the next, long enough to be content.</p></article></main></body></html>`,
    );
    const { local, db, due, checked, putOff, checksOf, close } = await checkingFleet();
    try {
      const { apiKey } = await local.workspace('pro');
      const make = async (path: string) =>
        (
          await call<{ monitor: MonitorJson }>(local.gatewayUrl, 'POST', '/v1/monitors', {
            key: apiKey,
            body: { url: site.url(path), schedule: { every: '1m' }, notify: { webhook: 'https://example.com/h' } },
          })
        ).body.monitor.id;
      const gone = await make('/gone');
      const kept = await make('/kept');
      await putOff([gone, kept]);
      await due([gone, kept]);
      await checked([gone, kept], (await checksOf([gone, kept])) + 2);
      const count = async (table: string) =>
        (await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE monitor_id = $1`, [gone])).rows[0].n;
      assert.equal(await count('snapshots'), 1, 'the baseline');
      assert.equal((await call(local.gatewayUrl, 'DELETE', `/v1/monitors/${gone}`, { key: apiKey })).status, 200);
      assert.deepEqual([await count('snapshots'), await count('checks')], [0, 0], 'its snapshots and checks are gone');
      const fetched = site.fetches.get('/gone');
      const keptFetched = site.fetches.get('/kept') ?? 0;
      // Two more rounds of the other monitor: the scheduler looked, and left the deleted one alone.
      for (let round = 0; round < 2; round++) {
        const before = await checksOf([kept]);
        await due([kept]);
        await checked([kept], before + 1);
      }
      assert.equal(site.fetches.get('/gone'), fetched, 'no fetch after the delete');
      assert.equal(site.fetches.get('/kept'), keptFetched + 2);
    } finally {
      await close();
      await site.close();
    }
  });

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
