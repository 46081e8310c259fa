// The crawl service: scrape, crawl and search, with the page pipeline.
import { crawl } from '@wap/proto';
import { addService } from '@wap/rpc';
import type { ServiceDefinition } from '@wap/service';
import { env } from './config.js';
import { openCrawl } from './crawl.js';
import { frontierStreams } from './jobs/frontier.js';
import { CrawlDatabase } from './store/database.js';

export const definition: ServiceDefinition<typeof env, CrawlDatabase> = {
  name: 'crawl',
  env,
  openDatabase: (url) => new CrawlDatabase(url),
  // The frontier: one work queue every crawl worker shares (docs/crawl.md).
  streams: (config) => frontierStreams(config).streams,
  consumers: (config) => frontierStreams(config).consumers,
  start: async ({ config, log, db, server, nats }) => {
    const running = openCrawl(config, db, nats, log);
    await running.start();
    addService(server, crawl.CrawlService, running.impl, log);
    return { stop: running.stop };
  },
};
