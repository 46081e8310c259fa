// A page rendered in a browser is recorded (docs/sessions.md, "Scrapes"): a
// browser-engine scrape, an `auto` one that falls back to the browser and a
// crawl's rendered pages each name their browser session; the session is of
// kind `scrape`, points back at the request whose charge the ledger holds,
// bills nothing itself, and replays the page. A fetched page has no session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import pg from 'pg';
import { call } from './api.js';
import { fleet, sharedFleet } from './shared-fleet.js';

let site: TestSite;
let key: string;

interface ScrapeReply {
  data: { markdown?: string; metadata: { engine?: string; sessionId?: string; url?: string } };
  usage: { credits: number; meters: Record<string, number> };
}

interface SessionJson {
  id: string;
  status: string;
  outcome: string | null;
  task: { kind: string; request?: string; run?: string };
  pageCount: number;
  usage: { credits: number; meters: Record<string, number> };
  replayUrl: string | null;
}

interface ReplayJson {
  tabs: { tab: number; events: unknown[]; pages: { url: string }[]; requests: { url: string; type: string }[] }[];
}

const scrape = async (body: Record<string, unknown>) => {
  const r = await call<ScrapeReply>(fleet.gatewayUrl, 'POST', '/v1/scrape', { key, body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};

/** The session once it ended and its page is stored (its row and its chunks travel apart). */
async function endedSession(id: string): Promise<SessionJson> {
  let session: SessionJson | undefined;
  await until(`session ${id} ended with its page recorded (last: ${JSON.stringify(session)})`, async () => {
    const r = await call<{ session: SessionJson }>(fleet.gatewayUrl, 'GET', `/v1/sessions/${id}`, { key });
    session = r.status === 200 ? r.body.session : undefined;
    return session?.status === 'ended' && session.pageCount >= 1;
  });
  return session as SessionJson;
}

/** What the replay page plays: its signed link's events. */
async function replayOf(session: SessionJson): Promise<ReplayJson> {
  assert.ok(session.replayUrl, 'a recorded session has a replay link');
  const events = session.replayUrl.replace(/\/replay\/([^/?]+)\?/, '/replay/$1/events?');
  const res = await fetch(events);
  assert.equal(res.status, 200);
  return (await res.json()) as ReplayJson;
}

/** One SQL query on a service's own database (what the API does not show: the ledger's charges, a crawl's request). */
async function query<T extends pg.QueryResultRow>(
  service: 'billing-ledger' | 'crawl',
  text: string,
  values: unknown[],
) {
  const db = new pg.Client({ connectionString: fleet.databaseUrl(service) });
  await db.connect();
  try {
    return (await db.query<T>(text, values)).rows;
  } finally {
    await db.end();
  }
}

describe('scrapes rendered in a browser are recorded', () => {
  before(async () => {
    // The site on 127.0.0.2, the one loopback address the fleet's egress lets through.
    site = await startTestSite({ pages: 10, host: '127.0.0.2' });
    await sharedFleet('site');
    ({ apiKey: key } = await fleet.workspace('pro'));
  });

  after(async () => {
    await site?.close();
  });

  test('a browser-engine scrape answers its session: kind scrape, the charged request, a replay of the page', async () => {
    const article = site.article(2);
    const url = `${site.url}/articles/2`;
    const r = await scrape({ url, engine: 'browser', formats: ['markdown'] });
    assert.equal(r.data.metadata.engine, 'browser');
    assert.ok(r.data.markdown?.includes(article.title));
    // Billed as before: one page load, nothing for the browser.
    assert.deepEqual(r.usage, { credits: 1, meters: { page_load: 1 } });
    const sessionId = r.data.metadata.sessionId;
    assert.match(
      sessionId ?? '',
      /^[0-9a-f-]{36}$/,
      `the answer names its session: ${JSON.stringify(r.data.metadata)}`,
    );

    const session = await endedSession(sessionId as string);
    assert.equal(session.outcome, 'closed');
    assert.equal(session.task.kind, 'scrape');
    // The request is the one the ledger charged the page to: from the charge to its replay, and back.
    const charges = await query<{ capability: string; charged_mc: string }>(
      'billing-ledger',
      'SELECT capability, charged_mc FROM usage_records WHERE reference = $1',
      [session.task.request],
    );
    assert.deepEqual(charges, [{ capability: 'scrape', charged_mc: '1000' }], `the charge of ${session.task.request}`);
    assert.equal(session.usage.credits, 0, 'the session bills nothing of its own');
    assert.equal(session.usage.meters.context_seconds, 0);

    const replay = await replayOf(session);
    assert.deepEqual(
      replay.tabs.map((t) => t.pages.map((p) => p.url)),
      [[url]],
      'one tab, the page',
    );
    assert.ok(JSON.stringify(replay.tabs[0]?.events).includes(article.title), 'its events hold what the page showed');
    assert.ok(
      replay.tabs[0]?.requests.some((q) => q.type === 'Document' && q.url === url),
      'its requests hold the page',
    );

    const list = async (task: string) =>
      (await call<{ sessions: SessionJson[] }>(fleet.gatewayUrl, 'GET', `/v1/sessions?task=${task}`, { key })).body
        .sessions;
    assert.ok(
      (await list('scrape')).some((s) => s.id === sessionId),
      'listed under task=scrape',
    );
    assert.ok(!(await list('connect')).some((s) => s.id === sessionId), 'not under task=connect');
  });

  test('auto falls back to the browser and is recorded; a fetched page has no session', async () => {
    const rendered = await scrape({ url: `${site.url}/rendered/1`, formats: ['markdown'] });
    assert.equal(rendered.data.metadata.engine, 'browser');
    const session = await endedSession(rendered.data.metadata.sessionId as string);
    assert.equal(session.task.kind, 'scrape');
    const replay = await replayOf(session);
    assert.ok(
      JSON.stringify(replay.tabs[0]?.events).includes(site.renderedArticle(1).title),
      'the page its script made',
    );

    const fetched = await scrape({ url: `${site.url}/articles/3`, engine: 'fetch', formats: ['markdown'] });
    assert.equal(fetched.data.metadata.engine, 'fetch');
    assert.equal(fetched.data.metadata.sessionId, undefined, 'no browser, no session');
  });

  test("a crawl's rendered pages each name their own session, of the crawl's request", async () => {
    const start = await call<{ id: string }>(fleet.gatewayUrl, 'POST', '/v1/crawl', {
      key,
      body: {
        url: `${site.url}/`,
        limit: 2,
        sitemap: 'skip',
        scrapeOptions: { engine: 'browser', formats: ['markdown'] },
      },
    });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const crawlId = start.body.id;
    type Results = { status: string; data: ScrapeReply['data'][] };
    let results: Results | undefined;
    await until(`the crawl settled with its pages (last: ${JSON.stringify(results?.status)})`, async () => {
      results = (await call<Results>(fleet.gatewayUrl, 'GET', `/v1/crawl/${crawlId}/results`, { key })).body;
      return results.status === 'settled';
    });
    const pages = (results as Results).data;
    assert.equal(pages.length, 2);
    const ids = pages.map((p) => p.metadata.sessionId as string);
    assert.equal(new Set(ids).size, 2, `a session per page: ${ids}`);
    for (const [i, id] of ids.entries()) {
      const session = await endedSession(id);
      // The crawl's own id: what its pages' usage is listed under.
      assert.deepEqual(session.task, { kind: 'scrape', request: crawlId });
      const replay = await replayOf(session);
      assert.deepEqual(
        replay.tabs[0]?.pages.map((p) => p.url),
        [pages[i]?.metadata.url],
      );
    }
  });
});
