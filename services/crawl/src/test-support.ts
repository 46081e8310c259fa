// Shared by the crawl's tests (not a test itself): a fresh migrated database,
// the service as openCrawl builds it, served in-process on a real gRPC server,
// with the ledger served in-process too and a NATS namespace of its own, and a
// running crawl for the stores' tests.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  freshDatabase as freshLedgerDatabase,
  type InProcessLedger,
  serveLedger,
} from '@wap/billing-ledger/test-support';
import { ensureStreams } from '@wap/events';
import { crawl, ledger } from '@wap/proto';
import { addService, createClient, createServer } from '@wap/rpc';
import {
  type FreshDatabase,
  freshServiceDatabase,
  infra,
  quietLog,
  TEST_SERVICE_TOKEN,
  testNats,
  uniqueNamespace,
} from '@wap/testkit';
import { env } from './config.js';
import { openCrawl } from './crawl.js';
import { frontierStreams } from './jobs/frontier.js';
import { CrawlStore } from './store/crawls.js';
import { CrawlDatabase } from './store/database.js';
import type { NewUrl } from './store/deliveries.js';
import { HostStore } from './store/hosts.js';
import { PageStore } from './store/pages.js';
import { type TakeSettings, UrlStore } from './store/urls.js';

export const SERVICE_DIR = path.resolve(__dirname, '..');

/** A new database with every migration applied, as the deploy Job would leave it. */
export const freshDatabase = (): Promise<FreshDatabase> => freshServiceDatabase(SERVICE_DIR);

export type CrawlClient = ReturnType<typeof createClient<(typeof crawl.CrawlService)['method']>>;

export interface InProcessCrawl {
  client: CrawlClient;
  /** The ledger the crawl bills on, with a client of its own. */
  ledger: InProcessLedger;
  db: CrawlDatabase;
  deps: ReturnType<typeof openCrawl>['deps'];
  /** Stops the service as SIGTERM would, then drops what the test made. */
  close(): Promise<void>;
}

/**
 * The crawl service's composition on a real gRPC server on loopback, against
 * real Postgres, NATS and ledger. `settings` are environment variables, as the
 * fleet would pass them; local test sites are let through the egress guard.
 */
export async function serveCrawl(settings: Record<string, string> = {}): Promise<InProcessCrawl> {
  const log = quietLog('crawl');
  const [database, ledgerDatabase] = await Promise.all([freshDatabase(), freshLedgerDatabase()]);
  const ledger = await serveLedger(ledgerDatabase.url, () => new Date());
  const config = env.parse({
    DATABASE_URL: database.url,
    NATS_URL: infra().natsUrl,
    NATS_NAMESPACE: uniqueNamespace('crawl'),
    BILLING_LEDGER_ADDR: ledger.address,
    EGRESS_ALLOW: '127.0.0.0/8',
    EXTRACT_THREADS: '0',
    SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    ...settings,
  });
  const nats = await testNats('crawl-test', log);
  // What runService declares from the definition before it starts the service.
  const { streams, consumers } = frontierStreams(config);
  await ensureStreams(nats.nc, streams, consumers);
  const db = new CrawlDatabase(config.DATABASE_URL, 4);
  const running = openCrawl(config, db, nats, log);
  await running.start();
  const server = createServer({ token: TEST_SERVICE_TOKEN, log });
  addService(server, crawl.CrawlService, running.impl, log);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const client = createClient(crawl.CrawlService, `127.0.0.1:${port}`, {
    defaultTimeoutMs: 30_000,
    token: TEST_SERVICE_TOKEN,
  });
  return {
    client,
    ledger,
    db,
    deps: running.deps,
    close: async () => {
      client.close();
      await running.stop();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      for (const stream of streams)
        await nats.nc.request(`$JS.API.STREAM.DELETE.${stream.name}`).catch(() => undefined);
      await nats.drain();
      await db.$disconnect();
      await ledger.close();
      await Promise.all([database.drop(), ledgerDatabase.drop()]);
    },
  };
}

/** A new workspace with a Pro account on the served crawl's ledger. */
export async function proWorkspace(served: InProcessCrawl): Promise<string> {
  const workspaceId = randomUUID();
  await served.ledger.client.ensureAccount({ workspaceId, plan: ledger.Plan.PRO });
  return workspaceId;
}

/** The host of the stores' tests' crawls. */
export const TEST_HOST = 'site.test';

/** A URL of the test host, as a page links it (depth 1); it is its own key. */
export const testUrl = (key: string): NewUrl => ({
  key: `http://${TEST_HOST}/${key}`,
  url: `http://${TEST_HOST}/${key}`,
  host: TEST_HOST,
  depth: 1,
});

/** What the search index keeps of a test page at `url`. */
export const testIndexFields = (url: string) =>
  [url, 'title', '', 'some words of text', 'en'] as [string, string, string, string, string];

/** A take as a worker asks it: robots.txt allows the URL, 16 pages of a host at once. */
export const TEST_TAKE: TakeSettings = { allowed: true, maxPerHost: 16, leaseMs: 60_000 };

/**
 * The crawl's stores on a fresh database of their own, for the stores' tests:
 * `crawlWith` starts a crawl on them, `drop` ends it all.
 */
export async function freshStores() {
  const database = await freshDatabase();
  const db = new CrawlDatabase(database.url, 8);
  const crawls = new CrawlStore(db);
  const urls = new UrlStore(db);
  const hosts = new HostStore(db);
  return {
    db,
    crawls,
    urls,
    hosts,
    pages: new PageStore(db),
    /**
     * A running crawl whose start page was taken and delivered, with `pending`
     * URLs queued under the test host and `gapMs` between its requests.
     */
    async crawlWith(pending: string[], opts: { limit?: number; gapMs?: number } = {}): Promise<string> {
      const id = randomUUID();
      const start = testUrl('');
      await crawls.create({
        id,
        workspaceId: randomUUID(),
        requestId: randomUUID(),
        start,
        options: {},
        holdId: randomUUID(),
        limit: opts.limit ?? 1_000,
        deadlineAt: new Date(Date.now() + 3_600_000),
        sitemapsPending: false,
      });
      await hosts.ensureHost(id, TEST_HOST, null, opts.gapMs ?? 0);
      assert.equal((await urls.take(id, start.key, TEST_TAKE)).kind, 'fetch');
      const delivered = await urls.deliver(
        id,
        start.key,
        { depth: 0, document: Buffer.from('start') },
        pending.map(testUrl),
        testIndexFields(start.url),
      );
      assert.deepEqual(delivered?.queued.map((q) => q.key).sort(), pending.map((p) => testUrl(p).key).sort());
      return id;
    },
    /** Sessions of this database blocked on a lock another holds. */
    async lockWaiters(): Promise<number> {
      const { rows } = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return rows[0]?.n ?? 0;
    },
    async drop() {
      await db.$disconnect();
      await database.drop();
    },
  };
}

export type FreshStores = Awaited<ReturnType<typeof freshStores>>;
