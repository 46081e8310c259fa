import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { diffMigration, nextTimestamp, SNAPSHOT_FILE } from './diff';
import { applyMigrations, LOCKFILE_CONTENT } from './migrations';
import { FIXTURE_DIR, tables, tempDir, withDatabase } from './test-support';

const HEADER = `generator client {
  provider     = "prisma-client"
  output       = "../src/generated/prisma"
  moduleFormat = "cjs"
  runtime      = "nodejs"
}

datasource db {
  provider = "postgresql"
}
`;
const USER = `
model User {
  id    Int    @id @default(autoincrement())
  email String @unique
}
`;
const POST = `
model Post {
  id    Int    @id
  title String
}
`;

async function service() {
  const tmp = await tempDir('diff');
  const schemaPath = path.join(tmp.dir, 'prisma', 'schema.prisma');
  const migrationsDir = path.join(tmp.dir, 'prisma', 'migrations');
  await cp(path.join(FIXTURE_DIR, 'prisma', 'schema.prisma'), schemaPath); // creates prisma/
  return { ...tmp, schemaPath, migrationsDir };
}

describe('diffMigration', () => {
  test('authors the first migration from empty, then only the changes, with no database', async () => {
    const svc = await service();
    try {
      await writeFile(svc.schemaPath, HEADER + USER);
      const first = await diffMigration({
        schemaPath: svc.schemaPath,
        migrationsDir: svc.migrationsDir,
        name: 'Init users',
      });
      assert.ok(first);
      assert.match(first.name, /^\d{14}_init_users$/);
      assert.equal(first.dir, path.join(svc.migrationsDir, first.name));
      assert.equal(await readFile(path.join(first.dir, 'migration.sql'), 'utf8'), first.sql);
      assert.match(first.sql, /CREATE TABLE "User"/);
      assert.match(first.sql, /CREATE UNIQUE INDEX "User_email_key"/);
      assert.equal(await readFile(path.join(svc.migrationsDir, 'migration_lock.toml'), 'utf8'), LOCKFILE_CONTENT);
      assert.equal(await readFile(path.join(svc.migrationsDir, SNAPSHOT_FILE), 'utf8'), HEADER + USER);

      await writeFile(svc.schemaPath, HEADER + USER + POST);
      const second = await diffMigration({
        schemaPath: svc.schemaPath,
        migrationsDir: svc.migrationsDir,
        name: 'add_posts',
      });
      assert.ok(second);
      assert.match(second.sql, /CREATE TABLE "Post"/);
      assert.doesNotMatch(second.sql, /"User"/);
      // Authored within the same second, it must still sort (and so apply) after the first.
      assert.ok(second.name > first.name, `${second.name} after ${first.name}`);
      assert.deepEqual(
        (await readdir(svc.migrationsDir)).sort(),
        [first.name, second.name, 'migration_lock.toml', SNAPSHOT_FILE].sort(),
      );

      // What was authored applies cleanly and yields the schema's tables.
      await withDatabase('diff', async (url) => {
        assert.deepEqual(await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url }), [
          first.name,
          second.name,
        ]);
        assert.deepEqual(await tables(url), ['Post', 'User', '_prisma_migrations']);
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('returns null and writes nothing when the schema did not change', async () => {
    const svc = await service();
    try {
      await writeFile(svc.schemaPath, HEADER + USER);
      assert.ok(await diffMigration({ schemaPath: svc.schemaPath, migrationsDir: svc.migrationsDir, name: 'init' }));
      const before = (await readdir(svc.migrationsDir)).sort();
      // A comment or generator change is no database change either.
      await writeFile(svc.schemaPath, `// tweaked\n${HEADER}${USER}`);
      assert.equal(
        await diffMigration({ schemaPath: svc.schemaPath, migrationsDir: svc.migrationsDir, name: 'noop' }),
        null,
      );
      assert.deepEqual((await readdir(svc.migrationsDir)).sort(), before);
      assert.equal(await readFile(path.join(svc.migrationsDir, SNAPSHOT_FILE), 'utf8'), HEADER + USER);
    } finally {
      await svc.cleanup();
    }
  });

  test('refuses to diff from empty when migrations exist without a snapshot', async () => {
    const svc = await service();
    try {
      await writeFile(svc.schemaPath, HEADER + USER);
      assert.ok(await diffMigration({ schemaPath: svc.schemaPath, migrationsDir: svc.migrationsDir, name: 'init' }));
      await rm(path.join(svc.migrationsDir, SNAPSHOT_FILE));
      await assert.rejects(
        diffMigration({ schemaPath: svc.schemaPath, migrationsDir: svc.migrationsDir, name: 'again' }),
        /is missing but 1 migration/,
      );
      await assert.rejects(
        diffMigration({ schemaPath: svc.schemaPath, migrationsDir: svc.migrationsDir, name: '!!' }),
        /invalid migration name/,
      );
    } finally {
      await svc.cleanup();
    }
  });

  test('reports an invalid schema', async () => {
    const svc = await service();
    try {
      await writeFile(svc.schemaPath, `${HEADER}\nmodel Broken {\n  id Int @id\n  other Nope\n}\n`);
      await assert.rejects(
        diffMigration({ schemaPath: svc.schemaPath, migrationsDir: svc.migrationsDir, name: 'broken' }),
        /Nope/,
      );
      assert.equal(existsSync(svc.migrationsDir), false);
    } finally {
      await svc.cleanup();
    }
  });

  test('the fixture migrations are in sync with the fixture schema', async () => {
    const svc = await service();
    try {
      await cp(path.join(FIXTURE_DIR, 'prisma', 'migrations'), svc.migrationsDir, { recursive: true });
      assert.equal(
        await diffMigration({ schemaPath: svc.schemaPath, migrationsDir: svc.migrationsDir, name: 'drift' }),
        null,
      );
    } finally {
      await svc.cleanup();
    }
  });

  test('timestamps are UTC and strictly after the last migration', () => {
    const now = new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678));
    assert.equal(nextTimestamp(now), '20250102030405');
    assert.equal(nextTimestamp(now, '20240101000000_old'), '20250102030405');
    assert.equal(nextTimestamp(now, '20250102030405_same_second'), '20250102030406');
    assert.equal(nextTimestamp(now, '20301231235959_future'), '20310101000000');
  });
});
