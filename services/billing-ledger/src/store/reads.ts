// The read side: Credits and Usage, each from one consistent snapshot.
import type { AccountRow, GrantRow } from '../domain/credits.js';
import type { MeterName } from '../domain/pricing.js';
import type { ChargedRow, MeterRow } from '../domain/usage.js';
import type { PrismaClient } from '../generated/prisma/client.js';

const UTC_DAY = `to_char("created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

export class ReadStore {
  constructor(private readonly prisma: PrismaClient) {}

  /** The account, its grants and what its live holds reserve; null without an account. */
  async balance(
    workspaceId: string,
    now: Date,
  ): Promise<{ account: AccountRow; grants: GrantRow[]; held: bigint } | null> {
    const [account, grants, held] = await this.prisma.$transaction(
      [
        this.prisma.account.findUnique({ where: { workspaceId } }),
        this.prisma.grant.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
        this.prisma.$queryRaw<{ held: bigint }[]>`SELECT "ledger_held"(${workspaceId}, ${now}::timestamptz) AS held`,
      ],
      { isolationLevel: 'RepeatableRead' },
    );
    if (!account) return null;
    return { account, grants, held: BigInt(held[0]?.held ?? 0n) };
  }

  /** Usage in [from, to), summed by capability, UTC day and meter. */
  async usage(workspaceId: string, from: Date, to: Date): Promise<{ meters: MeterRow[]; charged: ChargedRow[] }> {
    const [meters, charged] = await this.prisma.$transaction(
      [
        this.prisma.$queryRawUnsafe<{ capability: string; day: string; meter: string; quantity: string; mc: string }[]>(
          `SELECT r."capability", to_char(r."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, m."meter",
                  sum(m."quantity")::text AS quantity, sum(m."mc")::text AS mc
             FROM "usage_records" r JOIN "usage_meters" m ON m."usage_id" = r."id"
            WHERE r."workspace_id" = $1 AND r."created_at" >= $2 AND r."created_at" < $3
            GROUP BY 1, 2, 3`,
          workspaceId,
          from,
          to,
        ),
        this.prisma.$queryRawUnsafe<{ capability: string; day: string; mc: string }[]>(
          `SELECT "capability", ${UTC_DAY} AS day, sum("charged_mc")::text AS mc
             FROM "usage_records"
            WHERE "workspace_id" = $1 AND "created_at" >= $2 AND "created_at" < $3
            GROUP BY 1, 2`,
          workspaceId,
          from,
          to,
        ),
      ],
      { isolationLevel: 'RepeatableRead' },
    );
    return {
      meters: meters.map((r) => ({
        capability: r.capability,
        day: r.day,
        meter: r.meter as MeterName,
        quantity: BigInt(r.quantity),
        millicredits: BigInt(r.mc),
      })),
      charged: charged.map((r) => ({ capability: r.capability, day: r.day, millicredits: BigInt(r.mc) })),
    };
  }
}
