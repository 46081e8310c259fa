// Fetched pages delivered (crawl_deliver_many), a worker's deliveries of the
// moment in one statement: each URL done, its new links queued, its page stored
// under the crawl's next `seq` and put in the search index. UrlStore batches the
// calls; the locks follow its order (URL rows, then host rows, then the crawl row).
import type { CrawlDatabase } from './database.js';
import type { indexFields } from './search-index.js';

export type IndexFields = ReturnType<typeof indexFields>;

/** A URL a crawl learns: its key, where it is, its host, and how many links from the start. */
export interface NewUrl {
  key: string;
  url: string;
  host: string;
  depth: number;
}

/** One page to deliver. */
export interface Delivery {
  crawlId: string;
  urlKey: string;
  page: { depth: number; document: Uint8Array };
  links: NewUrl[];
  indexed: IndexFields;
  /** Where a redirect landed: known to the crawl from now on, not counted, not queued. */
  landed?: NewUrl;
}

export interface Delivered {
  seq: number;
  queued: NewUrl[];
  mayHaveEnded: boolean;
}

/** Where each document ends in their concatenation. */
function documentEnds(lengths: number[]): number[] {
  let end = 0;
  return lengths.map((n) => (end += n));
}

const fulfilled = <R>(value: R): PromiseSettledResult<R> => ({ status: 'fulfilled', value });

/**
 * Delivers the pages in one statement; each answer is undefined when another
 * worker delivered that URL first or its crawl was closed.
 */
export async function deliverMany(
  db: CrawlDatabase,
  calls: Delivery[],
): Promise<PromiseSettledResult<Delivered | undefined>[]> {
  const links = calls.flatMap((c, i) => c.links.map((l) => ({ page: i + 1, ...l })));
  const field = (n: number) => calls.map((c) => c.indexed[n]);
  const { rows } = await db.pool.query<{
    i: number;
    seq: number | null;
    queued: string[] | null;
    open: number | null;
    at_limit: boolean | null;
  }>(
    `SELECT i, seq, queued, open, at_limit
       FROM crawl_deliver_many($1::uuid[], $2::text[], $3::int[], $4::bytea, $5::int[], $6::text[], $7::text[],
                               $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
                               $14::int[], $15::text[], $16::text[], $17::text[], $18::int[])`,
    [
      calls.map((c) => c.crawlId),
      calls.map((c) => c.urlKey),
      calls.map((c) => c.page.depth),
      Buffer.concat(calls.map((c) => c.page.document)),
      documentEnds(calls.map((c) => c.page.document.byteLength)),
      field(0),
      field(1),
      field(2),
      field(3),
      field(4),
      calls.map((c) => c.landed?.key ?? null),
      calls.map((c) => c.landed?.url ?? null),
      calls.map((c) => c.landed?.host ?? null),
      links.map((l) => l.page),
      links.map((l) => l.key),
      links.map((l) => l.url),
      links.map((l) => l.host),
      links.map((l) => l.depth),
    ],
  );
  const answers = new Map(rows.map((r) => [r.i, r]));
  return calls.map((call, i) => {
    const row = answers.get(i + 1);
    if (!row || row.seq === null) return fulfilled(undefined); // another worker delivered it first
    const fresh = new Set(row.queued ?? []);
    return fulfilled({
      seq: row.seq,
      queued: call.links.filter((l) => fresh.has(l.key)),
      mayHaveEnded: row.at_limit === true || row.open === 0,
    });
  });
}
