// API keys cached in each gateway, dropped the moment their rows change
// (docs/decisions/0007-api-key-cache.md). Postgres announces every change to
// a key or a workspace on CHANGED_CHANNEL when it commits (a trigger, see the
// identity_notify migration); each gateway listens on a connection of its own,
// drops what the change touched and acknowledges on ACK_CHANNEL, which is how
// a revocation knows every gateway has let go before it returns.
import type { Logger } from '@wap/log';
import pg from 'pg';

export const CHANGED_CHANNEL = 'identity_changed';
export const ACK_CHANNEL = 'identity_ack';
/** The listening connections' application_name: how a change counts the gateways it waits for. */
export const LISTENER_NAME = 'wap-gateway-identity';

export const keyChange = (keyId: string) => `key:${keyId}`;
export const workspaceChange = (workspaceId: string) => `workspace:${workspaceId}`;

export interface CacheSettings {
  /** At most this many keys are held; the oldest goes first. */
  maxEntries: number;
  /** A cached key is read again after this long even if no change was announced. */
  ttlMs: number;
  /** First wait before listening again after the connection is lost; doubles up to 5 s. */
  retryMs: number;
}

const DEFAULTS: CacheSettings = { maxEntries: 10_000, ttlMs: 600_000, retryMs: 200 };

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
    await client?.end().catch(() => undefined);
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** Resolves once the cache is listening (tests, and the gateway's readiness). */
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
    const client = new pg.Client({ connectionString: this.url, application_name: LISTENER_NAME });
    let lost = false;
    const onLost = (err?: unknown) => {
      if (lost) return;
      lost = true;
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
    } catch (err) {
      onLost(err);
      return;
    }
    if (this.stopped || lost) {
      await client.end().catch(() => undefined);
      return;
    }
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
    const [kind, id] = [payload.slice(0, payload.indexOf(':')), payload.slice(payload.indexOf(':') + 1)];
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
 * `change` answers whether it changed anything (nothing is announced if not).
 */
export async function changeAndAwaitGateways(
  pool: pg.Pool,
  payload: string,
  change: () => Promise<boolean>,
  timeoutMs = 2_000,
): Promise<{ changed: boolean; gateways: number; acknowledged: number }> {
  const client = await pool.connect();
  let acknowledged = 0;
  let wake = () => {};
  const onAck = (message: pg.Notification) => {
    if (message.channel === ACK_CHANNEL && message.payload === payload) {
      acknowledged++;
      wake();
    }
  };
  client.on('notification', onAck);
  try {
    await client.query(`LISTEN ${ACK_CHANNEL}`);
    // Counted before the change: a gateway that starts listening later holds nothing stale.
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_NAME],
    );
    const gateways = rows[0]?.n ?? 0;
    const changed = await change();
    if (changed && acknowledged < gateways) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        wake = () => {
          if (acknowledged >= gateways) {
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
    await client.query(`UNLISTEN ${ACK_CHANNEL}`).catch(() => undefined);
    client.release();
  }
}
