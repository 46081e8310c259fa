// A render holds one of its workspace's concurrent-browser slots (the plan's
// `browsers`: free 2, builder 5, pro 25, scale 100), leased from the ledger
// (AcquireSlot / RenewSlot / ReleaseSlot) for as long as it runs.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LedgerClient } from '@wap/billing';
import { isApiError } from '@wap/errors';
import type { Logger } from '@wap/log';

/**
 * A lease lapses this long after its last renewal: a holder that crashed
 * frees its slot within it. Renewed every third of it while the render runs.
 */
export const SLOT_TTL_SECONDS = 20;

/** Who asks for a slot, and whether it waits for one (a crawl) or is refused at once (a scrape). */
export interface SlotRequest {
  workspaceId: string;
  wait: boolean;
}

const isBrowserLimit = (err: unknown) =>
  isApiError(err) && err.code === 'concurrency_limit' && (err.details as { kind?: string })?.kind === 'browsers';

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
  const holder = `render:${randomUUID()}`;
  let leaseId: string | undefined;
  for (let pause = 100; leaseId === undefined; pause = Math.min(pause * 2, 1_000)) {
    signal.throwIfAborted();
    try {
      ({ leaseId } = await ledger.acquireSlot(
        { workspaceId: request.workspaceId, holder, ttlSeconds: SLOT_TTL_SECONDS },
        { signal },
      ));
    } catch (err) {
      if (!request.wait || !isBrowserLimit(err)) throw err;
      // Spread out so waiting renders of one workspace do not all ask at once.
      await sleep(pause + Math.random() * pause, undefined, { signal });
    }
  }
  const lease = leaseId;
  const renew = setInterval(
    () => {
      ledger
        .renewSlot({ leaseId: lease, ttlSeconds: SLOT_TTL_SECONDS })
        .catch((err: unknown) => log.warn({ err, leaseId: lease }, 'browser slot renewal failed'));
    },
    (SLOT_TTL_SECONDS * 1000) / 3,
  );
  renew.unref();
  try {
    return await work();
  } finally {
    clearInterval(renew);
    // Not tied to `signal`: an aborted render still gives its slot back. A release
    // that fails leaves the lease to lapse within SLOT_TTL_SECONDS.
    await ledger
      .releaseSlot({ leaseId: lease })
      .catch((err: unknown) => log.warn({ err, leaseId: lease }, 'browser slot release failed; it lapses'));
  }
}
