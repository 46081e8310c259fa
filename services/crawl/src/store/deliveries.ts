// Fetched pages delivered (crawl_deliver_many), a worker's deliveries of the
// moment in one statement: each URL done, its new links queued, its page stored
// under the crawl's next `seq` and put in the search index, and its `page` webhook event
// queued in the same transaction. UrlStore batches the calls; the locks follow its order
// (URL rows, then host rows, then the crawl row).
import type { PoolClient } from 'pg';
import type { CrawlDatabase } from './database.js';
import type { indexFields } from './search-index.js';
import { queuePageWebhooks } from './webhooks.js';

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
  /** The page as its webhook's `page` event carries it (JSON), when the crawl's webhook wants pages. */
  pageEvent?: string;
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
  // Pages whose crawl's webhook wants them: delivered and their events queued in one transaction.
  if (!calls.some((c) => c.pageEvent)) return answersOf(calls, await deliverStatement(db.pool, calls));
  return db.transaction(async (tx) => {
    const answers = answersOf(calls, await deliverStatement(tx, calls));
    const events = calls.flatMap((c, i) => {
      const answer = answers[i];
      return c.pageEvent && answer?.status === 'fulfilled' && answer.value
        ? [{ crawlId: c.crawlId, document: c.pageEvent }]
        : [];
    });
    await queuePageWebhooks(tx, events);
    return answers;
  });
}

interface DeliveredRow {
  i: number;
  seq: number | null;
  queued: string[] | null;
  open: number | null;
  at_limit: boolean | null;
}

async function deliverStatement(client: PoolClient | CrawlDatabase['pool'], calls: Delivery[]) {
  const links = calls.flatMap((c, i) => c.links.map((l) => ({ page: i + 1, ...l })));
  const field = (n: number) => calls.map((c) => c.indexed[n]);
  const { rows } = await client.query<{
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
  return rows as DeliveredRow[];
}

function answersOf(calls: Delivery[], rows: DeliveredRow[]): PromiseSettledResult<Delivered | undefined>[] {
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
