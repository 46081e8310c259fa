import { createHash } from 'node:crypto';
import type { crawl } from '@wap/proto';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { RawPage } from '../pipeline/scrape.js';

/** What makes two fetches of a URL the same page. */
export function cacheKey(url: string, options: crawl.ScrapeOptions): string {
  const headers = Object.entries(options.headers).sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256')
    .update(JSON.stringify([url, options.mobile, headers, options.engine]))
    .digest('hex');
}

export class PageCache {
  constructor(private readonly db: PrismaClient) {}

  async fresh(workspaceId: string, key: string, maxAgeMs: number): Promise<RawPage | undefined> {
    if (maxAgeMs <= 0) return undefined;
    const row = await this.db.cachedPage.findUnique({
      where: { workspaceId_cacheKey: { workspaceId, cacheKey: key } },
    });
    if (!row || Date.now() - row.fetchedAt.getTime() > maxAgeMs) return undefined;
    return {
      finalUrl: row.finalUrl,
      status: row.status,
      html: row.html,
      contentType: row.contentType,
      engine: row.engine === 'browser' ? 'browser' : 'fetch',
    };
  }

  async store(workspaceId: string, key: string, url: string, page: RawPage): Promise<void> {
    const data = {
      url,
      finalUrl: page.finalUrl,
      status: page.status,
      contentType: page.contentType,
      html: page.html,
      engine: page.engine,
      fetchedAt: new Date(),
    };
    await this.db.cachedPage.upsert({
      where: { workspaceId_cacheKey: { workspaceId, cacheKey: key } },
      create: { workspaceId, cacheKey: key, ...data },
      update: data,
    });
  }

  /** Drops copies no `maxAge` could still want. */
  async expire(olderThanMs: number): Promise<number> {
    const { count } = await this.db.cachedPage.deleteMany({
      where: { fetchedAt: { lt: new Date(Date.now() - olderThanMs) } },
    });
    return count;
  }
}
