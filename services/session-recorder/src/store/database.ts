import { SqlDatabase } from '@wap/db/sql';

/**
 * The session-recorder database: sessions, their recordings and network logs,
 * on a pg pool: its stores are a few fixed statements, so the service loads no
 * Prisma client (docs/decisions/0032-prisma-client-only-where-rich.md).
 */
export type SessionRecorderDatabase = SqlDatabase;

export const openSessionRecorderDatabase = (url: string): SessionRecorderDatabase => new SqlDatabase(url);
