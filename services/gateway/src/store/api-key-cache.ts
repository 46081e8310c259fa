// API keys cached in each gateway, dropped the moment their rows change
// (docs/decisions/0007-api-key-cache.md). Postgres announces every change to
// a key or a workspace on CHANGED_CHANNEL when it commits (a trigger, see the
// identity_notify migration); each gateway listens on a connection of its own,
// drops what the change touched and acknowledges on ACK_CHANNEL, which is how
// a revocation knows every gateway has let go before it returns.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@wap/log';
import pg from 'pg';

export const CHANGED_CHANNEL = 'identity_changed';
export const ACK_CHANNEL = 'identity_ack';
/** The listening connections' application_name: how a change counts the gateways it waits for. */
export const LISTENER_NAME = 'wap-gateway-identity';

/** Named so while connecting: a change counts a gateway only once it listens. */
const CONNECTING_NAME = 'wap-gateway-identity-connecting';

export const keyChange = (keyId: string) => `key:${keyId}`;
export const workspaceChange = (workspaceId: string) => `workspace:${workspaceId}`;
/**
 * The trigger's payload is `<change>` or, when the writing transaction set
 * `wap.change_id`, `<change>|<change id>`: the id lets a waiter tell its own
 * acknowledgements from those of a concurrent change to the same row.
 */
const parsePayload = (payload: string) => {
  const bar = payload.indexOf('|');
  const change = bar < 0 ? payload : payload.slice(0, bar);
  const colon = change.indexOf(':');
  return { kind: change.slice(0, colon), id: change.slice(colon + 1) };
};

export interface CacheSettings {
  /** At most this many keys are held; the oldest goes first. */
  maxEntries: number;
  /** A cached key is read again after this long even if no change was announced. */
  ttlMs: number;
  /** First wait before listening again after the connection is lost; doubles up to 5 s. */
  retryMs: number;
  /** How often the listening connection is checked: one that died silently hears nothing. */
  checkMs: number;
}

const DEFAULTS: CacheSettings = { maxEntries: 10_000, ttlMs: 60_000, retryMs: 200, checkMs: 5_000 };

interface Entry<R> {
  row: R;
  expiresAt: number;
}

/**
 * Rows by key id, valid only while this gateway is listening: before the
 * listening connection is up, and from the moment it is lost until it is back,
 * nothing is served from memory and every lookup reads the database.
 */
export class ApiKeyCache<R extends { workspaceId: string }> {
  private readonly entries = new Map<string, Entry<R>>();
  private readonly settings: CacheSettings;
  /** Moves on every announced change and every (re)connection; a load that saw it move is not kept. */
  private generation = 0;
  private client: pg.Client | undefined;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly url: string,
    private readonly log: Logger,
    settings: Partial<CacheSettings> = {},
  ) {
    this.settings = { ...DEFAULTS, ...settings };
  }

  /** Starts listening (in the background; lookups read the database meanwhile). */
  start(): void {
    this.stopped = false;
    void this.connect(this.settings.retryMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.drop();
    // A half-open socket may never finish closing: do not let it hold the shutdown.
    if (client) await Promise.race([client.end().catch(() => undefined), sleep(1_000, undefined, { ref: false })]);
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** Resolves once the cache is listening (the gateway waits for it at start, briefly; tests). */
  whenListening(): Promise<void> {
    if (this.listening) return Promise.resolve();
    return new Promise((resolve) => this.listeners.add(resolve));
  }

  /** The cached row, else `load`'s, kept only if no change was announced while it loaded. */
  async get(keyId: string, load: (keyId: string) => Promise<R | undefined>): Promise<R | undefined> {
    if (this.listening) {
      const hit = this.entries.get(keyId);
      if (hit && Date.now() < hit.expiresAt) return hit.row;
      if (hit) this.entries.delete(keyId);
    }
    const generation = this.generation;
    const row = await load(keyId);
    if (row && this.listening && generation === this.generation) {
      if (this.entries.size >= this.settings.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(keyId, { row, expiresAt: Date.now() + this.settings.ttlMs });
    }
    return row;
  }

  get size(): number {
    return this.entries.size;
  }

  private async connect(wait: number): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: CONNECTING_NAME,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let lost = false;
    let check: NodeJS.Timeout | undefined;
    const onLost = (err?: unknown) => {
      if (lost) return;
      lost = true;
      clearInterval(check);
      client.end().catch(() => undefined);
      if (this.client === client) this.drop();
      if (this.stopped) return;
      this.log.warn({ err, retryInMs: wait }, 'api key cache: not listening; every request reads the database');
      this.retry = setTimeout(() => void this.connect(Math.min(wait * 2, 5_000)), wait);
      this.retry.unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === CHANGED_CHANNEL && message.payload) this.changed(client, message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGED_CHANNEL}`);
      // Only now is this gateway one a change must wait for.
      await client.query(`SET application_name = '${LISTENER_NAME}'`);
    } catch (err) {
      onLost(err);
      return;
    }
    if (this.stopped || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    // A connection that died without a word (a dropped route, a failover) hears
    // nothing: a query that does not answer in time ends the listening.
    check = setInterval(() => {
      const timeout = sleep(this.settings.checkMs, undefined, { ref: false }).then(() => {
        throw new Error('the listening connection did not answer');
      });
      Promise.race([client.query('SELECT 1'), timeout]).catch(onLost);
    }, this.settings.checkMs);
    check.unref();
    // Whatever was cached before this connection listened may have changed unseen.
    this.entries.clear();
    this.generation++;
    this.client = client;
    this.listening = true;
    for (const resolve of this.listeners) resolve();
    this.listeners.clear();
  }

  /** Not listening: forget everything, and read the database until listening again. */
  private drop(): void {
    this.listening = false;
    this.client = undefined;
    this.entries.clear();
    this.generation++;
  }

  private changed(client: pg.Client, payload: string): void {
    this.generation++;
    const { kind, id } = parsePayload(payload);
    if (kind === 'key') this.entries.delete(id);
    else if (kind === 'workspace') {
      for (const [keyId, entry] of this.entries) if (entry.row.workspaceId === id) this.entries.delete(keyId);
    } else this.entries.clear();
    // Dropped before the acknowledgement leaves: whoever waits for it knows the next request reads the database.
    client.query('SELECT pg_notify($1, $2)', [ACK_CHANNEL, payload]).catch(() => undefined);
  }
}

/**
 * Runs `change`, a write that announces `payload` when it commits, and waits
 * until every listening gateway has acknowledged it or `timeoutMs` passed.
 * `change` gets the id to set as `wap.change_id` in its transaction (so the
 * acknowledgements of this change are told from those of another), and
 * answers whether it changed anything (nothing is announced if not).
 */
export async function changeAndAwaitGateways(
  pool: pg.Pool,
  payload: string,
  change: (changeId: string) => Promise<boolean>,
  timeoutMs = 2_000,
): Promise<{ changed: boolean; gateways: number; acknowledged: number }> {
  const changeId = randomUUID();
  const expected = `${payload}|${changeId}`;
  const client = await pool.connect();
  let acknowledged = 0;
  let wake = () => {};
  let broken: Error | undefined;
  const onAck = (message: pg.Notification) => {
    if (message.channel === ACK_CHANNEL && message.payload === expected) {
      acknowledged++;
      wake();
    }
  };
  // A checked-out client has no error listener of the pool's: without this one a dropped connection would crash.
  const onError = (err: Error) => {
    broken = err;
    wake();
  };
  client.on('notification', onAck);
  client.on('error', onError);
  try {
    await client.query(`LISTEN ${ACK_CHANNEL}`);
    // Counted before the change: a gateway that starts listening later holds nothing stale.
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_NAME],
    );
    const gateways = rows[0]?.n ?? 0;
    const changed = await change(changeId);
    if (changed && acknowledged < gateways && !broken) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        wake = () => {
          if (acknowledged >= gateways || broken) {
            clearTimeout(timer);
            resolve();
          }
        };
        wake();
      });
    }
    return { changed, gateways, acknowledged: Math.min(acknowledged, gateways) };
  } finally {
    client.off('notification', onAck);
    const unlisten = broken
      ? broken
      : await client.query(`UNLISTEN ${ACK_CHANNEL}`).then(
          () => undefined,
          (err: Error) => err,
        );
    client.off('error', onError);
    // A client that may still listen, or is broken, is not given back to the pool.
    client.release(unlisten);
  }
}
