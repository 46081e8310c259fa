// Shared by the crawl's tests (not a test itself): a fresh migrated database,
// and the service as openCrawl builds it, served in-process on a real gRPC
// server, with the ledger served in-process too and a NATS namespace of its own.
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  freshDatabase as freshLedgerDatabase,
  type InProcessLedger,
  serveLedger,
} from '@wap/billing-ledger/dist/test-support.js';
import { ensureStreams } from '@wap/events';
import { crawl } from '@wap/proto';
import { addService, createClient } from '@wap/rpc';
import { type FreshDatabase, freshServiceDatabase, infra, quietLog, testNats, uniqueNamespace } from '@wap/testkit';
import { env } from './config.js';
import { openCrawl } from './crawl-service.js';
import { frontierStreams } from './jobs/frontier.js';
import { CrawlDatabase } from './store/database.js';

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
    ...settings,
  });
  const nats = await testNats('crawl-test', log);
  // What runService declares from the definition before it starts the service.
  const { streams, consumers } = frontierStreams(config);
  await ensureStreams(nats.nc, streams, consumers);
  const db = new CrawlDatabase(config.DATABASE_URL, 4);
  const running = openCrawl(config, db, nats, log);
  await running.start();
  const server = new grpc.Server();
  addService(server, crawl.CrawlService, running.impl, log);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const client = createClient(crawl.CrawlService, `127.0.0.1:${port}`, { defaultTimeoutMs: 30_000 });
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
