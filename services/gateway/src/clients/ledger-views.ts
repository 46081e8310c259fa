// The ledger's answers that move with a workspace's credits, kept per
// workspace: what GET /v1/credits answers, and GET /v1/usage over its default
// window (docs/decisions/0008-credits-cache.md). The ledger announces on NATS whose
// credits changed once each write commits; a gateway drops those views, and
// drops a workspace's view itself as soon as one of its requests that may move
// credits (billed, or any write) ends here. A view also expires on its own: after `ttlMs`, and when something in
// it lapses (a grant, the allowance period).
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';

type NatsConnection = NatsLink['nc'];
type Subscription = ReturnType<NatsConnection['subscribe']>;

export interface LedgerViewSettings {
  /** The longest a view is served without the ledger being asked again. */
  ttlMs: number;
  maxEntries: number;
  /** Milliseconds since the epoch; tests move their own. */
  now: () => number;
}

const DEFAULTS: LedgerViewSettings = { ttlMs: 5_000, maxEntries: 10_000, now: Date.now };

interface Entry {
  /** Moves on every change heard for the workspace; a load that saw it move is not kept. */
  generation: number;
  /** Each kind of view (`credits`, `usage`) the workspace has kept, until when. */
  views: Map<string, { view: unknown; expiresAt: number }>;
  /** Nothing is kept before then: a request that failed may still be moving credits. */
  uncachedUntil: number;
}

export class LedgerViews {
  private readonly entries = new Map<string, Entry>();
  private readonly settings: LedgerViewSettings;
  private subscription: Subscription | undefined;
  private listening = false;
  private watching = true;
  /** Moves on every disconnect: a flush that spanned one proves nothing. */
  private disconnects = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    private readonly log: Logger,
    settings: Partial<LedgerViewSettings> = {},
  ) {
    this.settings = { ...DEFAULTS, ...settings };
  }

  /** Subscribes; views are cached only while the subscription can hear every change. */
  async start(): Promise<void> {
    this.subscription = this.nc.subscribe(this.subject, {
      callback: (err, message) => {
        if (err) {
          // The subscription is over (a permission, say): nothing can be trusted any more.
          this.log.warn({ err }, 'ledger views: subscription failed; every read asks the ledger');
          this.listening = false;
          this.forgetAll();
          return;
        }
        try {
          const ids = message.json<unknown>();
          if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') this.changed(id);
        } catch {
          this.log.warn('ledger views: an announcement that is not a list of workspace ids; all views dropped');
          this.forgetAll();
        }
      },
    });
    void this.watch();
    await this.listenOnceRegistered();
  }

  async stop(): Promise<void> {
    this.watching = false;
    this.listening = false;
    this.entries.clear();
    this.subscription?.unsubscribe();
  }

  get isListening(): boolean {
    return this.listening;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The workspace's view of `kind`: cached, else `load`'s, kept (until
   * `validUntil` of it at the latest) only if no change was heard while it
   * loaded. A kind always loads views of one type.
   */
  async get<V>(
    workspaceId: string,
    kind: string,
    load: () => Promise<V>,
    validUntil: (view: V) => number = () => Infinity,
  ): Promise<V> {
    if (!this.listening) return load();
    const now = this.settings.now();
    let entry = this.entries.get(workspaceId);
    const cached = entry?.views.get(kind);
    if (cached && now < cached.expiresAt) return cached.view as V;
    if (!entry) entry = this.entry(workspaceId);
    entry.views.delete(kind);
    const generation = entry.generation;
    const view = await load();
    const kept = this.entries.get(workspaceId) === entry && entry.generation === generation;
    if (this.listening && kept && this.settings.now() >= entry.uncachedUntil) {
      const expiresAt = Math.min(this.settings.now() + this.settings.ttlMs, validUntil(view));
      entry.views.set(kind, { view, expiresAt });
    }
    return view;
  }

  /**
   * The workspace's credits changed (announced, or a request that may bill
   * ended here). With `holdOffMs`, nothing of it is cached for that long: a
   * request that failed here may still be billed or released behind us.
   */
  changed(workspaceId: string, holdOffMs = 0): void {
    const entry = this.entries.get(workspaceId) ?? (holdOffMs > 0 ? this.entry(workspaceId) : undefined);
    if (!entry) return;
    entry.generation++;
    entry.views.clear();
    if (holdOffMs > 0) entry.uncachedUntil = Math.max(entry.uncachedUntil, this.settings.now() + holdOffMs);
  }

  private entry(workspaceId: string): Entry {
    if (this.entries.size >= this.settings.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    const entry: Entry = { generation: 0, views: new Map(), uncachedUntil: 0 };
    this.entries.set(workspaceId, entry);
    return entry;
  }

  /** Listening from when the server has the subscription, unless a disconnect came in between. */
  private async listenOnceRegistered(): Promise<void> {
    const disconnects = this.disconnects;
    try {
      await this.nc.flush();
    } catch (err) {
      this.log.warn({ err }, 'ledger views: not listening yet; every read asks the ledger');
      return;
    }
    const subscribed = this.subscription !== undefined && !this.subscription.isClosed();
    if (this.watching && subscribed && disconnects === this.disconnects && !this.nc.isClosed()) {
      this.forgetAll();
      this.listening = true;
    }
  }

  private forgetAll(): void {
    for (const entry of this.entries.values()) {
      entry.generation++;
      entry.views.clear();
    }
  }

  /** Changes announced while disconnected were missed: nothing is cached until reconnected, and then nothing old. */
  private async watch(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (!this.watching) break;
      if (status.type === 'disconnect' || status.type === 'staleConnection' || status.type === 'close') {
        if (this.listening)
          this.log.warn({ nats: status.type }, 'ledger views: not listening; every read asks the ledger');
        this.disconnects++;
        this.listening = false;
        this.forgetAll();
      } else if (status.type === 'reconnect') {
        // The subscription is sent again on reconnect: listen once the server has it.
        void this.listenOnceRegistered();
      }
    }
  }
}
