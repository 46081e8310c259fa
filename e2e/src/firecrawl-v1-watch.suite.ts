// The v1 clients' crawlUrlAndWatch (firecrawl-js's `.v1`) and crawl_url_and_watch (firecrawl-py's
// V1FirecrawlApp): the crawl started, then watched over a WebSocket on /v1/crawl/{id}, the same
// watcher as v2's (docs/migrating-from-firecrawl.md, "Watchers"): each page once as a `document`,
// then `done`; a cancelled crawl ends in the watcher's `error` event, v1 knowing no other end.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '@wap/fleet';
import { startTestSite, type TestSite } from '@wap/testsite';
import { fleet, sharedFleet } from './shared-fleet.js';

const run = promisify(execFile);
const PYTHON = path.join(ROOT, '.tools/firecrawl-py/bin/python');
const PYTHON_CLIENT = path.join(ROOT, 'e2e/src/firecrawl_sdk.py');

/**
 * firecrawl-js v1's watcher uses the global WebSocket: Node 22 has one, Node 20 with
 * --experimental-websocket. Its events until `done` or `error`, in a process of its own.
 */
const JS_WATCH = `
const [apiUrl, apiKey, start, cancel] = process.argv.slice(1);
import('@mendable/firecrawl-js').then(async ({ default: Firecrawl }) => {
  const watcher = await new Firecrawl({ apiKey, apiUrl }).v1.crawlUrlAndWatch(start, { limit: 3 });
  const events = [];
  const end = () => { console.log(JSON.stringify({ id: watcher.id, status: watcher.status, events })); process.exit(0); };
  watcher.addEventListener('document', (e) => events.push({ type: 'document', url: e.detail.metadata?.url }));
  watcher.addEventListener('done', (e) => { events.push({ type: 'done', status: e.detail.status }); end(); });
  watcher.addEventListener('error', (e) => { events.push({ type: 'error', error: e.detail.error }); end(); });
  if (cancel) await fetch(apiUrl + '/v1/crawl/' + watcher.id, { method: 'DELETE', headers: { authorization: 'Bearer ' + apiKey } });
});`;

interface Watched {
  id: string;
  status: string;
  events: { type: string; url?: string; error?: string; status?: string }[];
}

async function jsWatch(apiKey: string, start: string, cancel = false): Promise<Watched> {
  const flags = Number(process.versions.node.split('.')[0]) < 22 ? ['--experimental-websocket'] : [];
  const args = [...flags, '--no-warnings', '-e', JS_WATCH, fleet.gatewayUrl, apiKey, start, cancel ? '1' : ''];
  const { stdout } = await run(process.execPath, args, { cwd: path.join(ROOT, 'e2e'), timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Watched;
}

let site: TestSite;
let slow: TestSite;

describe('Firecrawl v1 crawlUrlAndWatch', () => {
  before(async () => {
    site = await startTestSite({ pages: 6, host: '127.0.0.2', extras: false });
    slow = await startTestSite({ pages: 20, host: '127.0.0.2', extras: false, latencyMs: 500 });
    await sharedFleet('site');
  });
  after(async () => {
    await site?.close();
    await slow?.close();
  });

  test('firecrawl-js v1 crawlUrlAndWatch: each page once as a document, then done', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const out = await jsWatch(apiKey, `${site.url}/`);
    const docs = out.events.filter((e) => e.type === 'document');
    assert.equal(docs.length, 3, JSON.stringify(out));
    assert.equal(new Set(docs.map((d) => d.url)).size, 3);
    assert.deepEqual(out.events.at(-1), { type: 'done', status: 'completed' });
  });

  test('firecrawl-js v1: a crawl cancelled while watched ends in the watcher’s error, saying so', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const out = await jsWatch(apiKey, `${slow.url}/`, true);
    assert.deepEqual(out.events.at(-1), { type: 'error', error: 'The crawl ended cancelled.' }, JSON.stringify(out));
    assert.equal(out.status, 'failed');
  });

  test('firecrawl-py crawl_url_and_watch: each page once as a document, then done', async () => {
    const { apiKey } = await fleet.workspace('pro');
    const call = JSON.stringify({
      client: 'V1FirecrawlApp',
      method: 'watch',
      args: [`${site.url}/`],
      kwargs: { limit: 3 },
    });
    const { stdout } = await run(PYTHON, [PYTHON_CLIENT, fleet.gatewayUrl, apiKey, call], { timeout: 120_000 });
    const answer = JSON.parse(stdout) as { ok: boolean; result: { status: string; events: { type: string }[] } };
    assert.ok(answer.ok, stdout);
    assert.equal(answer.result.status, 'completed');
    assert.deepEqual(
      answer.result.events.map((e) => e.type),
      ['document', 'document', 'document', 'done'],
    );
  });
});
