// Postgres and NATS failing under a running fleet (docs/scale.md, "The failover suite"). This
// file starts, kills and restarts them, so it runs a private Postgres and a private NATS: a
// cluster of three nats-server processes on loopback joined by routes, every stream at replicas 3
// (NATS_REPLICAS), every service given the three URLs. A stream's leader killed mid-crawl and
// mid-run loses nothing: each page delivered and billed once, the run completes with its
// recording whole and billed once. A Postgres restart under a stream of scrapes answers 200 or
// 503 no_capacity, never a 500, and the ledger bills exactly the scrapes answered 200. Last, the
// whole of NATS and then Postgres down and up: readiness follows, no process exits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SERVICES } from '@wap/config';
import type { Fleet } from '@wap/fleet';
import { PrivateInfra, startFleet, until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { availableCredits, call } from './api.js';
import { type ScriptedModel, startScriptedModel, step } from './scripted-agent.js';

const infra = new PrivateInfra({ natsServers: 3 });
let fleet: Fleet;
let scripted: ScriptedModel;
const sites: TestSite[] = [];

before(async () => {
  await infra.init();
  scripted = await startScriptedModel();
  fleet = await startFleet({
    infra: infra.infra,
    env: {
      ...scripted.env,
      NATS_REPLICAS: '3',
      EGRESS_ALLOW: '127.0.0.0/8',
      // A lost frontier message comes back within the test.
      CRAWL_ACK_WAIT: '2s',
      CRAWL_SWEEP: '500ms',
      SESSION_WARM: '1',
    },
  });
});

after(async () => {
  await fleet?.stop();
  await scripted?.model.close();
  for (const site of sites) await site.close();
  await infra.destroy();
});

async function site(options: Parameters<typeof startTestSite>[0]) {
  const s = await startTestSite(options);
  sites.push(s);
  return s;
}

/** The server (0, 1 or 2) that leads a stream now: the one whose loss makes the cluster elect another. */
async function streamLeader(stream: string): Promise<number> {
  type Jsz = {
    account_details?: {
      stream_detail?: {
        name: string;
        config?: { num_replicas: number };
        cluster?: { leader?: string; replicas?: unknown[] };
      }[];
    }[];
  };
  const jsz = await infra.natsMonitor<Jsz>(0, 'jsz?accounts=true&streams=true&config=true');
  // The fleet's streams carry its NATS_NAMESPACE before their names.
  const info = jsz.account_details?.flatMap((a) => a.stream_detail ?? []).find((d) => d.name.endsWith(stream));
  assert.equal(info?.config?.num_replicas, 3, `${stream} is kept on three servers: ${JSON.stringify(info)}`);
  assert.equal(info?.cluster?.replicas?.length, 2, `${stream} has two followers`);
  return Number(String(info?.cluster?.leader).replace('wap-', ''));
}

describe('a cluster of three NATS servers, one killed', () => {
  test('mid-crawl: the frontier moves to another server; each page delivered and billed once', async () => {
    const { apiKey: key } = await fleet.workspace('pro');
    const s = await site({ pages: 80, extras: false, latencyMs: 150 });
    const before = await availableCredits(fleet.gatewayUrl, key);
    const started = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: { url: `${s.url}/`, limit: 500, maxConcurrency: 6 },
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = started.body.id;
    type Crawl = { status: string; outcome: string; completed: number };
    const get = async () =>
      (await call<{ crawl: Crawl }>(fleet.gatewayUrl, 'GET', `/v1/crawl/${id}`, { key })).body.crawl;
    await until('15 pages delivered', async () => (await get()).completed >= 15, 60_000);
    const killed = await streamLeader('CRAWL_FRONTIER');
    await infra.stopNatsServer(killed);
    let done: Crawl | undefined;
    await until(
      'the crawl settled',
      async () => {
        done = await get();
        return done.status === 'settled';
      },
      120_000,
    );
    assert.equal(done?.outcome, 'completed', JSON.stringify(done));
    assert.equal(done?.completed, s.paths.length, JSON.stringify(done));
    const paths: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const r: { body: { data: { metadata: { url?: string } }[]; nextCursor: string | null } } = await call(
        fleet.gatewayUrl,
        'GET',
        `/v1/crawl/${id}/results?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      paths.push(...r.body.data.map((p) => new URL(String(p.metadata.url)).pathname));
      cursor = r.body.nextCursor;
    }
    assert.equal(new Set(paths).size, paths.length, 'no page delivered twice');
    assert.deepEqual([...paths].sort(), [...s.paths].sort(), 'no page lost');
    assert.equal(before - (await availableCredits(fleet.gatewayUrl, key)), s.paths.length, 'each page charged once');
    await infra.startNatsServer(killed);
  });

  test('mid-run: the run completes, its recording whole, billed once', async () => {
    const { apiKey: key } = await fleet.workspace('pro');
    const s = await site({ pages: 5, extras: false });
    const task = 'Read three articles while a NATS server dies';
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let heldAsked = false;
    scripted.scripts.set(task, async (prompt) => {
      if (prompt.includes(`Page: ${s.url}/articles/2`)) {
        if (!prompt.includes('record: saved')) return step([{ action: 'record', json: '{"read":3}' }]);
        return step([{ action: 'finish', success: true, answer: 'read them' }]);
      }
      if (prompt.includes(`Page: ${s.url}/articles/1`)) {
        heldAsked = true;
        await held;
        return step([{ action: 'navigate', url: `${s.url}/articles/2` }]);
      }
      return step([{ action: 'navigate', url: `${s.url}/articles/1` }]);
    });
    const submitted = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/agent', {
      key,
      body: { task, url: `${s.url}/articles/0` },
    });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    await until('the run on its second page, the model thinking', async () => heldAsked, 60_000);
    // The server leading the sessions stream, which the run's recording goes to: until the other two elect
    // a new leader (seconds), JetStream takes none of its chunks.
    const killed = await streamLeader('SESSIONS');
    await infra.stopNatsServer(killed);
    release();
    type Run = { status: string; outcome: string; sessionId: string; usage: { meters: Record<string, number> } };
    let run: Run | undefined;
    await until(
      'the run settled',
      async () => {
        run = (await call<{ run: Run }>(fleet.gatewayUrl, 'GET', `/v1/agent/${submitted.body.id}`, { key })).body.run;
        return run.status === 'settled';
      },
      90_000,
    );
    assert.equal(run?.outcome, 'completed', JSON.stringify(run));
    assert.equal(run?.usage.meters.page_load, 3, JSON.stringify(run?.usage));
    const events = await call<{ events: { seq: number }[] }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/agent/${submitted.body.id}/events?level=debug`,
      { key },
    );
    const seqs = events.body.events.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'one sequence of events without gaps or doubles',
    );
    const usage = await call<{ total: unknown }>(fleet.gatewayUrl, 'GET', '/v1/usage', { key });
    assert.deepEqual(usage.body.total, run?.usage, 'the ledger billed exactly what the run reports, once');
    await until(
      'the run’s session recorded as ended, every billed page in its replay',
      async () => {
        const r = await call<{ session: { status: string; pageCount: number } }>(
          fleet.gatewayUrl,
          'GET',
          `/v1/sessions/${run?.sessionId}`,
          { key },
        );
        return r.status === 200 && r.body.session.status === 'ended' && r.body.session.pageCount === 3;
      },
      60_000,
    );
    await infra.startNatsServer(killed);
  });
});

describe('a Postgres restart under a stream of scrapes', () => {
  test('answers 200 or 503 no_capacity, never a 500; the ledger bills exactly the 200s', async () => {
    const { apiKey: key } = await fleet.workspace('pro');
    const s = await site({ pages: 5, extras: false });
    const before = await availableCredits(fleet.gatewayUrl, key);
    const answers: { status: number; code?: string; at: 'up' | 'down' | 'back' }[] = [];
    let phase: 'up' | 'down' | 'back' = 'up';
    let running = true;
    const client = async (n: number) => {
      while (running) {
        const at = phase;
        const r = await call<{ code?: string }>(fleet.gatewayUrl, 'POST', '/v1/scrape', {
          key,
          body: { url: `${s.url}/articles/${n}`, formats: ['markdown'], maxAge: 0 },
          timeoutMs: 60_000,
        }).catch((err: Error) => ({ status: 0, body: { code: err.name } }));
        answers.push({ status: r.status, code: r.body.code, at });
      }
    };
    const load = [0, 1, 2].map(client);
    const count = (at: string, status: number) => answers.filter((a) => a.at === at && a.status === status).length;
    try {
      await until('scrapes answered', async () => count('up', 200) >= 5, 60_000);
      infra.stopPostgres();
      phase = 'down';
      await until('scrapes answered while Postgres is down', async () => answers.some((a) => a.at === 'down'), 60_000);
      await until(
        'several answered while down',
        async () => answers.filter((a) => a.at === 'down').length >= 6,
        60_000,
      );
      await infra.startPostgres();
      phase = 'back';
      await until('scrapes succeed again', async () => count('back', 200) >= 5, 90_000);
    } finally {
      running = false;
      await Promise.all(load);
    }
    const odd = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.code === 'no_capacity'));
    assert.deepEqual(odd, [], 'every answer is 200 or 503 no_capacity');
    const ok = answers.filter((a) => a.status === 200).length;
    // A hold whose settle Postgres refused is swept back; then the ledger holds exactly the 200s.
    const ledger = async () => {
      const usage = await call<{ total: { meters: Record<string, number> } }>(fleet.gatewayUrl, 'GET', '/v1/usage', {
        key,
      });
      return {
        spent: before - (await availableCredits(fleet.gatewayUrl, key)),
        billed: usage.body.total.meters.page_load ?? 0,
      };
    };
    await until(
      'the ledger to spend and bill the pages answered',
      async () => {
        const { spent, billed } = await ledger();
        return spent === ok && billed === ok;
      },
      60_000,
    ).catch(() => undefined);
    const byPhase = Object.entries(
      Object.groupBy(answers, (a) => `${a.at} ${a.status}${a.code ? ` ${a.code}` : ''}`),
    ).map(([k, v]) => `${k}: ${v?.length}`);
    const final = await ledger();
    assert.deepEqual(
      final,
      { spent: ok, billed: ok },
      `${JSON.stringify(final)} for ${ok} answered; ${byPhase.join(', ')}`,
    );
  });
});

describe('the whole of one down and up', () => {
  const readiness = async () => (await fetch(`${fleet.gatewayUrl}/readyz`)).status;
  const pids = () => SERVICES.map((s) => fleet.pid(s));

  async function outage(name: string, stop: () => Promise<void> | void, start: () => Promise<void>) {
    const before = pids();
    await stop();
    await until(`readiness turns false without ${name}`, async () => (await readiness()) === 503, 20_000);
    // Each readiness check makes every service run its failing probes (the paths a crash
    // would come from): ten in a row, all 503, with every process still the same.
    for (let i = 0; i < 10; i++) assert.equal(await readiness(), 503);
    assert.deepEqual(pids(), before, 'no service exited or restarted');
    await start();
    await until(`readiness comes back with ${name}`, async () => (await readiness()) === 200, 30_000);
    assert.deepEqual(pids(), before, 'the same processes serve again');
  }

  test('readiness follows all of NATS down and up, nothing crashes', async () => {
    await outage(
      'NATS',
      () => infra.stopNats(),
      () => infra.startNats(),
    );
  });

  test('readiness follows Postgres down and up, nothing crashes', async () => {
    await outage(
      'Postgres',
      () => infra.stopPostgres(),
      () => infra.startPostgres(),
    );
  });
});
