// The host's CDP sessions: a warm pool of session browsers so a connect does
// not wait for a launch (browsers of the default face: a session asking for
// another viewport, locale, timezone or stealth gets one launched for it),
// the live sessions, and the tickets that admit a client to one of them.
import { randomUUID } from 'node:crypto';
import { type LedgerClient, MeteredHold, SlotLease } from '@wap/billing';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { AllowList } from '@wap/netguard';
import type { browser } from '@wap/proto';
import { atPlace, type BrowserFace, browserFace } from '../domain/browser-face.js';
import { type Place, placeFace } from '../domain/exit-place.js';
import { type SessionSettings, sessionSettings } from '../domain/session-options.js';
import { recoverLost } from '../jobs/lost-sessions.js';
import type { Attached, Profiles } from '../profiles/profiles.js';
import type { PoolRecorder } from '../recording/pool-recorder.js';
import { type ChunkSink, SessionRecording } from '../recording/recording.js';
import type { SessionStore } from '../store/sessions.js';
import { NetworkWalls } from './network-wall.js';
import { endOrphans } from './orphans.js';
import type { OsUsers } from './os-users.js';
import { RenderSession } from './render-session.js';
import { Session } from './session.js';
import { chromiumVersion, launchSessionBrowser, type SessionBrowser } from './session-browser.js';

export interface SessionManagerSettings {
  executablePath: string;
  allow: AllowList;
  /** The OS users session browsers run as, one each, when the host can give them (os-users.ts). */
  users?: OsUsers;
  /** Whether session browsers get networks of their own where the host can build them (network-wall.ts). */
  walls?: boolean;
  /** Live sessions this host takes; past it a connect answers no_capacity. */
  capacity: number;
  /** Session browsers kept launched and unused. */
  warm: number;
  ledger: LedgerClient | undefined;
  log: Logger;
  /** The session rows; without it sessions are kept in memory only (tests of the pool). */
  store?: SessionStore;
  /** Where recordings go (docs/sessions.md); without it sessions are not recorded. */
  recordings?: ChunkSink;
  /** A recorded page's screencast takes a frame this often at most; 0: none. */
  screencastIntervalMs?: number;
  /** Every recorded page runs its screencast, not only while needed (recording/screencasts.ts). */
  screencastAlways?: boolean;
  /** Profiles sessions may attach (docs/profiles.md); without it a profile asked for is capability_unavailable. */
  profiles?: Profiles;
  /** Where the host's own traffic comes out (EGRESS_PLACE): the time zone and locale of sessions without an exit. */
  egressPlace?: Place;
}

/** Credits held ahead of use: five minutes of browser time. */
const AHEAD_MC = 5_000n;

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  /** Renders being recorded (render-session.ts): their rows, once written, are this host's to keep alive. */
  private readonly renders = new Map<string, RenderSession>();
  private readonly warm: Promise<SessionBrowser>[] = [];
  private stopped = false;
  private host = '';
  /** The installed Chromium's version, for the user agent of stealth sessions; read at start. */
  private chromium = '';
  private walls: NetworkWalls | undefined;

  constructor(private readonly settings: SessionManagerSettings) {}

  private face(settings: SessionSettings): BrowserFace {
    return browserFace(settings, this.chromium);
  }

  /** A session's settings where its traffic comes out (its profile's exit, or the host's own), unless it asked. */
  private placed(
    settings: SessionSettings,
    options: browser.SessionOptions | undefined,
    exit?: Place,
  ): SessionSettings {
    return atPlace(settings, options, placeFace(exit ?? this.settings.egressPlace ?? {}));
  }

  /** The face of a session that asks for nothing: what warm browsers wear. */
  private get defaultFace(): BrowserFace {
    return this.face(this.placed(sessionSettings(undefined), undefined));
  }

  private launch(face: BrowserFace, profile?: Attached): Promise<SessionBrowser> {
    return launchSessionBrowser(this.settings.executablePath, this.settings.allow, face, {
      record: !!this.settings.recordings,
      ...(profile && { profile }),
      ...(this.settings.users && { users: this.settings.users }),
      ...(this.walls && { walls: this.walls }),
    });
  }

  /**
   * Ends what a killed host on this machine left behind (its browsers, and the
   * bills of its sessions: `host` names this host, stable across restarts),
   * then fills the warm pool.
   */
  async start(host: string): Promise<void> {
    this.host = host;
    this.chromium = chromiumVersion(this.settings.executablePath);
    if (this.settings.walls) this.walls = await NetworkWalls.start(this.settings.log);
    const ended = await endOrphans();
    if (ended > 0) this.settings.log.warn({ browsers: ended }, 'session browsers of a killed host ended');
    const { store, ledger, log } = this.settings;
    if (store && ledger)
      await recoverLost(store, ledger, log, host).catch((err) =>
        log.error({ err }, 'the sessions of a previous run were not recovered; the lost-session sweep will'),
      );
    this.refill();
  }

  get live(): number {
    return this.sessions.size;
  }

  /** The sessions this host runs, renders' included: the ones whose rows it keeps alive. */
  ids(): string[] {
    return [...this.sessions.keys(), ...[...this.renders.values()].filter((r) => r.rowLive).map((r) => r.id)];
  }

  /**
   * A render of `requestId` recorded as a session of kind `scrape` in a pool
   * browser's `recorder`; undefined when sessions are not recorded here or the
   * render names no workspace and request. It holds no slot or credit.
   */
  recordRender(workspaceId: string, requestId: string, recorder: PoolRecorder | undefined): RenderSession | undefined {
    const sink = this.settings.recordings;
    if (!sink || !recorder || !workspaceId || !requestId) return undefined;
    const render = new RenderSession(
      workspaceId,
      requestId,
      recorder,
      sink,
      this.settings.store,
      this.host,
      this.settings.log,
      {
        ended: (r) => this.renders.delete(r.id),
      },
    );
    this.renders.set(render.id, render);
    return render;
  }

  /** The capacity this host offers: 0 while stopping. */
  get capacity(): number {
    return this.stopped ? 0 : this.settings.capacity;
  }

  private refill(): void {
    while (!this.stopped && this.warm.length < this.settings.warm) {
      const launching = this.launch(this.defaultFace);
      launching.catch((err) => this.settings.log.error({ err }, 'warm session browser failed to start'));
      this.warm.push(launching);
    }
  }

  /**
   * A warm browser if the face is the default one and one is ready and
   * alive, else a new one; a profile's is always new (its state restored
   * into its dir, its traffic through its exit).
   */
  private async browser(settings: SessionSettings, profile?: Attached): Promise<SessionBrowser> {
    const face = this.face(settings);
    if (profile) return this.launch(face, profile);
    while (face.key === this.defaultFace.key && this.warm.length > 0) {
      const next = this.warm.shift() as Promise<SessionBrowser>;
      this.refill();
      const ready = await next.catch(() => undefined);
      if (ready?.browser.connected) return ready;
      await ready?.close();
    }
    return this.launch(face);
  }

  /**
   * A warm browser for a session of `settings`, taken now, when the face is the
   * default one and one is warm; undefined otherwise (its browser comes after
   * the slot and the hold, as a launch does: a connect refused costs no launch).
   */
  private takeWarm(settings: SessionSettings): Promise<SessionBrowser> | undefined {
    const next =
      this.warm.length > 0 && this.face(settings).key === this.defaultFace.key ? this.warm.shift() : undefined;
    if (!next) return undefined;
    // Not refilled yet: a connect refused gives it back (giveBack), and no launch was spent on it.
    const taken = next.then(
      (ready) => (ready.browser.connected ? ready : ready.close().then(() => this.browser(settings))),
      () => this.browser(settings),
    );
    // Awaited only once the slot and the hold are granted: a failed launch meanwhile is no unhandled rejection.
    taken.catch(() => undefined);
    return taken;
  }

  /** A warm browser taken for a session that was then refused goes back, unused: no client ever saw it. */
  private giveBack(taken: Promise<SessionBrowser> | undefined): void {
    void taken?.then(
      (b) => {
        if (!this.stopped && b.browser.connected) this.warm.unshift(Promise.resolve(b));
        else void b.close().catch(() => undefined);
      },
      () => undefined,
    );
  }

  /**
   * A new session for the workspace: a browser slot (429 concurrency_limit at
   * once over the plan's limit), a hold for its first minutes (402 when the
   * credit cannot cover it), a browser, and a ticket to connect with.
   */
  async open(
    workspaceId: string,
    operationId: string,
    options: browser.SessionOptions | undefined,
    task?: browser.SessionTask,
  ) {
    const ledger = this.settings.ledger;
    if (!ledger) throw new ApiError('capability_unavailable', { capability: 'connect' });
    // A host that is stopping is full: the gateway places the session on another.
    if (this.stopped) throw new ApiError('no_capacity', { retryAfterSeconds: 5 });
    if (this.sessions.size >= this.settings.capacity) throw new ApiError('no_capacity', { retryAfterSeconds: 5 });
    const id = randomUUID();
    let settings: SessionSettings = sessionSettings(options);
    // An agent run's session holds its slot under the run, as the agent service took it at submit: one lease.
    const agentRun = task?.kind === 'agent' && task.runId ? task.runId : undefined;
    // Its warm browser is readied while the ledger grants the slot and the hold, not after them.
    const warm = settings.profileId ? undefined : this.takeWarm(this.placed(settings, options));
    let lease: SlotLease;
    try {
      lease = await SlotLease.acquire(ledger, {
        workspaceId,
        holder: agentRun ? `agent:${agentRun}` : `session:${id}`,
        wait: false,
        onRenewFailed: (err) => this.settings.log.warn({ err, sessionId: id }, 'session slot renewal failed'),
      });
    } catch (err) {
      this.giveBack(warm);
      throw err;
    }
    let hold: MeteredHold | undefined;
    let profile: Attached | undefined;
    let launched = false;
    try {
      hold = await MeteredHold.open(
        ledger,
        { workspaceId, operationId, capability: agentRun ? 'agent' : 'connect', reference: id },
        {
          aheadMc: AHEAD_MC,
          ttlSeconds: settings.maxLifetimeSeconds + 3_600,
          onExhausted: () => void this.sessions.get(id)?.end('credits_exhausted'),
          journal: this.settings.store && ((state) => (this.settings.store as SessionStore).journal(id, state)),
        },
      );
      if (settings.profileId) {
        const profiles = this.settings.profiles;
        if (!profiles) throw new ApiError('capability_unavailable', { capability: 'profiles' });
        profile = await profiles.attach(workspaceId, settings.profileId, { sessionId: id, host: this.host });
      }
      settings = this.placed(settings, options, profile?.exit);
      // The warm browser is this session's now: the pool launches the next.
      if (warm) this.refill();
      const sessionBrowser = await (warm ?? this.browser(settings, profile));
      launched = true;
      const { store, log } = this.settings;
      const session = new Session(id, workspaceId, settings, sessionBrowser, lease, hold, log, {
        ended: (s, end) => {
          this.sessions.delete(s.id);
          // An unfinished bill leaves the row live: its heartbeat stops, and the sweep finishes it from the journal.
          if (end.billed && end.outcome !== 'host_lost')
            store
              ?.ended(s.id, end)
              .catch((err) =>
                log.error({ err, sessionId: s.id }, 'session row not ended; the lost-session sweep will'),
              );
        },
      });
      session.billsProxyBytes = profile?.exit?.kind === 'residential';
      // The run meters its browser time itself: it stops the meter while the run is paused.
      session.metersTime = !agentRun;
      // Its pages cannot tell the agent drives them from what their console calls (docs/decisions/0033-no-runtime-enable.md).
      session.quietRuntime = agentRun !== undefined;
      const row = {
        id,
        workspaceId,
        operationId,
        host: this.host,
        options: { ...settings, ...(agentRun && { task: { kind: 'agent', runId: agentRun } }) },
      };
      await store
        ?.opened({ ...row, startedAt: new Date(session.startedAt), metering: hold.state() })
        .catch(async (err) => {
          await session.end('host_stopped');
          throw err;
        });
      this.sessions.set(id, session);
      if (this.settings.recordings) {
        session.recording = new SessionRecording(id, workspaceId, this.settings.recordings, log);
        sessionBrowser.recordTo(session.recording);
        await sessionBrowser
          .captureNetwork(session.recording, {
            bodies: settings.networkBodies,
            screencastIntervalMs: this.settings.screencastIntervalMs ?? 0,
            screencastAlways: this.settings.screencastAlways ?? false,
          })
          .catch((err) => log.warn({ err, sessionId: id }, 'network log not started'));
      }
      this.settings.log.info({ sessionId: id, workspaceId }, 'session opened');
      return { session, ...session.issueTicket() };
    } catch (err) {
      // A browser launched lets the profile go when it closes; one that never launched, here.
      if (profile && !launched) await profile.release(undefined).catch(() => undefined);
      if (!launched) this.giveBack(warm);
      await hold?.close().catch(() => undefined);
      await lease.release().catch(() => undefined);
      throw err;
    }
  }

  /** A fresh ticket for a live session of the workspace (a reconnect); not_found otherwise. */
  reconnect(workspaceId: string, sessionId: string) {
    const session = this.sessions.get(sessionId);
    if (!session || session.ended || session.workspaceId !== workspaceId) throw new ApiError('not_found');
    return { session, ...session.issueTicket() };
  }

  get(sessionId: string): Session | undefined {
    return this.sessions.get(sessionId);
  }

  /**
   * Takes no new session (its capacity reads 0, a connect here is no_capacity
   * so the gateway asks another host), lets the live ones run on for up to
   * `drainMs` (their clients keep driving them; a scale-down need not cut
   * them), then ends what is left (settled, slots released) and closes the
   * warm browsers.
   */
  async stop(drainMs = 0): Promise<void> {
    this.stopped = true;
    const deadline = Date.now() + drainMs;
    if (this.sessions.size > 0 && drainMs > 0) {
      this.settings.log.info(
        { sessions: this.sessions.size, drainMs },
        'draining: live sessions run on until they end',
      );
      while (this.sessions.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    }
    await Promise.all([...this.sessions.values()].map((s) => s.end('host_stopped')));
    // Renders ending are sent and written before the host goes; a row still live is ended at its next start.
    await Promise.all([...this.renders.values()].map((r) => r.ended));
    await Promise.all(this.warm.splice(0).map((w) => w.then((b) => b.close()).catch(() => undefined)));
  }
}
