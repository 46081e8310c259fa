import type { ExtractResult } from '@wap/extract';
import type { CrawlDatabase } from './database.js';

export interface IndexedHit {
  url: string;
  title: string;
  description: string;
  snippet: string;
}

/** Content kept per page; enough for ranking and snippets, bounded for the index. */
const MAX_CONTENT = 200_000;

/** What the index keeps of a page: URL, title, description, content (bounded), language. */
export function indexFields(url: string, page: ExtractResult): [string, string, string, string, string | null] {
  const meta = page.metadata as { title?: string; description?: string; language?: string };
  // Postgres text cannot hold NUL, and a page may: it must never make a delivery fail.
  const clean = (s: string) => s.replaceAll('\u0000', '');
  return [
    url,
    clean(meta.title ?? ''),
    clean(meta.description ?? ''),
    clean(page.text.slice(0, MAX_CONTENT)),
    meta.language ? clean(meta.language) : null,
  ];
}

/**
 * The built-in search index: Postgres full-text search over the last copy of
 * every page a workspace scraped or crawled. Scoped to the workspace by its
 * key: a query never sees another workspace's pages.
 */
export class SearchIndex {
  constructor(private readonly db: CrawlDatabase) {}

  async add(workspaceId: string, url: string, page: ExtractResult): Promise<void> {
    await this.db.pool.query('SELECT search_index_put($1, $2, $3, $4, $5, $6)', [
      workspaceId,
      ...indexFields(url, page),
    ]);
  }

  /** Best matches first (web-search syntax: quotes, `or`, `-word`). */
  async search(workspaceId: string, query: string, limit: number): Promise<IndexedHit[]> {
    const { rows } = await this.db.pool.query(
      `WITH q AS (SELECT websearch_to_tsquery('english', $2) AS query)
       SELECT url, title, description,
              ts_headline('english', left(content, 20000), q.query,
                'MaxWords=35, MinWords=15, MaxFragments=2, FragmentDelimiter=" … ", StartSel="", StopSel=""') AS snippet
         FROM search_documents, q
        WHERE workspace_id = $1 AND tsv @@ q.query
        ORDER BY ts_rank_cd(tsv, q.query, 32) DESC, updated_at DESC
        LIMIT $3`,
      [workspaceId, query, limit],
    );
    return rows as IndexedHit[];
  }
}
