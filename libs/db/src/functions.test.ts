import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { extractFunctionSources, functionDrift, functionStatements, functionsMigration } from './functions';
import { applyMigrations } from './migrations';
import { query, tempDir, withDatabase, writeMigrations } from './test-support';

const answer = (n: number, comment = '') => `${comment}CREATE OR REPLACE FUNCTION answer() RETURNS INTEGER
LANGUAGE plpgsql AS $body$
BEGIN
  -- a semicolon in a comment; and one in a string: ';'
  RETURN ${n};
END;
$body$;
`;

/** A service folder whose first migration defines answer() and twice() as given. */
async function service(tag: string, first: string) {
  const tmp = await tempDir(tag);
  const prismaDir = path.join(tmp.dir, 'prisma');
  await writeMigrations(path.join(prismaDir, 'migrations'), [['20260101000000_init', first]]);
  return { ...tmp, prismaDir };
}

const TWICE = 'CREATE FUNCTION twice(x INTEGER) RETURNS INTEGER LANGUAGE sql AS $$ SELECT x * 2 $$;\n';

describe('database functions as source files', () => {
  test('statements are found whole: dollar-quoted bodies, comments and strings holding semicolons, drops', () => {
    const sql = `${answer(1)}\nDROP FUNCTION IF EXISTS "twice"(INTEGER);\n${TWICE}CREATE TRIGGER t BEFORE UPDATE ON x EXECUTE FUNCTION answer();`;
    const found = functionStatements(sql);
    assert.deepEqual(
      found.map((s) => [s.kind, s.name]),
      [
        ['create', 'answer'],
        ['drop', 'twice'],
        ['create', 'twice'],
      ],
    );
    assert.ok(found[0]?.text.endsWith('$body$;'), found[0]?.text);
    assert.equal(found[2]?.text, TWICE.trim());
  });

  test('sources extracted from the migrations agree with them; a changed source becomes a migration that applies', async () => {
    const svc = await service('fn-change', answer(1) + TWICE);
    try {
      assert.deepEqual((await extractFunctionSources(svc.prismaDir)).sort(), ['answer', 'twice']);
      assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });
      assert.equal(await functionsMigration(svc.prismaDir, 'nothing'), null, 'no change, no migration');

      // Edit the source only: the check names it, and the migration produced carries it.
      const source = path.join(svc.prismaDir, 'functions', 'answer.sql');
      await writeFile(source, answer(42, '-- The answer, now right.\n'));
      assert.deepEqual((await functionDrift(svc.prismaDir)).changed, ['answer']);
      const written = await functionsMigration(svc.prismaDir, 'answer_fixed');
      assert.ok(written);
      assert.match(path.basename(written.dir), /^\d{14}_answer_fixed$/);
      assert.match(await readFile(path.join(written.dir, 'migration.sql'), 'utf8'), /RETURN 42;/);
      assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });

      await withDatabase('fn_apply', async (url) => {
        await applyMigrations({ migrationsDir: path.join(svc.prismaDir, 'migrations'), databaseUrl: url });
        const [row] = await query<{ a: number; t: number }>(url, 'SELECT answer() AS a, twice(4) AS t');
        assert.deepEqual(row, { a: 42, t: 8 });
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('a function written only in a migration, or a source file with the wrong function, is refused', async () => {
    const svc = await service('fn-missing', answer(1) + TWICE);
    try {
      await mkdir(path.join(svc.prismaDir, 'functions'));
      await writeFile(path.join(svc.prismaDir, 'functions', 'answer.sql'), answer(1));
      assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: ['twice'] });
      await writeFile(path.join(svc.prismaDir, 'functions', 'twice.sql'), answer(2));
      await assert.rejects(functionDrift(svc.prismaDir), /must hold exactly one CREATE OR REPLACE FUNCTION twice/);
    } finally {
      await svc.cleanup();
    }
  });

  test("every service's function sources agree with its migrations", async () => {
    const services = path.resolve(__dirname, '..', '..', '..', 'services');
    for (const name of readdirSync(services)) {
      const drift = await functionDrift(path.join(services, name, 'prisma'));
      assert.deepEqual(
        drift,
        { changed: [], withoutSource: [] },
        `${name}: run wap-db functions services/${name} <name>`,
      );
    }
  });
});
