// The session rows (browser_sessions): opened, kept alive, ended.
import type { PrismaClient } from '../generated/prisma/client.js';

export interface SessionRecord {
  id: string;
  workspaceId: string;
  operationId: string;
  options: Record<string, unknown>;
}

export class SessionStore {
  constructor(private readonly db: PrismaClient) {}

  async opened(s: SessionRecord): Promise<void> {
    await this.db.browserSession.create({
      data: {
        id: s.id,
        workspaceId: s.workspaceId,
        operationId: s.operationId,
        status: 'live',
        options: s.options as never,
      },
    });
  }

  /** The session's host is alive and its time is settled up to now. */
  async heartbeat(id: string): Promise<void> {
    await this.db.browserSession.updateMany({ where: { id, status: 'live' }, data: { heartbeatAt: new Date() } });
  }

  /** Ends the row once; a row already ended keeps its first end. */
  async ended(id: string, end: { outcome: string; chargedMc: bigint; proxyBytes: number }): Promise<void> {
    await this.db.browserSession.updateMany({
      where: { id, status: 'live' },
      data: {
        status: 'ended',
        outcome: end.outcome,
        endedAt: new Date(),
        chargedMc: end.chargedMc,
        proxyBytes: BigInt(end.proxyBytes),
      },
    });
  }

  /** Live rows whose host stopped beating before `staleBefore`: ended as host_lost; answers how many. */
  async endLost(staleBefore: Date): Promise<number> {
    const { count } = await this.db.browserSession.updateMany({
      where: { status: 'live', heartbeatAt: { lt: staleBefore } },
      data: { status: 'ended', outcome: 'host_lost', endedAt: new Date() },
    });
    return count;
  }

  get(id: string) {
    return this.db.browserSession.findUnique({ where: { id } });
  }
}
