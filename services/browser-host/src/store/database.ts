import { SqlDatabase } from '@wap/db/sql';

/**
 * The browser-host database: sessions as the hosts run them, and saved
 * profiles, on a pg pool: its stores are a few fixed statements, so the
 * service loads no Prisma client (docs/decisions/0032-prisma-client-only-where-rich.md).
 */
export type BrowserHostDatabase = SqlDatabase;

export const openBrowserHostDatabase = (url: string): BrowserHostDatabase => new SqlDatabase(url);
