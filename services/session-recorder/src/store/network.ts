// The sessions' network logs (docs/sessions.md, "Network log"): a session's
// requests after a row id, oldest first, filtered as GET /v1/sessions/{id}/network asks.
import type { NetworkRequest, Prisma, PrismaClient } from '../generated/prisma/client.js';

export interface NetworkFilter {
  urlContains?: string;
  method?: string;
  /** An exact status wins over its class. */
  status?: number;
  /** 2 for 2xx, 4 for 4xx... */
  statusClass?: number;
  type?: string;
  tab?: number;
  minDurationMs?: number;
}

export class NetworkLog {
  constructor(private readonly db: PrismaClient) {}

  /** Up to `limit` of the session's requests after `afterId`, oldest first; their bodies only when asked. */
  list(
    sessionId: string,
    filter: NetworkFilter,
    page: { afterId: bigint; limit: number; bodies: boolean },
  ): Promise<NetworkRequest[]> {
    const where: Prisma.NetworkRequestWhereInput = {
      sessionId,
      id: { gt: page.afterId },
      ...(filter.urlContains && { url: { contains: filter.urlContains } }),
      ...(filter.method && { method: filter.method.toUpperCase() }),
      ...(filter.status
        ? { status: filter.status }
        : filter.statusClass && { status: { gte: filter.statusClass * 100, lt: filter.statusClass * 100 + 100 } }),
      ...(filter.type && { type: { equals: filter.type, mode: 'insensitive' as const } }),
      ...(filter.tab && { tab: filter.tab }),
      ...(filter.minDurationMs && { durationMs: { gte: filter.minDurationMs } }),
    };
    return this.db.networkRequest.findMany({
      where,
      orderBy: { id: 'asc' },
      take: page.limit,
      omit: { body: !page.bodies },
    });
  }
}
