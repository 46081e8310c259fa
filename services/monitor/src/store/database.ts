import { SqlDatabase } from '@wap/db/sql';

/**
 * The monitor database: monitors, their snapshots and deliveries, on a pg
 * pool: its stores are a few fixed statements, so the service loads no Prisma
 * client (docs/decisions/0032-prisma-client-only-where-rich.md).
 */
export type MonitorDatabase = SqlDatabase;

export const openMonitorDatabase = (url: string): MonitorDatabase => new SqlDatabase(url);
