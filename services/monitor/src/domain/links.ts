// Links to a change's snapshots (docs/monitors.md, "Delivery"): a
// notification carries one to the page's text before and after, readable
// without an API key (a chat message's reader has none) until the link
// expires. The signature covers the snapshot and the expiry under a key
// derived from MONITOR_KEY, so a changed, forged or expired link opens
// nothing. Pure but for the clock.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How long a snapshot link opens its snapshot: a month, like a chat message's useful life. */
export const LINK_TTL_SECONDS = 30 * 24 * 3600;

export class SnapshotLinks {
  private readonly key: Buffer;

  constructor(
    monitorKey: string,
    private readonly publicUrl: string,
    readonly ttlSeconds = LINK_TTL_SECONDS,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', monitorKey, '', 'wap monitor snapshot link v1', 32));
  }

  private signature(snapshotId: string, expires: number): Buffer {
    return createHmac('sha256', this.key).update(`${snapshotId}|${expires}`).digest();
  }

  /** The gateway's page for `snapshotId`, good for ttlSeconds from `now`. */
  url(snapshotId: string, now = Date.now()): string {
    const exp = Math.floor(now / 1000) + this.ttlSeconds;
    const sig = this.signature(snapshotId, exp).toString('base64url');
    return `${this.publicUrl.replace(/\/$/, '')}/snapshots/${snapshotId}?exp=${exp}&sig=${sig}`;
  }

  /** Whether a link's expiry and signature open `snapshotId` now. */
  opens(snapshotId: string, expires: number, signature: string, now = Date.now()): boolean {
    if (!Number.isSafeInteger(expires) || expires * 1000 < now) return false;
    const given = Buffer.from(signature, 'base64url');
    const expected = this.signature(snapshotId, expires);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
