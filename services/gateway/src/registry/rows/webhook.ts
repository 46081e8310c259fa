// A crawl's or a batch's webhook as Firecrawl's clients send it: a URL, or `{ url, headers,
// metadata, events }`. The crawl service checks the address and the headers (docs/crawl.md, "Webhooks").
import { create } from '@bufbuild/protobuf';
import { crawl } from '@wap/proto';
import { z } from 'zod';

const url = z.string().max(2_000).describe('An https URL; each request is signed per Standard Webhooks.');

export const webhookField = z
  .union([
    url,
    z.strictObject({
      url,
      headers: z
        .record(z.string().max(256), z.string().max(4_096))
        .optional()
        .describe('Sent with each delivery (at most 20), e.g. the receiver’s own authorization.'),
      metadata: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('Echoed as `metadata` in every event (at most 4 KiB of JSON).'),
      events: z
        .array(z.enum(['started', 'page', 'completed', 'failed']))
        .max(4)
        .optional()
        .describe(
          'The events wanted (all when absent): `started`, `page` (each page delivered, as `data[0]`), `completed`, `failed`.',
        ),
    }),
  ])
  .nullish()
  .describe(
    'Where the job’s events are posted, in Firecrawl’s body `{ success, type, id, webhookId, data, metadata, error }` (`type` `crawl.page`, `batch_scrape.completed`…), signed with `webhookSecret`, retried with backoff; each delivery keeps its `webhook-id` (and `webhookId`) across attempts.',
  );

export const webhookSecretField = z
  .string()
  .optional()
  .describe(
    '`whsec_…`, with a webhook: verify each delivery with it (Standard Webhooks). A retried start answers the same one.',
  );

/** The webhook as the crawl service takes it. */
export function toWebhook(w: z.infer<typeof webhookField>): crawl.CrawlWebhook | undefined {
  if (w === undefined || w === null) return undefined;
  const hook = typeof w === 'string' ? { url: w } : w;
  return create(crawl.CrawlWebhookSchema, {
    url: hook.url,
    headers: 'headers' in hook ? hook.headers : {},
    ...('metadata' in hook && hook.metadata && { metadata: hook.metadata as Record<string, never> }),
    events: 'events' in hook ? hook.events : [],
  });
}
