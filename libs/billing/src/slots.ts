// A workspace's concurrent-browser slots (the plan's `browsers`: free 2,
// builder 5, pro 25, scale 100), leased from the ledger (AcquireSlot /
// RenewSlot / ReleaseSlot) for as long as a browser runs: a render, or a
// whole CDP session.
import { setTimeout as sleep } from 'node:timers/promises';
import { isApiError } from '@wap/errors';
import type { LedgerClient } from './ledger.js';

/**
 * A lease lapses this long after its last renewal: a holder that crashed
 * frees its slot within it. Renewed every third of it while held.
 */
export const SLOT_TTL_SECONDS = 20;

export const isBrowserLimit = (err: unknown): boolean =>
  isApiError(err) && err.code === 'concurrency_limit' && (err.details as { kind?: string })?.kind === 'browsers';

export interface SlotRequest {
  workspaceId: string;
  /** Who holds it (a render, a session id); acquiring twice for one holder is one lease. */
  holder: string;
  /** Ask again until a slot frees (a crawl's render), or be refused at once (a scrape, a connect). */
  wait: boolean;
  signal?: AbortSignal;
  /** Told when a renewal fails; the lease then lapses within SLOT_TTL_SECONDS unless a later one succeeds. */
  onRenewFailed?(err: unknown): void;
}

/** One held slot, renewed in the background until released. */
export class SlotLease {
  private released = false;

  private constructor(
    private readonly ledger: LedgerClient,
    readonly leaseId: string,
    private readonly renewal: NodeJS.Timeout,
  ) {}

  /**
   * Holds a slot. Over the plan's limit it throws `concurrency_limit` (kind
   * `browsers`) at once, or with `wait` asks again, spread out, until a slot
   * frees or `signal` aborts.
   */
  static async acquire(ledger: LedgerClient, request: SlotRequest): Promise<SlotLease> {
    let leaseId: string | undefined;
    for (let pause = 100; leaseId === undefined; pause = Math.min(pause * 2, 1_000)) {
      request.signal?.throwIfAborted();
      try {
        ({ leaseId } = await ledger.acquireSlot(
          { workspaceId: request.workspaceId, holder: request.holder, ttlSeconds: SLOT_TTL_SECONDS },
          { signal: request.signal },
        ));
      } catch (err) {
        if (!request.wait || !isBrowserLimit(err)) throw err;
        // Spread out so waiting holders of one workspace do not all ask at once.
        await sleep(pause + Math.random() * pause, undefined, { signal: request.signal });
      }
    }
    const lease = leaseId;
    const renewal = setInterval(
      () => {
        ledger
          .renewSlot({ leaseId: lease, ttlSeconds: SLOT_TTL_SECONDS })
          .catch((err: unknown) => request.onRenewFailed?.(err));
      },
      (SLOT_TTL_SECONDS * 1000) / 3,
    );
    renewal.unref();
    return new SlotLease(ledger, lease, renewal);
  }

  /**
   * Gives the slot back, once; not tied to any abort signal. A release that
   * fails leaves the lease to lapse within SLOT_TTL_SECONDS.
   */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.renewal);
    await this.ledger.releaseSlot({ leaseId: this.leaseId });
  }
}
