// One transaction on one pooled connection, for the stores that run their own SQL
// (sql.ts) and those beside a Prisma client (pooled.ts).
import type pg from 'pg';

/**
 * Runs `work` between BEGIN and COMMIT on a connection of `pool`: rolled back
 * and rethrown when it throws. A checked-out client has no error listener of
 * the pool's, so one is kept on it while it is out: a connection the server
 * drops between two statements (a restart, a failover) fails this transaction
 * instead of crashing the process, and is closed rather than handed on.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken ??= err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is closed, not handed to the next caller.
    await client.query('ROLLBACK').catch((e: Error) => {
      broken ??= e;
    });
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
