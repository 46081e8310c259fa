// Monitors checking pages on 127.0.0.2 (docs/monitors.md): a check bills a
// page and a real change; a workspace that cannot pay is skipped until it
// can; a change reaches a signed webhook once, through its retries; noise
// notifies nobody; a deleted monitor is fetched no more.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startFakeWebhook } from '@wap/testsite';
import { Webhook } from 'standardwebhooks';
import { availableCredits, call } from './api.js';
import { changingSite, type MonitorJson, monitorChecks } from './monitor-fixtures.js';
import { fleet, sharedFleet } from './shared-fleet.js';

describe('monitors checking pages', () => {
  before(() => sharedFleet('site'));

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
      const { db, due, close } = await monitorChecks(fleet);
      try {
        const { apiKey } = await fleet.workspace('pro');
        const made = await call<{ monitor: MonitorJson }>(fleet.gatewayUrl, 'POST', '/v1/monitors', {
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
            await call<{ monitors: Listed[] }>(fleet.gatewayUrl, 'GET', '/v1/monitors', { key: apiKey })
          ).body.monitors.find((m) => m.id === id) as Listed;
        /** Makes the monitor due now (the clock moved on an hour) and waits for that check. */
        const check = async () => {
          const before = (await read()).lastCheck?.at ?? '';
          await due([id]);
          await until('the check ran', async () => ((await read()).lastCheck?.at ?? '') > before);
          return (await read()).lastCheck;
        };
        const credits0 = await availableCredits(fleet.gatewayUrl, apiKey);
        assert.deepEqual(await check().then((c) => [c?.status, c?.changed]), ['ok', false], 'the baseline');
        assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits0 - 1, 'one page');
        clock = '11:42:09';
        assert.deepEqual(await check().then((c) => [c?.status, c?.changed]), ['ok', false], 'a clock is noise');
        assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits0 - 2);
        article = 'Prices fall in winter, the report says.';
        assert.deepEqual(await check().then((c) => [c?.status, c?.changed]), ['changed', true]);
        assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits0 - 4, 'a page and a change');
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
      const { db, due, checked, putOff, checksOf, close } = await monitorChecks(fleet);
      try {
        const make = async (key: string, path: string) => {
          const r = await call<{ monitor: MonitorJson }>(fleet.gatewayUrl, 'POST', '/v1/monitors', {
            key,
            body: { url: site.url(path), schedule: { every: '1h' }, notify: { webhook: 'https://example.com/h' } },
          });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          return r.body.monitor.id;
        };
        // A workspace with nothing left, three monitors; and another that pays, one. (Pro with no allowance:
        // the free plan's 120 requests a minute would run out under the polls below on a busy machine.)
        const ws = `broke-${Date.now()}`;
        await fleet.admin('workspace', 'create', ws, '--plan', 'pro', '--allowance', '0');
        const { apiKey: broke } = await fleet.admin<{ apiKey: string }>('key', 'create', ws);
        const poor = [await make(broke, '/a'), await make(broke, '/b'), await make(broke, '/c')];
        const paying = await make((await fleet.workspace('pro')).apiKey, '/paid');
        await putOff([paying]);
        type Listed = {
          id: string;
          nextCheckAt: string;
          skippedReason: string | null;
          lastCheck: { status: string } | null;
        };
        const listed = async () =>
          (await call<{ monitors: Listed[] }>(fleet.gatewayUrl, 'GET', '/v1/monitors', { key: broke })).body.monitors;
        // Their first checks are refused for credits: skipped, nothing billed, and the workspace's monitors all wait.
        await due(poor);
        await until('the workspace is skipped for credits', async () => {
          const monitors = await listed();
          return monitors.length === 3 && monitors.every((m) => m.skippedReason === 'credits');
        });
        assert.ok((await listed()).some((m) => m.lastCheck?.status === 'skipped'));
        assert.equal(await availableCredits(fleet.gatewayUrl, broke), 0);
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
        await fleet.admin('credits', 'grant', ws, '10', '--kind', 'promotional');
        await until('the checks ran again', async () => (await listed()).every((m) => m.lastCheck?.status === 'ok'));
        assert.ok((await listed()).every((m) => m.skippedReason === null));
        assert.equal(await checksOf(poor), refused + 3, 'once each');
        assert.equal(await availableCredits(fleet.gatewayUrl, broke), 7, 'a page each');
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
      const { db, due, checked, close } = await monitorChecks(fleet);
      try {
        const { apiKey } = await fleet.workspace('pro');
        const base = `http://127.0.0.2:${(hook.address() as { port: number }).port}`;
        const pageUrl = `http://127.0.0.2:${(site.address() as { port: number }).port}/works`;
        const made: { id: string; secret: string }[] = [];
        for (const path of ['/flaky', '/busy']) {
          const r = await call<{ monitor: MonitorJson; webhookSecret: string }>(
            fleet.gatewayUrl,
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
            const { rows } = await db.query(
              "SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered' AND monitor_id = ANY($1::uuid[])",
              [ids],
            );
            return rows[0].n === 2;
          },
          60_000,
        );
        const flaky = received.filter((r) => r.path === '/flaky');
        assert.equal(flaky.length, 3, 'two 500s, then delivered');
        // One message sent three times: a receiver that saw an attempt whose answer was lost drops the repeat.
        const messageIds = new Set(flaky.map((r) => r.headers['webhook-id']));
        assert.equal(messageIds.size, 1, [...messageIds].join(' '));
        assert.notEqual(
          received.find((r) => r.path === '/busy')?.headers['webhook-id'],
          flaky[0]?.headers['webhook-id'],
        );
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
      const { db, due, checked, close } = await monitorChecks(fleet);
      try {
        const { apiKey } = await fleet.workspace('pro');
        const r = await call<{ monitor: MonitorJson; webhookSecret: string }>(
          fleet.gatewayUrl,
          'POST',
          '/v1/monitors',
          {
            key: apiKey,
            body: { url: site.url('/pool'), schedule: { every: '1h' }, notify: { webhook: webhook.hookUrl } },
          },
        );
        webhook.secret = r.body.webhookSecret;
        const id = r.body.monitor.id;
        const credits = await availableCredits(fleet.gatewayUrl, apiKey);
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
        assert.equal(await availableCredits(fleet.gatewayUrl, apiKey), credits - 10, 'ten pages, no change');
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
      const { db, due, checked, putOff, checksOf, close } = await monitorChecks(fleet);
      try {
        const { apiKey } = await fleet.workspace('pro');
        const make = async (path: string) =>
          (
            await call<{ monitor: MonitorJson }>(fleet.gatewayUrl, 'POST', '/v1/monitors', {
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
        assert.equal((await call(fleet.gatewayUrl, 'DELETE', `/v1/monitors/${gone}`, { key: apiKey })).status, 200);
        assert.deepEqual(
          [await count('snapshots'), await count('checks')],
          [0, 0],
          'its snapshots and checks are gone',
        );
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
  });
});
