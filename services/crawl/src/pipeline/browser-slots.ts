// A render holds one of its workspace's concurrent-browser slots for as long as it runs.
import { randomUUID } from 'node:crypto';
import { type LedgerClient, SlotLease } from '@wap/billing';
import type { Logger } from '@wap/log';

/** Who asks for a slot, and whether it waits for one (a crawl) or is refused at once (a scrape). */
export interface SlotRequest {
  workspaceId: string;
  wait: boolean;
}

/**
 * Runs `work` holding one browser slot of the workspace, released on every
 * way out (success, failure, abort, timeout). Over the plan's limit it
 * throws `concurrency_limit` (kind `browsers`) at once, or with `wait` asks
 * again until a slot frees or `signal` aborts.
 */
export async function withBrowserSlot<T>(
  ledger: LedgerClient,
  request: SlotRequest,
  signal: AbortSignal,
  log: Pick<Logger, 'warn'>,
  work: () => Promise<T>,
): Promise<T> {
  const lease = await SlotLease.acquire(ledger, {
    ...request,
    holder: `render:${randomUUID()}`,
    signal,
    onRenewFailed: (err) => log.warn({ err }, 'browser slot renewal failed'),
  });
  try {
    return await work();
  } finally {
    await lease
      .release()
      .catch((err: unknown) => log.warn({ err, leaseId: lease.leaseId }, 'browser slot release failed; it lapses'));
  }
}
