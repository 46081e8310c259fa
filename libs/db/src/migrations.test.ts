import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { applyMigrations, MIGRATE_LOCK_KEY, MigrationError, markRolledBack } from './migrations';
import { query, tables, tempDir, withDatabase, writeMigrations } from './test-support';

const M1: [string, string] = ['20240101000000_accounts', 'CREATE TABLE accounts (id int PRIMARY KEY, note text);\n'];
const M2: [string, string] = ['20240102000000_orders', 'CREATE TABLE orders (id int PRIMARY KEY);\n'];
const M3: [string, string] = ['20240103000000_events', 'CREATE TABLE events (id int PRIMARY KEY);\n'];
// Creates a table, then fails: the first statement must not survive.
const M2_BAD: [string, string] = [
  M2[0],
  'CREATE TABLE orders (id int PRIMARY KEY);\nCREATE TABLE broken (id no_such_type);\n',
];

async function migrationRows(url: string) {
  return query<{ migration_name: string; checksum: string; finished: boolean; rolled_back: boolean }>(
    url,
    `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back
       FROM _prisma_migrations ORDER BY started_at, migration_name`,
  );
}

describe('applyMigrations', () => {
  test('applies every migration to a fresh database and records it as the CLI does', async () => {
    const tmp = await tempDir('apply');
    try {
      await writeMigrations(tmp.dir, [M1, M2, M3]);
      await withDatabase('apply', async (url) => {
        const applied = await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url });
        assert.deepEqual(applied, [M1[0], M2[0], M3[0]]);
        assert.deepEqual(await tables(url), ['_prisma_migrations', 'accounts', 'events', 'orders']);
        const rows = await migrationRows(url);
        assert.deepEqual(
          rows.map((r) => [r.migration_name, r.finished, r.rolled_back]),
          [
            [M1[0], true, false],
            [M2[0], true, false],
            [M3[0], true, false],
          ],
        );
        // The checksum is the SHA-256 of migration.sql, as `prisma migrate deploy` records it.
        assert.equal(rows[0]?.checksum, createHash('sha256').update(M1[1]).digest('hex'));
      });
    } finally {
      await tmp.cleanup();
    }
  });

  test('applying twice is a no-op; a later migration is picked up alone', async () => {
    const tmp = await tempDir('twice');
    try {
      await writeMigrations(tmp.dir, [M1, M2]);
      await withDatabase('twice', async (url) => {
        assert.deepEqual(await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url }), [M1[0], M2[0]]);
        assert.deepEqual(await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url }), []);
        await writeMigrations(tmp.dir, [M3]);
        assert.deepEqual(await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url }), [M3[0]]);
        assert.equal((await migrationRows(url)).length, 3);
      });
    } finally {
      await tmp.cleanup();
    }
  });

  test('runs each migration as one script: semicolons in strings and function bodies survive', async () => {
    const tmp = await tempDir('script');
    const sql = `CREATE TABLE notes (id int PRIMARY KEY, body text DEFAULT 'a;b');
CREATE FUNCTION one() RETURNS int AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql;
-- a comment; with a semicolon
INSERT INTO notes (id) VALUES (1);\n`;
    try {
      await writeMigrations(tmp.dir, [['20240101000000_script', sql]]);
      await withDatabase('script', async (url) => {
        await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url });
        assert.deepEqual(await query(url, 'SELECT body, one() AS one FROM notes'), [{ body: 'a;b', one: 1 }]);
      });
    } finally {
      await tmp.cleanup();
    }
  });

  test('a failed migration is named, leaves the database usable, and is recoverable', async () => {
    const tmp = await tempDir('fail');
    try {
      await writeMigrations(tmp.dir, [M1, M2_BAD, M3]);
      await withDatabase('fail', async (url) => {
        const err = await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url }).then(
          () => assert.fail('expected the second migration to fail'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof MigrationError, String(err));
        assert.equal(err.migration, M2[0]);
        assert.match(err.message, /20240102000000_orders/);
        assert.match(err.message, /no_such_type/);

        // Usable: the first migration's table is there and answers; nothing of the failed one is.
        assert.deepEqual(await tables(url), ['_prisma_migrations', 'accounts']);
        await query(url, `INSERT INTO accounts (id, note) VALUES (1, 'still fine')`);
        assert.deepEqual(await query(url, 'SELECT count(*)::int AS n FROM accounts'), [{ n: 1 }]);

        // As with the CLI, the unfinished row blocks every later deploy, naming the culprit.
        const blocked = await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url }).catch((e: unknown) => e);
        assert.ok(blocked instanceof MigrationError);
        assert.equal(blocked.migration, M2[0]);

        // Recovery: fix the migration, mark the failed attempt rolled back, deploy again.
        await writeFile(path.join(tmp.dir, M2[0], 'migration.sql'), M2[1]);
        await markRolledBack({ databaseUrl: url, migration: M2[0] });
        assert.deepEqual(await applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url }), [M2[0], M3[0]]);
        assert.deepEqual(await tables(url), ['_prisma_migrations', 'accounts', 'events', 'orders']);
        assert.deepEqual(
          (await migrationRows(url)).map((r) => [r.migration_name, r.finished, r.rolled_back]),
          [
            [M1[0], true, false],
            [M2[0], false, true],
            [M2[0], true, false],
            [M3[0], true, false],
          ],
        );
        // Only failed migrations can be rolled back.
        await assert.rejects(
          markRolledBack({ databaseUrl: url, migration: M1[0] }),
          (e: unknown) => e instanceof MigrationError && /not in a failed state/.test(e.message),
        );
      });
    } finally {
      await tmp.cleanup();
    }
  });

  test('concurrent migrators apply each migration once', async () => {
    const tmp = await tempDir('race');
    try {
      await writeMigrations(tmp.dir, [M1, M2, M3]);
      await withDatabase('race', async (url) => {
        const runs = await Promise.all(
          [1, 2, 3].map(() => applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url })),
        );
        assert.deepEqual(runs.flat().sort(), [M1[0], M2[0], M3[0]]);
        assert.equal(runs.filter((r) => r.length > 0).length, 1, `one run applies everything: ${JSON.stringify(runs)}`);
        assert.equal((await migrationRows(url)).length, 3);
      });
    } finally {
      await tmp.cleanup();
    }
  });

  test('waits for the migration lock held by another session, and times out', async () => {
    const tmp = await tempDir('lock');
    try {
      await writeMigrations(tmp.dir, [M1]);
      await withDatabase('lock', async (url) => {
        const holder = new pg.Client({ connectionString: url });
        await holder.connect();
        try {
          await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATE_LOCK_KEY]);
          await assert.rejects(
            applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url, lockTimeoutMs: 300 }),
            /migration lock/,
          );
          assert.deepEqual(await tables(url), [], 'nothing ran while the lock was held');

          const waiting = applyMigrations({ migrationsDir: tmp.dir, databaseUrl: url, lockTimeoutMs: 30_000 });
          // The migrator is queued behind the holder on the advisory lock, as Postgres shows it.
          for (;;) {
            const [row] = await query<{ n: number }>(
              url,
              `SELECT count(*)::int AS n FROM pg_locks
                WHERE locktype = 'advisory' AND NOT granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            );
            if ((row?.n ?? 0) > 0) break;
            await new Promise((r) => setTimeout(r, 20));
          }
          assert.deepEqual(await tables(url), [], 'still waiting');
          await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATE_LOCK_KEY]);
          assert.deepEqual(await waiting, [M1[0]]);
        } finally {
          await holder.end();
        }
      });
    } finally {
      await tmp.cleanup();
    }
  });

  test('reports a missing migrations directory and an unreachable database', async () => {
    const tmp = await tempDir('missing');
    try {
      await assert.rejects(
        applyMigrations({ migrationsDir: path.join(tmp.dir, 'nope'), databaseUrl: 'postgresql://x@127.0.0.1:1/x' }),
        /migrations directory not found/,
      );
      await writeMigrations(tmp.dir, [M1]);
      await assert.rejects(
        applyMigrations({ migrationsDir: tmp.dir, databaseUrl: 'postgresql://x@127.0.0.1:1/x' }),
        (e: unknown) => e instanceof MigrationError && e.migration === null && /cannot connect/.test(e.message),
      );
    } finally {
      await tmp.cleanup();
    }
  });
});
