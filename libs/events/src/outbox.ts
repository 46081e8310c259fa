import { randomUUID } from 'node:crypto';
import type { Logger } from '@wap/log';
import { injectContext } from '@wap/telemetry';
import type { Publisher } from './publish.js';
import type { SqlClient, TransactionalSqlClient } from './sql.js';

/**
 * Records an event in the caller's transaction (table `event_outbox`). It is
 * published only if that transaction commits, and then at least once: the row's
 * id is the `Nats-Msg-Id`, so a relay that crashes after publishing and
 * publishes again is de-duplicated by JetStream.
 */
export async function enqueueEvent(tx: SqlClient, subject: string, payload: unknown): Promise<string> {
  const id = randomUUID();
  const headers: Record<string, string> = {};
  injectContext((key, value) => {
    headers[key] = value;
  });
  await tx.$executeRawUnsafe(
    'INSERT INTO event_outbox (id, subject, payload, headers) VALUES ($1::uuid, $2, $3::jsonb, $4::jsonb)',
    id,
    subject,
    JSON.stringify(payload),
    JSON.stringify(headers),
  );
  return id;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, string>;
}

/** Publishes committed outbox rows in order; any number of replicas may run one. */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: TransactionalSqlClient,
    private readonly publisher: Publisher,
    private readonly log: Logger,
    private readonly intervalMs = 250,
    private readonly batch = 100,
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.drainOnce()
        .then(() => undefined)
        .catch((err) => this.log.warn({ err }, 'outbox relay pass failed; will retry'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs);
        });
    };
    tick();
  }

  /** Publishes one batch; returns how many rows went out. */
  async drainOnce(): Promise<number> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<OutboxRow[]>(
        `SELECT id::text AS id, subject, payload, headers FROM event_outbox
          WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        this.batch,
      );
      for (const row of rows) {
        await this.publisher.publish(row.subject, row.payload, { msgId: row.id, headers: row.headers });
      }
      if (rows.length > 0) {
        await tx.$executeRawUnsafe(
          'UPDATE event_outbox SET published_at = now() WHERE id = ANY($1::uuid[])',
          rows.map((r) => r.id),
        );
      }
      return rows.length;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
