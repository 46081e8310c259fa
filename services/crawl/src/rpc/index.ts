// The CrawlService implementation: one handler per RPC, each in its own file.
import type { crawl } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import { cancelCrawl } from './cancel-crawl.js';
import { crawlResults } from './crawl-results.js';
import type { CrawlDeps } from './deps.js';
import { getCrawl } from './get-crawl.js';
import { listCrawls } from './list-crawls.js';
import { map } from './map.js';
import { scrape } from './scrape.js';
import { search } from './search.js';
import { startCrawl } from './start-crawl.js';

export type { CrawlDeps } from './deps.js';

export function crawlService(deps: CrawlDeps): ServiceImpl<(typeof crawl.CrawlService)['method']> {
  return {
    scrape: scrape(deps),
    search: search(deps),
    startCrawl: startCrawl(deps),
    getCrawl: getCrawl(deps),
    crawlResults: crawlResults(deps),
    cancelCrawl: cancelCrawl(deps),
    map: map(deps),
    listCrawls: listCrawls(deps),
  };
}
