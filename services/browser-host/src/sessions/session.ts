// One live CDP session: its browser, its slot lease, its metered hold, and the
// timers that end it. It ends once, whatever ends it (the client closing the
// browser, the idle timeout, the lifetime cap, Chromium crashing, credit
// running out, the host stopping), and then releases its slot and settles.
// A session whose row a lost-session sweep took (its host was silent too
// long) ends as host_lost, unbilled: the sweep finished its bill.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { MeteredHold, SlotLease } from '@wap/billing';
import type { Logger } from '@wap/log';
import type { SessionSettings } from '../domain/session-options.js';
import type { SessionRecording } from '../recording/recording.js';
import type { SessionBrowser } from './session-browser.js';

/** A ticket is good once, for this long after it was issued. */
export const TICKET_TTL_MS = 30_000;
/** Browser time is settled this often while the session runs. */
export const METER_INTERVAL_MS = 30_000;

export type SessionOutcome =
  | 'closed'
  | 'idle_timeout'
  | 'lifetime'
  | 'crashed'
  | 'credits_exhausted'
  | 'host_stopped'
  | 'host_lost';

export interface SessionEnd {
  outcome: SessionOutcome;
  /** Browser seconds billed: from the start to the end, rounded up. */
  seconds: number;
  chargedMc: bigint;
  proxyBytes: number;
  /** False when its bill was not finished here: the row stays live for the lost-session sweep. */
  billed: boolean;
}

interface Ticket {
  secret: Buffer;
  expiresAt: number;
}

export class Session {
  private ticket: Ticket | undefined;
  private clients = 0;
  private attachedOnce = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly lifetimeTimer: NodeJS.Timeout;
  private readonly meterTimer: NodeJS.Timeout;
  readonly startedAt = Date.now();
  private meteredUntil = this.startedAt;
  private ending: Promise<SessionEnd> | undefined;
  /** Its recording, when sessions are recorded: its last chunk goes out when the session ends. */
  recording: SessionRecording | undefined;
  /** Its traffic leaves through a residential exit: proxy_bytes is billed as it runs (docs/profiles.md). */
  billsProxyBytes = false;
  /** Its browser time is billed here (context_seconds); false when the task it serves meters it (an agent run). */
  metersTime = true;
  /**
   * Its clients' Runtime.enable is answered by the host, never reaches Chromium
   * (quiet-runtime.ts): an agent run's session, whose one client is the agent's
   * Playwright, which evaluates in the DOM alone.
   */
  quietRuntime = false;
  private proxyBytesBilled = 0;

  constructor(
    readonly id: string,
    readonly workspaceId: string,
    readonly settings: SessionSettings,
    readonly browser: SessionBrowser,
    private readonly lease: SlotLease,
    private readonly hold: MeteredHold,
    private readonly log: Logger,
    private readonly hooks: {
      ended(session: Session, end: SessionEnd): void;
    },
  ) {
    this.lifetimeTimer = setTimeout(() => void this.end('lifetime'), settings.maxLifetimeSeconds * 1000);
    this.meterTimer = setInterval(() => void this.meter(), METER_INTERVAL_MS);
    for (const t of [this.lifetimeTimer, this.meterTimer]) t.unref();
    browser.browser.on('disconnected', () => void this.end(this.clients > 0 ? 'crashed' : 'closed'));
    // Before its first client, the session lives as long as its ticket, whatever its idleTimeout.
    this.armIdle(TICKET_TTL_MS);
  }

  get ended(): boolean {
    return this.ending !== undefined;
  }

  /** A new single-use ticket; an earlier one not yet used stops working. */
  issueTicket(): { ticket: string; expiresAt: Date } {
    const secret = randomBytes(32);
    this.ticket = { secret, expiresAt: Date.now() + TICKET_TTL_MS };
    // Never attached: it ends when this ticket expires unused.
    if (!this.attachedOnce) this.armIdle(TICKET_TTL_MS);
    return { ticket: secret.toString('base64url'), expiresAt: new Date(this.ticket.expiresAt) };
  }

  /** Spends the ticket if it is this session's, unused and unexpired. */
  redeem(ticket: string): boolean {
    if (!this.holds(ticket)) return false;
    this.ticket = undefined;
    return true;
  }

  /** Whether `ticket` is this session's live ticket, without spending it (the host's json/version). */
  holds(ticket: string): boolean {
    const held = this.ticket;
    if (!held || this.ended || Date.now() > held.expiresAt) return false;
    const given = Buffer.from(ticket, 'base64url');
    return given.length === held.secret.length && timingSafeEqual(given, held.secret);
  }

  /** What Chromium's /json/version says, pointing at the host's endpoint instead of Chromium's own. */
  versionJson(webSocketDebuggerUrl: string) {
    return {
      Browser: this.browser.version.browser,
      'Protocol-Version': this.browser.version.protocol,
      'User-Agent': this.browser.version.userAgent,
      webSocketDebuggerUrl,
    };
  }

  /** A client connected; `detach` when its socket closes. */
  attach(): () => void {
    this.clients++;
    this.attachedOnce = true;
    clearTimeout(this.idleTimer);
    let detached = false;
    return () => {
      if (detached) return;
      detached = true;
      this.clients--;
      if (this.clients === 0) this.armIdle(this.settings.idleTimeoutSeconds * 1000);
    };
  }

  /** Ends the session `ms` from now unless a client attaches first (at once for 0). */
  private armIdle(ms: number): void {
    clearTimeout(this.idleTimer);
    if (ms <= 0) {
      void this.end('closed');
      return;
    }
    this.idleTimer = setTimeout(() => void this.end('idle_timeout'), ms);
    this.idleTimer.unref();
  }

  /** Adds the browser time since the last settle, in whole seconds, and settles it. */
  private async meter(final = false): Promise<void> {
    const now = Date.now();
    const seconds = final ? Math.ceil((now - this.meteredUntil) / 1000) : Math.floor((now - this.meteredUntil) / 1000);
    if (seconds > 0) {
      if (this.metersTime) this.hold.add('context_seconds', BigInt(seconds));
      this.meteredUntil += seconds * 1000;
    }
    if (this.billsProxyBytes) {
      const bytes = this.browser.egress.ownerTally().bytes;
      if (bytes > this.proxyBytesBilled) {
        this.hold.add('proxy_bytes', BigInt(bytes - this.proxyBytesBilled));
        this.proxyBytesBilled = bytes;
      }
    }
    if (!final)
      await this.hold.settle().catch((err) => this.log.warn({ err, sessionId: this.id }, 'session settle failed'));
  }

  /** Ends the session once; every later call answers the same end. */
  end(outcome: SessionOutcome): Promise<SessionEnd> {
    this.ending ??= this.finish(outcome);
    return this.ending;
  }

  private async finish(outcome: SessionOutcome): Promise<SessionEnd> {
    clearTimeout(this.idleTimer);
    clearTimeout(this.lifetimeTimer);
    clearInterval(this.meterTimer);
    this.ticket = undefined;
    // What the pages showed last reaches the recording before the browser goes.
    if (this.recording) await this.browser.flushRecording();
    // A profile keeps the state of a session that ended cleanly; a crash leaves its last good one.
    await this.browser
      .close({ keepState: outcome !== 'crashed' && outcome !== 'host_lost' })
      .catch((err) => this.log.warn({ err, sessionId: this.id }, 'session browser close failed'));
    await this.recording?.close();
    // Every connection of the egress has closed with the browser: its count is whole.
    const proxyBytes = this.browser.egress.ownerTally().bytes;
    // proxy_bytes bills residential exits only (billsProxyBytes); direct and datacenter traffic is counted, not billed.
    const chargedMc = outcome === 'host_lost' ? undefined : await this.bill();
    await this.lease
      .release()
      .catch((err) => this.log.warn({ err, sessionId: this.id }, 'slot release failed; it lapses'));
    const end: SessionEnd = {
      outcome,
      seconds: this.metersTime ? Math.round((this.meteredUntil - this.startedAt) / 1000) : 0,
      chargedMc: chargedMc ?? 0n,
      proxyBytes,
      billed: chargedMc !== undefined,
    };
    this.log.info(
      { sessionId: this.id, workspaceId: this.workspaceId, ...end, chargedMc: String(chargedMc) },
      'session ended',
    );
    this.hooks.ended(this, end);
    return end;
  }

  /** Settles the last seconds and releases the hold; undefined when that failed (the sweep finishes it from the journal). */
  private async bill(): Promise<bigint | undefined> {
    await this.meter(true);
    return this.hold.close().catch((err) => {
      this.log.error({ err, sessionId: this.id }, 'session bill not finished here; the lost-session sweep will');
      return undefined;
    });
  }
}
