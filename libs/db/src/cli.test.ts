import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { dropDatabase } from './database';
import { adminUrl, FIXTURE_DIR, query, tempDir, uniqueDbName, withDatabase, writeMigrations } from './test-support';

const CLI = path.join(__dirname, 'cli.js');

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { ...process.env };
  for (const k of ['DATABASE_URL', 'DATABASE_ADMIN_URL', 'DATABASE_NAME']) delete base[k];
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...base, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The CLI's contract: exactly one error line, and it is the last thing on stderr. */
function errorLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.filter((l) => l.startsWith('wap-db: error:')).length, 1, stderr);
  assert.doesNotMatch(stderr, /ExperimentalWarning/);
  return lines.at(-1) ?? '';
}

describe('wap-db CLI', () => {
  test('migrate applies the fixture migrations, then reports the database up to date', async () => {
    await withDatabase('cli', async (url) => {
      const first = await run(['migrate', FIXTURE_DIR], { DATABASE_URL: url });
      assert.equal(first.code, 0, first.stderr);
      const names = (await readdir(path.join(FIXTURE_DIR, 'prisma', 'migrations'), { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
      assert.equal(first.stdout, `applied ${names.join(', ')}\n`);
      assert.doesNotMatch(first.stderr, /ExperimentalWarning/);
      const second = await run(['migrate', FIXTURE_DIR], { DATABASE_URL: url });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, 'database is up to date\n');
    });
  });

  test('migrate creates the database first from DATABASE_ADMIN_URL and DATABASE_NAME', async () => {
    const name = uniqueDbName('clicreate');
    try {
      const res = await run(['migrate', FIXTURE_DIR], { DATABASE_ADMIN_URL: adminUrl(), DATABASE_NAME: name });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /database created/);
      assert.equal((await query(adminUrl(), 'SELECT 1 FROM pg_database WHERE datname = $1', [name])).length, 1);
    } finally {
      await dropDatabase(adminUrl(), name);
    }
  });

  test('a failed migration exits 1 naming it; resolve --rolled-back recovers', async () => {
    const svc = await tempDir('clifail');
    const migrations = path.join(svc.dir, 'prisma', 'migrations');
    try {
      await writeMigrations(migrations, [
        ['20240101000000_a', 'CREATE TABLE a (id int);\n'],
        ['20240102000000_b', 'CREATE TABLE b (id int);\nSELECT no_such_function();\n'],
      ]);
      await withDatabase('clifail', async (url) => {
        const failed = await run(['migrate', svc.dir], { DATABASE_URL: url });
        assert.equal(failed.code, 1);
        assert.match(errorLine(failed.stderr), /^wap-db: error: migration 20240102000000_b failed: .*no_such_function/);

        const typo = await run(['resolve', svc.dir, '--rolled-back', '20240102000000_typo'], { DATABASE_URL: url });
        assert.equal(typo.code, 1);
        assert.match(errorLine(typo.stderr), /no migration 20240102000000_typo/);

        await writeFile(path.join(migrations, '20240102000000_b', 'migration.sql'), 'CREATE TABLE b (id int);\n');
        const resolved = await run(['resolve', svc.dir, '--rolled-back', '20240102000000_b'], { DATABASE_URL: url });
        assert.equal(resolved.code, 0, resolved.stderr);
        const retried = await run(['migrate', svc.dir], { DATABASE_URL: url });
        assert.equal(retried.code, 0, retried.stderr);
        assert.equal(retried.stdout, 'applied 20240102000000_b\n');
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('functions fails while a source and the migrations disagree; with a name it writes the migration', async () => {
    const svc = await tempDir('clifunctions');
    const prisma = path.join(svc.dir, 'prisma');
    const one = (n: number) => `CREATE OR REPLACE FUNCTION one() RETURNS INT LANGUAGE sql AS $$ SELECT ${n} $$;\n`;
    try {
      await writeMigrations(path.join(prisma, 'migrations'), [['20240101000000_a', one(1)]]);
      await mkdir(path.join(prisma, 'functions'));
      await writeFile(path.join(prisma, 'functions', 'one.sql'), one(1));
      const agreed = await run(['functions', svc.dir]);
      assert.equal(agreed.code, 0, agreed.stderr);

      await writeFile(path.join(prisma, 'functions', 'one.sql'), one(2));
      const forgot = await run(['functions', svc.dir]);
      assert.equal(forgot.code, 1);
      assert.match(errorLine(forgot.stderr), /^wap-db: error: functions out of step .*one: the source differs/);

      const produced = await run(['functions', svc.dir, 'one is two']);
      assert.equal(produced.code, 0, produced.stderr);
      assert.match(produced.stdout, /prisma\/migrations\/\d{14}_one_is_two\n$/);
      assert.equal((await run(['functions', svc.dir])).code, 0);
      assert.equal((await run(['functions', svc.dir, 'again'])).stdout, 'no function changes\n');

      const typo = await run(['functions', path.join(svc.dir, 'nowhere')]);
      assert.equal(typo.code, 1);
      assert.match(errorLine(typo.stderr), /no prisma folder/);
    } finally {
      await svc.cleanup();
    }
  });

  test('diff reports an unchanged schema; bad usage exits 2 with one line', async () => {
    const svc = await tempDir('clidiff');
    try {
      await cp(path.join(FIXTURE_DIR, 'prisma'), path.join(svc.dir, 'prisma'), { recursive: true });
      const diff = await run(['diff', svc.dir, 'nothing']);
      assert.equal(diff.code, 0, diff.stderr);
      assert.equal(diff.stdout, 'no schema changes\n');

      for (const args of [['frobnicate'], ['diff', svc.dir], ['migrate', svc.dir], ['functions']]) {
        const res = await run(args);
        assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
        assert.match(errorLine(res.stderr), /^wap-db: error: .*\(see wap-db --help\)$/);
      }
      const bare = await run([]);
      assert.equal(bare.code, 2);
      assert.match(bare.stdout, /usage:/);
    } finally {
      await svc.cleanup();
    }
  });
});
