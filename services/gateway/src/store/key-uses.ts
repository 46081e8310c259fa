// When each API key was last used, for the console's key list. Written off the
// request path, at most once a minute per key per gateway process: the check
// on the request is a Map lookup, and the write (one indexed UPDATE, which
// does not touch the columns gateways cache, so no key is dropped from a
// cache) goes on without the request waiting for it.
import type { Logger } from '@wap/log';
import type pg from 'pg';

export const KEY_USE_EVERY_MS = 60_000;

export class KeyUses {
  /** keyId → when this process last wrote it. */
  private readonly written = new Map<string, number>();

  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    private readonly log: Pick<Logger, 'warn'>,
    private readonly everyMs = KEY_USE_EVERY_MS,
    private readonly now = Date.now,
  ) {}

  /** The key authenticated a request now. */
  used(keyId: string): void {
    const at = this.now();
    const last = this.written.get(keyId);
    if (last !== undefined && at - last < this.everyMs) return;
    this.written.set(keyId, at);
    // A map of every key ever seen would only grow: the entries older than the interval say nothing.
    if (this.written.size > 10_000) this.forgetOld(at);
    this.pool
      .query({
        name: 'api_key_used',
        text: 'UPDATE api_keys SET last_used_at = now() WHERE key_id = $1',
        values: [keyId],
      })
      .catch((err: unknown) => this.log.warn({ err, keyId }, 'api key: last use not written'));
  }

  private forgetOld(at: number): void {
    for (const [keyId, when] of this.written) if (at - when >= this.everyMs) this.written.delete(keyId);
  }
}
