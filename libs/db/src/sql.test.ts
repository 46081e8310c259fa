// The typed SQL the lean services run their stores on, against real Postgres:
// values bound (never spliced), rows as Prisma's client gave them, and a
// transaction that commits whole or not at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SqlDatabase } from './sql';
import { withDatabase } from './test-support';

test('values are bound and rows read back as a Prisma model: camelCase, bigint, Date, json, bytes', () =>
  withDatabase('sql_rows', async (url) => {
    const db = new SqlDatabase(url);
    try {
      await db.execute`CREATE TABLE items (id uuid PRIMARY KEY, workspace_id text NOT NULL, size_bytes bigint NOT NULL,
        seen_at timestamptz(3) NOT NULL, plain_at timestamp(3), meta jsonb, body bytea, body_sha256 text)`;
      const id = '6f1d7a2e-58a4-4c7a-9d52-5a0f7c0c1f00';
      const at = new Date('2026-11-30T08:00:00.123Z');
      const hostile = "x'); DROP TABLE items; --";
      const written = await db.execute`
        INSERT INTO items VALUES (${id}::uuid, ${hostile}, ${2n ** 60n}, ${at}, ${at}, ${JSON.stringify({ a: [1] })}::jsonb,
                                  ${Buffer.from([0, 1, 255])}, ${'abc'})`;
      assert.equal(written, 1);
      const [row] = await db.query<Record<string, unknown>>`SELECT * FROM items WHERE workspace_id = ${hostile}`;
      assert.deepEqual(row, {
        id,
        workspaceId: hostile,
        sizeBytes: 2n ** 60n,
        seenAt: at,
        plainAt: at,
        meta: { a: [1] },
        body: Buffer.from([0, 1, 255]),
        bodySha256: 'abc',
      });
      const found = await db.query<{ n: bigint }>`
        SELECT count(*) AS n FROM items WHERE id = ANY(${[id]}::uuid[]) AND seen_at = ANY(${[at]}::timestamptz[])`;
      assert.deepEqual(found, [{ n: 1n }]);
      // The names libs/events and libs/service call, as a Prisma client answers them.
      assert.deepEqual(await db.$queryRawUnsafe('SELECT workspace_id FROM items WHERE id = $1::uuid', id), [
        { workspace_id: hostile },
      ]);
      assert.equal(await db.$executeRawUnsafe('UPDATE items SET meta = NULL WHERE id = $1::uuid', id), 1);
    } finally {
      await db.$disconnect();
    }
  }));

test('a transaction commits whole when its work returns, and leaves nothing when it throws', () =>
  withDatabase('sql_tx', async (url) => {
    const db = new SqlDatabase(url, { max: 2 });
    try {
      await db.execute`CREATE TABLE t (n int PRIMARY KEY)`;
      assert.equal(
        await db.transaction(async (tx) => {
          await tx.execute`INSERT INTO t VALUES (${1})`;
          return tx.execute`INSERT INTO t VALUES (${2})`;
        }),
        1,
      );
      await assert.rejects(
        db.$transaction(async (tx) => {
          await tx.execute`INSERT INTO t VALUES (${3})`;
          await tx.execute`INSERT INTO t VALUES (${1})`; // duplicate key
        }),
        /duplicate key/,
      );
      assert.deepEqual(await db.query`SELECT n FROM t ORDER BY n`, [{ n: 1 }, { n: 2 }]);
      // The pool is whole after the failure: both connections still serve.
      await Promise.all([db.query`SELECT pg_sleep(0.01)`, db.query`SELECT pg_sleep(0.01)`]);
    } finally {
      await db.$disconnect();
    }
  }));

test('a connection the server drops mid-transaction fails that transaction, not the process', () =>
  withDatabase('sql_tx_dropped', async (url) => {
    const db = new SqlDatabase(url, { max: 1 });
    const admin = new SqlDatabase(url, { max: 1 });
    try {
      await db.execute`CREATE TABLE t (n int PRIMARY KEY)`;
      // The connection the transaction takes, to wait for its end.
      let ended: Promise<unknown> = Promise.resolve();
      db.pool.once('acquire', (client) => {
        // Not events.once: it would listen for 'error' too, and handle what this test is about.
        ended = new Promise((resolve) => client.once('end', resolve));
      });
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.execute`INSERT INTO t VALUES (${1})`;
          const [{ pid } = { pid: 0 }] = await tx.query<{ pid: number }>`SELECT pg_backend_pid() AS pid`;
          // As a restart or a failover does: the server ends the connection between two statements.
          await admin.query`SELECT pg_terminate_backend(${pid}::int)`;
          // The client hears of it while idle: without a listener of its own, the 'error' event
          // that comes with its end, which nobody would handle, ends this process here.
          await ended;
          await tx.execute`INSERT INTO t VALUES (${2})`;
        }),
      );
      // Nothing of it was kept, and the pool's one connection was replaced, not handed on broken.
      assert.deepEqual(await db.query`SELECT n FROM t`, []);
    } finally {
      await admin.$disconnect();
      await db.$disconnect();
    }
  }));
