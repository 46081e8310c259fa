// The session rows (browser_sessions): opened, kept alive by their host,
// journaled as they are billed, ended; and the rows of a host that died,
// found so their bills can be finished. Opening and ending a row also records
// the session's snapshot in the outbox, in the same transaction, for the
// session-recorder (docs/sessions.md).
import type { MeteredState } from '@wap/billing';
import { enqueueEvent, type SessionSnapshot, type SqlClient } from '@wap/events';
import type { BrowserSession, PrismaClient } from '../generated/prisma/client.js';

export interface SessionRecord {
  id: string;
  workspaceId: string;
  operationId: string;
  /** The host that runs it (its CDP URL). */
  host: string;
  options: Record<string, unknown>;
  startedAt: Date;
  /** The metered hold's journal; none for a session that holds no credit (a render's: the crawl bills its page). */
  metering?: MeteredState;
}

export type SessionRow = BrowserSession;

export interface SessionEndRecord {
  outcome: string;
  /** Browser seconds billed. */
  seconds: number;
  chargedMc: bigint;
  proxyBytes: number;
}

const TASK_KINDS: readonly string[] = ['agent', 'scrape'] satisfies SessionSnapshot['kind'][];

/** What a row's session served: its options' task (an agent run, a scrape's render), else a CDP client. */
export const kindOf = (row: Pick<SessionRow, 'options'>): SessionSnapshot['kind'] => {
  const kind = (row.options as { task?: { kind?: unknown } } | null)?.task?.kind;
  return typeof kind === 'string' && TASK_KINDS.includes(kind) ? (kind as SessionSnapshot['kind']) : 'connect';
};

/** What the session-recorder is told of a row. */
export const snapshotOf = (row: SessionRow): SessionSnapshot => ({
  id: row.id,
  workspaceId: row.workspaceId,
  kind: kindOf(row),
  status: row.status === 'ended' ? 'ended' : 'live',
  outcome: row.outcome,
  startedAt: row.startedAt.toISOString(),
  endedAt: row.endedAt?.toISOString() ?? null,
  options: row.options as Record<string, unknown>,
  usage: { contextSeconds: row.seconds, proxyBytes: Number(row.proxyBytes), chargedMc: String(row.chargedMc) },
});

export class SessionStore {
  /** `lifecycle`: the subject snapshots go to through the outbox; none without it (tests of the rows alone). */
  constructor(
    private readonly db: PrismaClient,
    private readonly lifecycle?: string,
  ) {}

  private async announce(tx: SqlClient, row: SessionRow | null): Promise<void> {
    if (row && this.lifecycle) await enqueueEvent(tx, this.lifecycle, snapshotOf(row));
  }

  async opened(s: SessionRecord): Promise<void> {
    await this.db.$transaction(async (tx) => {
      const row = await tx.browserSession.create({
        data: {
          id: s.id,
          workspaceId: s.workspaceId,
          operationId: s.operationId,
          host: s.host,
          status: 'live',
          options: s.options as never,
          ...(s.metering && { metering: s.metering as never }),
          startedAt: s.startedAt,
          heartbeatAt: s.startedAt,
        },
      });
      await this.announce(tx, row);
    });
  }

  /** Ends a live row with `data`, and tells the recorder; false when it had already ended. */
  private async end(id: string, data: Parameters<PrismaClient['browserSession']['update']>[0]['data']) {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.browserSession.updateMany({ where: { id, status: 'live' }, data });
      if (count === 1) await this.announce(tx, await tx.browserSession.findUnique({ where: { id } }));
      return count === 1;
    });
  }

  /**
   * The host says these sessions are alive now. Answers the ids whose rows are
   * no longer live: a sweep took them for lost (the host was silent too long)
   * and finished their bills, so the host must end them unbilled.
   */
  async heartbeat(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { count } = await this.db.browserSession.updateMany({
      where: { id: { in: [...ids] }, status: 'live' },
      data: { heartbeatAt: new Date() },
    });
    if (count === ids.length) return [];
    const live = await this.db.browserSession.findMany({
      where: { id: { in: [...ids] }, status: 'live' },
      select: { id: true },
    });
    const alive = new Set(live.map((r) => r.id));
    return ids.filter((id) => !alive.has(id));
  }

  /** Keeps the session's billing journal; throws when the row is no longer live (its bill is someone else's now). */
  async journal(id: string, metering: MeteredState): Promise<void> {
    const { count } = await this.db.browserSession.updateMany({
      where: { id, status: 'live' },
      data: { metering: metering as never, heartbeatAt: new Date() },
    });
    if (count !== 1) throw new Error(`session ${id} is no longer live`);
  }

  /** Ends the row once; a row already ended keeps its first end. */
  async ended(id: string, end: SessionEndRecord): Promise<void> {
    await this.end(id, {
      status: 'ended',
      outcome: end.outcome,
      endedAt: new Date(),
      seconds: end.seconds,
      chargedMc: end.chargedMc,
      proxyBytes: BigInt(end.proxyBytes),
    });
  }

  /**
   * Live rows of a host that is gone: every live row whose heartbeat stopped
   * before `staleBefore`, and those of `host`, when a host restarting under the
   * same URL looks for what its previous run left.
   */
  lost(staleBefore: Date, host?: string): Promise<SessionRow[]> {
    return this.db.browserSession.findMany({
      where: { status: 'live', OR: [{ heartbeatAt: { lt: staleBefore } }, ...(host ? [{ host }] : [])] },
      orderBy: { heartbeatAt: 'asc' },
      take: 100,
    });
  }

  /** A lost row whose bill is finished: ended as host_lost, at its last heartbeat. */
  recovered(row: Pick<SessionRow, 'id' | 'heartbeatAt'>, seconds: number, chargedMc: bigint): Promise<boolean> {
    return this.end(row.id, { status: 'ended', outcome: 'host_lost', endedAt: row.heartbeatAt, seconds, chargedMc });
  }

  get(id: string) {
    return this.db.browserSession.findUnique({ where: { id } });
  }
}
