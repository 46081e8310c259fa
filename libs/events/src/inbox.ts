import type { SqlClient, TransactionalSqlClient } from './sql.js';

/**
 * Exactly-once effects over at-least-once delivery: the message id is recorded
 * in the same transaction as the handler's writes, so a second delivery finds
 * it and does nothing. Table `event_inbox` comes from libs/events/prisma.
 */
export async function handleOnce<R>(
  db: TransactionalSqlClient,
  consumer: string,
  msgId: string,
  effect: (tx: SqlClient) => Promise<R>,
): Promise<{ duplicate: true } | { duplicate: false; result: R }> {
  return db.$transaction(async (tx) => {
    const inserted = await tx.$executeRawUnsafe(
      'INSERT INTO event_inbox (consumer, msg_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      consumer,
      msgId,
    );
    if (inserted === 0) return { duplicate: true as const };
    return { duplicate: false as const, result: await effect(tx) };
  });
}
