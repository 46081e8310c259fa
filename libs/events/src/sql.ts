/**
 * The part of a Prisma client (or interactive transaction) the event helpers
 * need, so they work inside the caller's own transaction.
 */
export interface SqlClient {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/** A client that can open an interactive transaction. */
export interface TransactionalSqlClient extends SqlClient {
  $transaction<R>(fn: (tx: SqlClient) => Promise<R>): Promise<R>;
}
