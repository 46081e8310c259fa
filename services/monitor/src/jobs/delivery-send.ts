// One notification sent (docs/monitors.md, "Delivery"): in its target's wire
// format through the egress guard, its attempt logged on the delivery and its
// next one scheduled (backoff on 5xx, 429 honouring Retry-After, and network
// failures). Loaded with the first delivery due, not at start: it brings the
// HTTP client (undici) and the webhook signatures (jobs/deliveries.ts).
import { type Attempt, afterAttempt, type FetchAgent, postWebhook } from '@wap/fetch';
import type { Logger } from '@wap/log';
import { unsealText } from '@wap/sealed';
import { storedDiff } from '../domain/diff.js';
import type { SnapshotLinks } from '../domain/links.js';
import { requestFor } from '../domain/payloads.js';
import { TARGET_PURPOSE, type Target } from '../domain/targets.js';
import type { Delivery } from '../generated/prisma/client.js';
import type { DeliveryStore } from '../store/deliveries.js';
import type { MonitorStore } from '../store/monitors.js';

export interface DeliveryDeps {
  deliveries: DeliveryStore;
  monitors: MonitorStore;
  /** The guarded HTTP client, made with the first delivery. */
  agent: () => Promise<FetchAgent>;
  key: string;
  /** Signs the links to the snapshots a notification compares. */
  links: SnapshotLinks;
  log: Logger;
}

/** One attempt: the answer's status (0 without one) and its Retry-After. */
async function send(deps: DeliveryDeps, delivery: Delivery): Promise<Attempt> {
  const subject = await deps.deliveries.subject(delivery);
  if (!subject) return { status: -1, error: 'the monitor is gone' };
  const { monitor, snapshot } = subject;
  const target = {
    kind: monitor.targetKind,
    url: unsealText(deps.key, TARGET_PURPOSE, monitor.id, monitor.targetSealed),
  } as Target;
  const before = await deps.monitors.snapshotBefore(monitor.id, snapshot.takenAt);
  const secret = monitor.secretSealed
    ? unsealText(deps.key, TARGET_PURPOSE, `${monitor.id}:secret`, monitor.secretSealed)
    : undefined;
  const built = requestFor(
    target,
    {
      monitorId: monitor.id,
      url: monitor.url,
      checkedAt: snapshot.takenAt,
      diff: storedDiff(snapshot.diff),
      snapshots: { before: before ? deps.links.url(before) : null, after: deps.links.url(snapshot.id) },
    },
    secret,
    // Every attempt of one delivery is one message: a receiver that got an attempt whose answer was lost drops the next.
    `msg_${delivery.id}`,
  );
  return postWebhook(await deps.agent(), target.url, built.body, {
    ...built.headers,
    'user-agent': 'web-access-monitor/1.0',
  });
}

export async function deliverOnce(deps: DeliveryDeps, delivery: Delivery): Promise<void> {
  const outcome = await send(deps, delivery);
  const attempts = delivery.attempts + 1;
  const next = afterAttempt(outcome, attempts);
  const log: object[] = [...((delivery.log as object[] | null) ?? []), next.entry];
  await deps.deliveries.attempted(delivery.id, { attempts, log, status: next.status, nextAttempt: next.nextAttempt });
  if (next.status === 'failed')
    deps.log.warn({ deliveryId: delivery.id, status: outcome.status, attempts }, 'notification not delivered');
}
