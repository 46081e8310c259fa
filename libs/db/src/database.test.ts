import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { databaseUrlFor, dropDatabase, ensureDatabase, pingDatabase } from './database';
import { adminUrl, query, uniqueDbName } from './test-support';

async function exists(name: string): Promise<boolean> {
  return (await query(adminUrl(), 'SELECT 1 FROM pg_database WHERE datname = $1', [name])).length === 1;
}

describe('databases', () => {
  test('databaseUrlFor swaps only the database', () => {
    assert.equal(
      databaseUrlFor('postgresql://u:p%40ss@db:5432/postgres?sslmode=require', 'billing'),
      'postgresql://u:p%40ss@db:5432/billing?sslmode=require',
    );
    assert.throws(() => databaseUrlFor('postgresql://u@db/postgres', 'Bad-Name'), /invalid database name/);
    assert.throws(() => databaseUrlFor('postgresql://u@db/postgres', 'x"; DROP'), /invalid database name/);
  });

  test('ensureDatabase creates once, is idempotent, and dropDatabase removes it', async () => {
    const name = uniqueDbName('ensure');
    try {
      assert.equal(await ensureDatabase(adminUrl(), name), true);
      assert.equal(await ensureDatabase(adminUrl(), name), false);
      assert.ok(await exists(name));
      assert.deepEqual(await query(databaseUrlFor(adminUrl(), name), 'SELECT current_database() AS db'), [
        { db: name },
      ]);
    } finally {
      await dropDatabase(adminUrl(), name);
    }
    assert.equal(await exists(name), false);
    await dropDatabase(adminUrl(), name); // dropping what is gone is fine
  });

  test('concurrent ensureDatabase calls create it exactly once, without errors', async () => {
    const name = uniqueDbName('race');
    try {
      const created = await Promise.all(Array.from({ length: 6 }, () => ensureDatabase(adminUrl(), name)));
      assert.equal(created.filter(Boolean).length, 1, JSON.stringify(created));
      assert.ok(await exists(name));
    } finally {
      await dropDatabase(adminUrl(), name);
    }
  });

  test('dropDatabase disconnects open sessions', async () => {
    const name = uniqueDbName('drop');
    await ensureDatabase(adminUrl(), name);
    const { Client } = await import('pg');
    const open = new Client({ connectionString: databaseUrlFor(adminUrl(), name) });
    open.on('error', () => {});
    await open.connect();
    try {
      await dropDatabase(adminUrl(), name);
      assert.equal(await exists(name), false);
    } finally {
      await open.end().catch(() => {});
    }
  });
});

describe('pingDatabase', () => {
  test('resolves when SELECT 1 answers, rejects on error and on timeout', async () => {
    const seen: string[] = [];
    await pingDatabase({ $queryRawUnsafe: async (sql) => seen.push(sql) });
    assert.deepEqual(seen, ['SELECT 1']);
    await assert.rejects(
      pingDatabase({ $queryRawUnsafe: async () => Promise.reject(new Error('refused')) }),
      /refused/,
    );
    // A query that never answers: only the timeout can end the ping.
    await assert.rejects(pingDatabase({ $queryRawUnsafe: () => new Promise(() => {}) }, 100), /timed out after 100 ms/);
  });
});
