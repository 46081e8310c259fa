// A crawl's webhook outbox (docs/crawl.md, "Webhooks"): an event is queued in the
// transaction that makes it true (the crawl created, a page delivered, the crawl closed),
// its body fixed then in Firecrawl's shape; senders claim due rows with SKIP LOCKED and
// write each attempt back on its row.
import { randomUUID } from 'node:crypto';
import { sealText, unsealText } from '@wap/sealed';
import type { PoolClient } from 'pg';
import { type CrawlDatabase, firstRow } from './database.js';

/** Firecrawl's events; none asked means all of them, as Firecrawl's default. */
export type WebhookEvent = 'started' | 'page' | 'completed' | 'failed';
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = ['started', 'page', 'completed', 'failed'];

/** A crawl's webhook as stored on its row: `events` empty means all of them. */
export interface StoredWebhook {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  events: WebhookEvent[];
  secret: string;
}

/** What sealed webhooks are: the key derivation's purpose. */
export const WEBHOOK_PURPOSE = 'wap crawl webhook v1';

/**
 * A webhook as its crawl's row keeps it: what the queueing SQL reads in the clear (the metadata it
 * echoes, the events it filters on), and the URL, headers and signing secret sealed under CRAWL_KEY
 * for the crawl (a URL or a header may carry a token).
 */
export interface KeptWebhook {
  metadata: Record<string, unknown>;
  events: WebhookEvent[];
  sealed: string;
}

/** The webhook as its crawl's row keeps it. */
export function keepWebhook(key: string, crawlId: string, hook: StoredWebhook): KeptWebhook {
  const { url, headers, secret } = hook;
  const sealed = sealText(key, WEBHOOK_PURPOSE, crawlId, JSON.stringify({ url, headers, secret }));
  return { metadata: hook.metadata, events: hook.events, sealed };
}

/** The webhook of a crawl's row, opened; throws when it was sealed for another crawl or with another key. */
export function openWebhook(key: string, crawlId: string, kept: KeptWebhook): StoredWebhook {
  const open = JSON.parse(unsealText(key, WEBHOOK_PURPOSE, crawlId, kept.sealed)) as Pick<
    StoredWebhook,
    'url' | 'headers' | 'secret'
  >;
  return { ...open, metadata: kept.metadata, events: kept.events };
}

export interface WebhookDelivery {
  id: string;
  crawlId: string;
  event: WebhookEvent;
  body: string;
  attempts: number;
  log: object[] | null;
}

/**
 * Queues `event` for the crawl when it has a webhook that wants it: Firecrawl's body
 * `{ success, type, id, webhookId, data, metadata, error? }`, `type` `crawl.<event>` or
 * `batch_scrape.<event>`, `webhookId` the delivery's id (the same on every attempt). One
 * statement, so it joins the caller's transaction.
 */
/** Firecrawl's `type` of an event of the crawl `c`: `crawl.<event>`, or `batch_scrape.<event>` for a batch. */
const EVENT_TYPE = (event: string) =>
  `CASE WHEN (c.options->>'batch')::boolean THEN 'batch_scrape.' ELSE 'crawl.' END || ${event}`;
/** The crawl `c` has a webhook that wants the event. */
const WANTS = (event: string) =>
  `c.webhook IS NOT NULL
   AND (jsonb_array_length(coalesce(c.webhook->'events', '[]'::jsonb)) = 0 OR c.webhook->'events' ? ${event})`;

export async function queueWebhook(
  client: PoolClient | CrawlDatabase['pool'],
  crawlId: string,
  event: WebhookEvent,
  what: { success: boolean; data?: unknown[]; error?: string },
): Promise<void> {
  await client.query(
    `INSERT INTO crawl_webhook_deliveries (id, crawl_id, event, body)
     SELECT $1::uuid, id, $3, jsonb_strip_nulls(jsonb_build_object(
              'success', $4::boolean,
              'type', ${EVENT_TYPE('$3')},
              'id', id, 'webhookId', $1::uuid, 'data', $5::jsonb,
              'metadata', coalesce(c.webhook->'metadata', '{}'::jsonb),
              'error', $6::text))::text
       FROM crawls c
      WHERE id = $2 AND ${WANTS('$3')}`,
    [randomUUID(), crawlId, event, what.success, JSON.stringify(what.data ?? []), what.error ?? null],
  );
}

/**
 * Queues a `page` event for each page delivered, for the crawls whose webhook wants it: `data` is
 * the page as the crawl's results answer it (its nulls kept: a `json` field the page lacks is null).
 * One statement, in the transaction that delivers the pages.
 */
export async function queuePageWebhooks(client: PoolClient, pages: { crawlId: string; document: string }[]) {
  if (pages.length === 0) return;
  await client.query(
    `INSERT INTO crawl_webhook_deliveries (id, crawl_id, event, body)
     SELECT p.id, c.id, 'page', jsonb_build_object(
              'success', true, 'type', ${EVENT_TYPE("'page'")}, 'id', c.id, 'webhookId', p.id,
              'data', jsonb_build_array(p.document), 'metadata', coalesce(c.webhook->'metadata', '{}'::jsonb))::text
       FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[]) AS p(id, crawl_id, document)
       JOIN crawls c ON c.id = p.crawl_id
      WHERE ${WANTS("'page'")}`,
    [pages.map(() => randomUUID()), pages.map((p) => p.crawlId), pages.map((p) => p.document)],
  );
}

export class WebhookStore {
  constructor(private readonly db: CrawlDatabase) {}

  /** Up to `limit` deliveries due now, leased for `leaseMs` (their next attempt moved past the lease). */
  async claim(limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    const { rows } = await this.db.pool.query(
      `UPDATE crawl_webhook_deliveries d SET next_attempt = now() + ($2 || ' milliseconds')::interval
        WHERE id IN (SELECT id FROM crawl_webhook_deliveries WHERE status = 'pending' AND next_attempt <= now()
                      ORDER BY next_attempt LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id, crawl_id AS "crawlId", event, body, attempts, log`,
      [limit, String(leaseMs)],
    );
    return rows as WebhookDelivery[];
  }

  /** The webhook a delivery goes to, as its crawl keeps it (sealed); undefined once its crawl is gone. */
  target(crawlId: string): Promise<KeptWebhook | undefined> {
    return firstRow<{ webhook: KeptWebhook }>(this.db.pool, 'SELECT webhook FROM crawls WHERE id = $1', [crawlId]).then(
      (r) => r?.webhook ?? undefined,
    );
  }

  /** Writes an attempt's outcome: its count, its log, where the delivery stands and when it is tried next. */
  async attempted(
    id: string,
    outcome: { attempts: number; log: object[]; status: 'delivered' | 'pending' | 'failed'; nextAttempt: Date },
  ): Promise<void> {
    await this.db.pool.query(
      `UPDATE crawl_webhook_deliveries SET attempts = $2, log = $3, status = $4, next_attempt = $5, updated_at = now()
        WHERE id = $1`,
      [id, outcome.attempts, JSON.stringify(outcome.log), outcome.status, outcome.nextAttempt],
    );
  }
}
