// The crawls' webhook sender (docs/crawl.md, "Webhooks"): due deliveries claimed with SKIP
// LOCKED by whichever replica polls first, each posted to its crawl's webhook through the
// egress guard, signed with the crawl's secret under the delivery's id (every attempt the
// same `webhook-id`), retried with backoff; never on a crawl's own path. The receiver's
// headers and the secret are never logged.
import { type Attempt, afterAttempt, type FetchAgent, postWebhook, signatureHeaders } from '@wap/fetch';
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import { openWebhook, type WebhookDelivery, type WebhookStore } from '../store/webhooks.js';

export interface WebhookSenderDeps {
  webhooks: WebhookStore;
  /** The egress-guarded agent pages are fetched with: a webhook's address is checked as a page's. */
  agent: FetchAgent;
  log: Logger;
  /** The key the crawls' webhooks are sealed with (CRAWL_KEY). */
  key: string | undefined;
}

const LEASE_MS = 60_000;
const CLAIM = 16;

async function send(deps: WebhookSenderDeps, delivery: WebhookDelivery): Promise<Attempt> {
  const kept = await deps.webhooks.target(delivery.crawlId);
  if (!kept) return { status: -1, error: 'the crawl is gone' };
  if (!deps.key) return { status: -1, error: 'CRAWL_KEY is not set: the webhook cannot be opened' };
  const target = openWebhook(deps.key, delivery.crawlId, kept);
  return postWebhook(deps.agent, target.url, delivery.body, {
    ...target.headers,
    'content-type': 'application/json',
    'user-agent': 'web-access-crawl/1.0',
    ...signatureHeaders(target.secret, `msg_${delivery.id}`, delivery.body),
  });
}

export async function deliverWebhook(deps: WebhookSenderDeps, delivery: WebhookDelivery): Promise<void> {
  const outcome = await send(deps, delivery);
  const attempts = delivery.attempts + 1;
  const next = afterAttempt(outcome, attempts);
  const log = [...(delivery.log ?? []), next.entry];
  await deps.webhooks.attempted(delivery.id, { attempts, log, status: next.status, nextAttempt: next.nextAttempt });
  if (next.status === 'failed')
    deps.log.warn(
      { deliveryId: delivery.id, crawlId: delivery.crawlId, event: delivery.event, status: outcome.status, attempts },
      'crawl webhook not delivered',
    );
}

export const webhookSender = (deps: WebhookSenderDeps, pollMs: number) =>
  new PeriodicJob({ name: 'crawl webhooks', intervalMs: pollMs, log: deps.log, immediately: true }, async () => {
    for (;;) {
      const claimed = await deps.webhooks.claim(CLAIM, LEASE_MS);
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((d) => deliverWebhook(deps, d)));
    }
  });
