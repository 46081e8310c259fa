// The TypeScript SDK (clients/typescript) against a real fleet, as its users call it:
// every operation of the served document has a method; a POST whose answer was lost on the
// way back is retried under one Idempotency-Key and billed once (a TCP proxy loses the
// answer after the gateway did the work); timeouts per attempt against a server that holds
// the answer; pages, streams, waits and a paused run answered through the SDK; and the
// packed tarball, installed offline, compiles and runs its README's examples.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  Client,
  NotFoundError,
  OPERATIONS,
  type OperationSpec,
  WaitTimeoutError,
} from '../../clients/typescript/dist/index.js';
import { collectOutput } from './child-output.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { asking, type ScriptedModel, step } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const ROOT = path.resolve(__dirname, '../..');
let site: TestSite;
let slowSite: TestSite;
let scripts: ScriptedModel['scripts'];
let key: string;
let client: Client;
let proxy: FaultProxy;

/** A well-formed API key whose secret is wrong: refused as `invalid`. */
const wrongSecret = (apiKey: string) => `${apiKey.split('.')[0]}.${'A'.repeat(43)}`;
const crawlCredits = async (c: Client) =>
  (await c.usage.get()).byCapability.find((b) => b.capability === 'crawl')?.credits ?? 0;

describe('the TypeScript SDK', () => {
  before(async () => {
    site = await startTestSite({ pages: 30, extras: false });
    // Each page a second late: a crawl of it outlasts a short wait.
    slowSite = await startTestSite({ pages: 30, extras: false, latencyMs: 1_000 });
    await sharedFleet('browsers');
    ({ scripts } = scripted);
    ({ apiKey: key } = await fleet.workspace('pro'));
    client = new Client({ apiKey: key, baseUrl: fleet.gatewayUrl, login: false });
    proxy = await startFaultProxy(fleet.gatewayUrl);
  });

  after(async () => {
    await proxy?.close();
    await site?.close();
    await slowSite?.close();
  });

  describe('the SDK against the fleet', () => {
    test('every operation GET /v1/openapi.json serves is a method of its tag’s group', async () => {
      const doc = (await (await fetch(`${fleet.gatewayUrl}/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { operationId: string; tags: string[]; 'x-alias-of'?: string }>>;
      };
      const groups = client as unknown as Record<string, Record<string, unknown>>;
      const specs = OPERATIONS as Record<string, OperationSpec>;
      const missing = Object.entries(doc.paths).flatMap(([route, item]) =>
        Object.entries(item)
          .filter(([method, op]) => {
            // An alias route is served by the method of the capability it aliases.
            if (op['x-alias-of']) return !specs[op['x-alias-of']];
            const spec = specs[op.operationId];
            return (
              !spec ||
              spec.path !== route ||
              spec.method !== method.toUpperCase() ||
              typeof groups[spec.group]?.[spec.name] !== 'function'
            );
          })
          .map(([method, op]) => `${method} ${route} ${op.operationId}`),
      );
      assert.deepEqual(missing, []);
      assert.ok(Object.keys(doc.paths).length >= 30);
    });

    test('a scrape answers its document; errors carry their class, code, details and request id', async () => {
      const page = await client.scrape.start({ url: `${site.url}/articles/1`, formats: ['markdown'] });
      assert.match(page.data.markdown ?? '', new RegExp(site.article(1).title.slice(0, 20)));
      assert.equal(page.usage.credits, 1);
      const missing = await client.crawl.get('no-such-crawl').then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(missing instanceof NotFoundError, String(missing));
      assert.equal(missing.code, 'not_found');
      assert.equal(missing.status, 404);
      assert.match(missing.requestId ?? '', /\S/);
      const stranger = new Client({ apiKey: wrongSecret(key), baseUrl: fleet.gatewayUrl, login: false });
      const refused = await stranger.credits.get().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(refused instanceof AuthenticationError);
      assert.deepEqual([refused.code, refused.details?.reason], ['unauthorized', 'invalid']);
    });

    test('a crawl start whose answer was lost is retried with its key: one crawl, billed once', async () => {
      const { apiKey } = await fleet.workspace('pro');
      const viaProxy = new Client({ apiKey, baseUrl: proxy.url, login: false });
      const before = proxy.requests.length;
      proxy.loseAnswer(/^POST \/v1\/crawl /);
      const { data, response } = await viaProxy.crawl
        .start({ url: `${site.url}/`, limit: 3, scrapeOptions: { formats: ['markdown'] } })
        .withResponse();
      const sent = proxy.requests.slice(before).filter((r) => r.line.startsWith('POST /v1/crawl '));
      assert.equal(sent.length, 2, 'the first attempt reached the gateway, its answer was lost, and it was sent again');
      assert.match(sent[0]?.headers['idempotency-key'] ?? '', /^sdk-/);
      assert.equal(sent[1]?.headers['idempotency-key'], sent[0]?.headers['idempotency-key'], 'with the same key');
      const first = JSON.parse(proxy.lost.at(-1)?.body ?? '{}') as { id?: string };
      assert.equal(data.id, first.id, 'the retry answered the crawl the first attempt started');
      assert.equal(response.headers.get('idempotent-replayed'), 'true');
      const done = await viaProxy.crawl.wait(data.id, { timeoutMs: 120_000, pollIntervalMs: 500 });
      assert.equal(done.crawl.completed, 3);
      await until('the crawl’s usage to reach the ledger', async () => (await crawlCredits(viaProxy)) > 0, 30_000);
      assert.equal(await crawlCredits(viaProxy), 3, 'three pages billed: one crawl, not two');
    });

    test('a scrape whose answer was lost is billed once; a DELETE whose answer was lost is not retried', async () => {
      const { apiKey } = await fleet.workspace('pro');
      const viaProxy = new Client({ apiKey, baseUrl: proxy.url, login: false });
      proxy.loseAnswer(/^POST \/v1\/scrape /);
      const page = await viaProxy.scrape.start({ url: `${site.url}/articles/2` });
      assert.equal(proxy.lost.at(-1)?.status, 200);
      assert.equal(page.usage.credits, 1);
      const usage = await viaProxy.usage.get();
      assert.equal(usage.byCapability.find((b) => b.capability === 'scrape')?.credits, 1, 'billed once');
      // A DELETE may have been done: the SDK does not send it again.
      const profile = await viaProxy.profiles.create({ label: 'lost-delete' });
      const before = proxy.requests.length;
      proxy.loseAnswer(/^DELETE \/v1\/profiles\//);
      await assert.rejects(viaProxy.profiles.delete(profile.profile.id), APIConnectionError);
      assert.equal(proxy.requests.slice(before).length, 1, 'sent once');
      await assert.rejects(viaProxy.profiles.get(profile.profile.id), NotFoundError, 'it was deleted');
    });

    test('a GET whose answer was lost is retried', async () => {
      proxy.loseAnswer(/^GET \/v1\/credits /);
      const viaProxy = new Client({ apiKey: key, baseUrl: proxy.url, login: false });
      const credits = await viaProxy.credits.get();
      assert.equal(typeof credits.available, 'number');
      assert.equal(proxy.lost.at(-1)?.request.line.split(' ')[1], '/v1/credits');
    });

    test('timeoutMs bounds each attempt of a call the server holds, beside a caller’s signal', async () => {
      scripts.set('Wait for nothing', () => step([{ action: 'ask', question: 'Still there?' }]));
      const { id } = await client.agent.start({ task: 'Wait for nothing', url: `${site.url}/` });
      // The long poll holds the answer up to 20 s while no event comes; each attempt gives up after 300 ms.
      await until('the run to pause', async () => (await client.agent.get(id)).run.status === 'paused', 60_000);
      const last = (await client.agent.events(id, { limit: 500 })).next;
      const started = Date.now();
      const signal = new AbortController().signal;
      await assert.rejects(
        client.agent.events(id, { after: last, wait: 20 }, { timeoutMs: 300, maxRetries: 1, signal }),
        APITimeoutError,
      );
      assert.ok(Date.now() - started < 5_000, `two attempts of 300 ms and a backoff took ${Date.now() - started} ms`);
      await client.agent.cancel(id);
    });

    test('iterating a paged list reads every page', async () => {
      const { apiKey } = await fleet.workspace('pro');
      const own = new Client({ apiKey, baseUrl: fleet.gatewayUrl, login: false });
      const made = [];
      for (const label of ['pages-a', 'pages-b', 'pages-c'])
        made.push((await own.profiles.create({ label })).profile.id);
      const seen: string[] = [];
      for await (const profile of own.profiles.list({ limit: 1 })) seen.push(profile.id);
      assert.deepEqual(seen.sort(), made.sort());
      const first = await own.profiles.list({ limit: 1 });
      assert.equal(first.profiles.length, 1);
      assert.ok(first.nextCursor);
    });

    test('crawl results stream while the crawl runs; crawl.wait reports progress and gives up at its timeout', async () => {
      const { id } = await client.crawl.start({ url: `${site.url}/`, limit: 8 });
      const urls: string[] = [];
      for await (const doc of client.crawl.results(id, { limit: 2 })) urls.push(String(doc.metadata?.url));
      const settled = await client.crawl.get(id);
      assert.equal(settled.crawl.status, 'settled', 'the iteration ended with the crawl');
      assert.equal(urls.length, settled.crawl.completed);
      assert.equal(new Set(urls).size, urls.length, 'each page once');

      const slow = await client.crawl.start({ url: `${slowSite.url}/`, limit: 20 });
      const states: string[] = [];
      const err = await client.crawl
        .wait(slow.id, { timeoutMs: 1_500, pollIntervalMs: 200, onProgress: (s) => void states.push(s.crawl.status) })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof WaitTimeoutError, String(err));
      assert.equal((err.last as { crawl: { status: string } }).crawl.status, 'running');
      assert.ok(states.length >= 2 && states.every((s) => s === 'running'), states.join());
      await client.crawl.cancel(slow.id);
      const ended = await client.crawl.wait(slow.id, { timeoutMs: 60_000, pollIntervalMs: 300 });
      assert.equal(ended.crawl.outcome, 'cancelled');
    });

    test('a browser session’s network log and live feed are streams', async () => {
      const page = await client.scrape.start({ url: `${site.url}/articles/3`, engine: 'browser' });
      const sessionId = String(page.data.metadata?.sessionId ?? '');
      assert.ok(sessionId, JSON.stringify(page.data.metadata));
      await until(
        'the session to end',
        async () => (await client.sessions.get(sessionId)).session.status === 'ended',
        60_000,
      );
      const frames: { type?: string; request?: { url?: string } }[] = [];
      const requested = () =>
        frames.some((f) => f.type === 'request' && String(f.request?.url).includes('/articles/3'));
      // The session's end and its network log's chunks reach the recorder by two streams: the log may take its
      // rows a moment after the session reads ended. Read until they are in (the asserts say what was not).
      await until('the page is in the network log', async () => {
        frames.length = 0;
        for await (const frame of await client.sessions.network(sessionId))
          frames.push(frame as (typeof frames)[number]);
        return requested();
      }).catch(() => undefined);
      assert.equal(frames[0]?.type, 'header');
      assert.ok(requested(), JSON.stringify(frames.slice(0, 3)));
      const live: { session: { status: string } }[] = [];
      for await (const frame of await client.sessions.live(sessionId)) live.push(frame);
      assert.equal(live.at(-1)?.session.status, 'ended');
    });

    test('agent.wait answers a paused run’s question; agent.follow replays what it did', async () => {
      scripts.set('Choose a colour', asking('Which colour?'));
      const { id } = await client.agent.start({ task: 'Choose a colour', url: `${site.url}/` });
      const questions: string[] = [];
      const statuses = new Set<string>();
      const { run } = await client.agent.wait(id, {
        timeoutMs: 120_000,
        pollIntervalMs: 300,
        onProgress: (s) => void statuses.add(s.run.status),
        onQuestion: (q) => {
          questions.push(q);
          return 'teal';
        },
      });
      assert.deepEqual(questions, ['Which colour?']);
      assert.ok(statuses.has('paused'), [...statuses].join());
      assert.deepEqual([run.outcome, run.answer], ['completed', 'got: teal']);
      const kinds: string[] = [];
      for await (const event of client.agent.follow(id, { level: 'summary' })) kinds.push(event.kind);
      assert.ok(kinds.includes('question') && kinds.includes('answer'), kinds.join());
    });
  });

  describe('the package as published', () => {
    test('npm pack builds a tarball that installs offline, compiles strictly and runs the README’s examples', async () => {
      const work = mkdtempSync(path.join(tmpdir(), 'wap-sdk-pack-'));
      execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], {
        cwd: path.join(ROOT, 'clients/typescript'),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const app = path.join(work, 'app');
      mkdirSync(app);
      writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
      execFileSync(
        'npm',
        ['install', '--offline', '--no-audit', '--no-fund', '--silent', '../web-access-sdk-0.1.0.tgz'],
        {
          cwd: app,
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const installed = JSON.parse(readFileSync(path.join(app, 'node_modules/@web-access/sdk/package.json'), 'utf8'));
      assert.equal(installed.dependencies, undefined, 'no runtime dependency');
      // Its README's examples, each a module; example.com is the loopback site here.
      const readme = readFileSync(path.join(ROOT, 'clients/typescript/README.md'), 'utf8');
      const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) =>
        (m[1] as string).replaceAll('https://example.com/', `${site.url}/`),
      );
      assert.ok(examples.length >= 5);
      for (const [i, code] of examples.entries()) writeFileSync(path.join(app, `example${i}.mts`), code);
      // A consumer's strict compile, without skipLibCheck and without the DOM library: Node's types suffice.
      mkdirSync(path.join(app, 'node_modules/@types'), { recursive: true });
      symlinkSync(path.join(ROOT, 'node_modules/@types/node'), path.join(app, 'node_modules/@types/node'));
      writeFileSync(
        path.join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            target: 'es2022',
            lib: ['es2022'],
            types: ['node'],
            noEmit: true,
            skipLibCheck: false,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
          },
          include: ['*.mts'],
        }),
      );
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', app], {
        stdio: 'inherit',
      });
      scripts.set('Find the opening hours', asking('Which city?'));
      for (const [i] of examples.entries()) {
        const { code, stdout, stderr } = await runNode(path.join(app, `example${i}.mts`), app, {
          SERVICE_API_KEY: key,
          SERVICE_BASE_URL: fleet.gatewayUrl,
        });
        assert.equal(code, 0, `example ${i} failed:\n${stdout}\n${stderr}`);
        assert.ok(stdout.trim(), `example ${i} printed nothing`);
      }
    });
  });
});

function runNode(file: string, cwd: string, env: Record<string, string>) {
  return collectOutput(spawn(process.execPath, [file], { cwd, env: { ...process.env, ...env } })).result;
}
