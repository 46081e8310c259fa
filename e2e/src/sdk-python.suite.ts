// The Python SDK (clients/python) against a real fleet, as its users call it: the wheel is
// built offline and imported as shipped, and e2e/src/sdk_python.py runs one scenario per
// process, printing what it saw. Every operation of the served document has a method; a
// scrape, a crawl with its wait and paged results, a running crawl's results read as they
// come, a scripted agent run followed and one answered through `wait`, a paged list; a
// scrape and a crawl whose answers a TCP proxy lost after the gateway did the work, retried
// under one Idempotency-Key and billed once; error classes with their codes; the README.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { call } from './api.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { asking, type ScriptedModel, step } from './scripted-agent.js';
import { fleet, scripted, sharedFleet } from './shared-fleet.js';

const ROOT = path.resolve(__dirname, '../..');
const PYTHON = path.join(ROOT, '.tools/python-sdk/bin/python');
const SCENARIOS = path.join(ROOT, 'e2e/src/sdk_python.py');
const SDK = path.join(ROOT, 'clients/python');
const run = promisify(execFile);

let site: TestSite;
let slowSite: TestSite;
let proxy: FaultProxy;
let key: string;
/** The wheel `python -m build` made: what `pip install web-access-sdk` would install. */
let wheel: string;
let configHome: string;

const finish = (answer: unknown) => step([{ action: 'finish', success: true, answer }]);

const RECORDING_TASK = 'Record one finding and finish';
/** The tasks of the scenarios and of the README (its examples run as written), as the scripted model plays them. */
function script(scripts: ScriptedModel['scripts']) {
  scripts.set('Read the title of the home page', () => finish('Home'));
  scripts.set('Ask me which colour I like', asking('Which colour do you like?'));
  scripts.set('Pick a colour with me', asking('Which colour?'));
  scripts.set(RECORDING_TASK, (prompt) =>
    prompt.includes('record: saved') ? finish('recorded') : step([{ action: 'record', json: '{"finding":1}' }]),
  );
}

/**
 * One scenario in its own Python process: its JSON, after asserting it exited 0. The key and
 * the deployment come from the environment, as a user's script gets them; no login is stored.
 */
async function py<T>(scenario: string, args: string[] = [], env: Record<string, string> = {}): Promise<T> {
  try {
    const { stdout } = await run(PYTHON, [SCENARIOS, scenario, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: configHome,
        XDG_CONFIG_HOME: configHome,
        // The wheel first: web_access is imported as shipped. The scripts folder: the generator's naming rule.
        PYTHONPATH: [wheel, path.join(SDK, 'scripts')].join(path.delimiter),
        SERVICE_API_KEY: key,
        SERVICE_BASE_URL: fleet.gatewayUrl,
        SITE_URL: site.url,
        ...env,
      },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    });
    return JSON.parse(stdout) as T;
  } catch (err) {
    const { code, stderr } = err as { code?: number; stderr?: string };
    assert.fail(`python ${scenario} exited ${code}:\n${stderr?.slice(-4000)}`);
  }
}

/** What the ledger has billed the workspace so far, by meter (GET /v1/usage). */
const billed = async () =>
  (await call<{ total: { meters: Record<string, number> } }>(fleet.gatewayUrl, 'GET', '/v1/usage', { key })).body.total
    .meters;

describe('the Python SDK', () => {
  before(async () => {
    site = await startTestSite({ pages: 30, extras: false });
    // Each page late: a crawl of it is still running when its first pages are read.
    slowSite = await startTestSite({ pages: 30, extras: false, latencyMs: 700 });
    await sharedFleet('browsers');
    script(scripted.scripts);
    ({ apiKey: key } = await fleet.workspace('pro'));
    proxy = await startFaultProxy(fleet.gatewayUrl);
    // Built offline as it would be published: the sdist, then the wheel from the sdist.
    const out = mkdtempSync(path.join(tmpdir(), 'wap-sdk-python-'));
    execFileSync(PYTHON, ['-m', 'build', '--no-isolation', '--outdir', out, SDK], { stdio: 'pipe' });
    const built = readdirSync(out);
    assert.ok(
      built.some((f) => f === 'web_access_sdk-0.1.0.tar.gz'),
      `no sdist in ${built}`,
    );
    const wheelFile = built.find((f) => f.endsWith('-py3-none-any.whl'));
    assert.ok(wheelFile, `no wheel in ${built}`);
    wheel = path.join(out, wheelFile);
    configHome = mkdtempSync(path.join(tmpdir(), 'wap-sdk-python-config-'));
  });

  after(async () => {
    await proxy?.close();
    await site?.close();
    await slowSite?.close();
  });

  test('is imported from the wheel and has a method for every operation the fleet serves', async () => {
    const { module } = await py<{ module: string }>('scrape');
    assert.ok(module.startsWith(wheel), `imported from ${module}`);
    const { found, missing } = await py<{ found: string[]; missing: string[] }>('operations');
    assert.deepEqual(missing, []);
    for (const name of ['crawl -> crawl.start', 'sessions.network -> sessions.network', 'credits -> credits.get'])
      assert.ok(found.includes(name), `${name} in ${found}`);
  });

  test('scrapes a page, billed one page load', async () => {
    const before = (await billed()).page_load ?? 0;
    const page = await py<{ markdown: string; credits: number; meters: Record<string, number>; source: string }>(
      'scrape',
    );
    assert.ok(page.markdown.includes(site.article(0).title), page.markdown.slice(0, 200));
    assert.deepEqual([page.credits, page.meters], [1, { page_load: 1 }]);
    assert.equal(page.source, 'env', 'the key came from SERVICE_API_KEY');
    assert.equal((await billed()).page_load, before + 1);
  });

  test('starts a crawl, waits with progress and reads every page through the paged list', async () => {
    const crawl = await py<{
      id: string;
      status: string;
      outcome: string;
      completed: number;
      credits: number;
      progress: number[];
      first_page: number;
      first_cursor: string | null;
      urls: string[];
    }>('crawl');
    assert.deepEqual([crawl.status, crawl.outcome, crawl.completed, crawl.credits], ['settled', 'limit_reached', 7, 7]);
    assert.ok(crawl.progress.length >= 1 && crawl.progress.at(-1) === 7, `progress ${crawl.progress}`);
    assert.deepEqual(
      crawl.progress,
      [...crawl.progress].sort((a, b) => a - b),
      'each state read no earlier than the last',
    );
    assert.equal(crawl.first_page, 2, 'a page of two');
    assert.ok(crawl.first_cursor, 'with a cursor to the next');
    assert.equal(crawl.urls.length, 7, 'iterating read all seven pages, two at a time');
    assert.equal(new Set(crawl.urls).size, 7);
    for (const url of crawl.urls) assert.ok(url.startsWith(site.url), url);
  });

  test("reads a running crawl's results as they are delivered, until it settles", async () => {
    const seen = await py<{ pages: { url: string; crawl: string }[]; final: { status: string; completed: number } }>(
      'crawl_follow',
      [slowSite.url],
    );
    assert.equal(seen.final.status, 'settled');
    assert.equal(seen.pages.length, seen.final.completed);
    assert.equal(seen.pages.length, 5);
    assert.equal(seen.pages[0]?.crawl, 'running', 'the first page was read while the crawl still ran');
  });

  test('follows a scripted run’s events as they happen, reads its records and waits for it', async () => {
    const result = await py<{
      id: string;
      events: { seq: number; kind: string; level: string }[];
      records: unknown[];
      outcome: string;
      answer: unknown;
      session: string | null;
    }>('agent', [RECORDING_TASK]);
    assert.equal(result.outcome, 'completed');
    assert.equal(result.answer, 'recorded');
    assert.deepEqual(result.records, [{ finding: 1 }]);
    const seqs = result.events.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      'oldest first',
    );
    assert.equal(new Set(seqs).size, seqs.length, 'no event twice');
    const kinds = result.events.map((e) => e.kind);
    assert.ok(kinds.includes('record'), `a record event in ${kinds}`);
    assert.equal(kinds.at(-1), 'status', `the run's settling is the last event: ${kinds}`);
    const served = await call<{ events: { seq: number }[] }>(
      fleet.gatewayUrl,
      'GET',
      `/v1/agent/${result.id}/events?level=step&limit=500`,
      { key },
    );
    assert.deepEqual(
      served.body.events.map((e) => e.seq),
      seqs,
      'every event the API holds',
    );
  });

  test('answers a paused run’s question through wait(on_question=...)', async () => {
    const result = await py<{ asked: string[]; states: string[]; outcome: string; answer: string }>('agent_question', [
      'Pick a colour with me',
    ]);
    assert.deepEqual(result.asked, ['Which colour?'], 'asked once, answered once');
    assert.ok(result.states.includes('paused'));
    assert.deepEqual([result.outcome, result.answer], ['completed', 'got: green']);
  });

  test('iterates a cursor-paged list page after page', async () => {
    const listed = await py<{ first: string[]; cursor: string | null; all: string[] }>('sessions');
    const served = await call<{ sessions: { id: string }[] }>(fleet.gatewayUrl, 'GET', '/v1/sessions?limit=100', {
      key,
    });
    const ids = served.body.sessions.map((s) => s.id);
    assert.ok(ids.length >= 2, `the runs above left sessions: ${ids}`);
    assert.equal(listed.first.length, 1);
    assert.ok(listed.cursor);
    assert.deepEqual(listed.all, ids, 'every session, one per request, in the API’s order');
  });

  test('retries a scrape and a crawl whose answers were lost, under one key, billed once', async () => {
    const before = (await billed()).page_load ?? 0;
    const sent = proxy.requests.length;
    proxy.loseAnswer(/^POST \/v1\/scrape /);
    proxy.loseAnswer(/^POST \/v1\/crawl /);
    const result = await py<{
      replayed: string | null;
      markdown: string;
      crawl: string;
      completed: number;
      crawl_credits: number;
    }>('lost_answers', [proxy.url]);
    const posts = proxy.requests.slice(sent).filter((r) => r.line.startsWith('POST '));
    for (const route of ['/v1/scrape', '/v1/crawl']) {
      const attempts = posts.filter((r) => r.line.split(' ')[1] === route);
      assert.equal(attempts.length, 2, `${route}: the lost answer, then the retry`);
      const keys = new Set(attempts.map((r) => r.headers['idempotency-key']));
      assert.equal(keys.size, 1, `${route}: one Idempotency-Key for both attempts`);
      assert.match([...keys][0] ?? '', /^sdk-[0-9a-f-]{36}$/);
    }
    assert.equal(proxy.lost.length >= 2, true);
    assert.equal(result.replayed, 'true', 'the retry got the first answer back');
    assert.ok(result.markdown.includes(site.article(1).title), result.markdown.slice(0, 200));
    const lostCrawl = JSON.parse(proxy.lost.find((l) => l.request.line.startsWith('POST /v1/crawl '))?.body ?? '{}');
    assert.equal(lostCrawl.id, result.crawl, 'the retry answered the crawl the first attempt started');
    assert.deepEqual([result.completed, result.crawl_credits], [3, 3]);
    // One scrape and one crawl of three pages: four page loads, not eight.
    await until('the crawl’s pages to reach the ledger', async () => (await billed()).page_load === before + 4, 30_000);
    assert.equal((await billed()).page_load, before + 4);
  });

  test('raises the class of each status, with the Error object and the request id', async () => {
    const [missing, invalid, tooMany, unknownKey] =
      await py<
        {
          raised: string;
          status: number;
          code: string;
          message: string;
          details: Record<string, unknown>;
          request_id: string;
          header_request_id: string;
        }[]
      >('errors');
    assert.deepEqual(
      [missing?.raised, missing?.status, missing?.code],
      ['NotFoundError', 404, 'not_found'],
      JSON.stringify(missing),
    );
    assert.ok(missing?.request_id && missing.request_id === missing.header_request_id);
    assert.deepEqual([invalid?.raised, invalid?.status, invalid?.code], ['BadRequestError', 400, 'bad_request']);
    const issues = invalid?.details.issues as { path: string }[];
    assert.ok(
      issues.some((i) => i.path === 'body.url'),
      JSON.stringify(issues),
    );
    assert.deepEqual([tooMany?.raised, tooMany?.code], ['BadRequestError', 'bad_request']);
    assert.deepEqual(
      [unknownKey?.raised, unknownKey?.status, unknownKey?.code, unknownKey?.details.reason],
      ['AuthenticationError', 401, 'unauthorized', 'invalid'],
    );
  });

  test('without a key, the constructor raises TypeError naming SERVICE_API_KEY', async () => {
    const result = await py<{ raised: string; message: string }>('no_key', [], { SERVICE_API_KEY: '' });
    assert.equal(result.raised, 'TypeError');
    assert.match(result.message, /SERVICE_API_KEY/);
  });

  test('the async client scrapes, waits for a crawl and iterates its results', async () => {
    const result = await py<{ markdown: string; completed: number; urls: string[]; missing: string }>('async');
    assert.ok(result.markdown.includes(site.article(2).title), result.markdown.slice(0, 200));
    assert.equal(result.completed, 3);
    assert.equal(result.urls.length, 3);
    assert.equal(result.missing, 'not_found');
  });

  test("runs the README's examples", async () => {
    const { blocks, printed } = await py<{ blocks: number; printed: string[] }>('readme', [
      path.join(SDK, 'README.md'),
    ]);
    assert.ok(blocks >= 6, `${blocks} examples`);
    const text = printed.join('\n');
    assert.match(text, /- 1(\.0)? credit/, 'the scrape and its credit');
    assert.match(text, /limit_reached 5(\.0)?/, 'the crawl and its cost');
    assert.match(text, /completed got: green/, 'the run answered through on_question');
    assert.match(text, /404 not_found /, 'the error, its code and request id');
    assert.match(text, /unauthorized malformed/, 'a key that is not one');
    assert.match(text, /^200 \S+ \d/m, 'a raw answer');
  });
});
