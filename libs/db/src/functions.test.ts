import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { freshServiceDatabase } from './fresh';
import { extractFunctionSources, functionDrift, functionSources, functionsMigration } from './functions';
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

const TWICE = 'CREATE FUNCTION twice(x INTEGER) RETURNS INTEGER LANGUAGE sql AS $$ SELECT x * 2 $$;\n';

/** A service folder whose first migration is `first`. */
async function service(tag: string, first: string) {
  const tmp = await tempDir(tag);
  const prismaDir = path.join(tmp.dir, 'prisma');
  const migrationsDir = path.join(prismaDir, 'migrations');
  await writeMigrations(migrationsDir, [['20260101000000_init', first]]);
  const source = (name: string) => path.join(prismaDir, 'functions', `${name}.sql`);
  return { ...tmp, prismaDir, migrationsDir, source };
}

const functionsIn = (url: string, name: string) =>
  query<{ args: string; result: string; body: string }>(
    url,
    `SELECT pg_get_function_identity_arguments(oid) AS args, pg_get_function_result(oid) AS result, prosrc AS body
       FROM pg_proc WHERE proname = $1`,
    [name],
  );

describe('database functions as source files', () => {
  test('a changed source becomes a migration; a database migrated before applies just that and runs the new body', async () => {
    const svc = await service('fn-change', answer(1) + TWICE);
    try {
      await withDatabase('fn_apply', async (url) => {
        await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url });

        assert.deepEqual((await extractFunctionSources(svc.prismaDir)).sort(), ['answer', 'twice']);
        assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });
        assert.equal(await functionsMigration(svc.prismaDir, 'nothing'), null, 'no change, no migration');
        assert.equal(readdirSync(svc.migrationsDir).length, 2, 'the lockfile and the first migration only');

        // Edit the source only: the check names it, and the migration produced carries it, comment included.
        await writeFile(svc.source('answer'), answer(42, '-- The answer, now right.\n'));
        assert.deepEqual(await functionDrift(svc.prismaDir), { changed: ['answer'], withoutSource: [] });
        const written = await functionsMigration(svc.prismaDir, 'answer_fixed');
        assert.ok(written);
        const produced = path.basename(written.dir);
        assert.match(produced, /^\d{14}_answer_fixed$/);
        const sql = await readFile(path.join(written.dir, 'migration.sql'), 'utf8');
        assert.match(sql, /-- The answer, now right\.\nCREATE OR REPLACE FUNCTION answer\(\)/);
        assert.doesNotMatch(sql, /twice|DROP/, 'only the changed function, replaced in place');
        assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });
        assert.equal(await functionsMigration(svc.prismaDir, 'again'), null);

        assert.deepEqual(await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url }), [produced]);
        const [fn] = await functionsIn(url, 'answer');
        assert.match(fn?.body ?? '', /RETURN 42;/);
        assert.deepEqual(await query(url, 'SELECT answer() AS a, twice(4) AS t'), [{ a: 42, t: 8 }]);
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('new parameters or a new result: the old function is dropped first, so no second one is left', async () => {
    const svc = await service('fn-signature', TWICE);
    try {
      await withDatabase('fn_signature', async (url) => {
        await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url });
        await extractFunctionSources(svc.prismaDir);
        await writeFile(
          svc.source('twice'),
          'CREATE OR REPLACE FUNCTION twice(x BIGINT, by BIGINT DEFAULT 2) RETURNS BIGINT LANGUAGE sql AS $$ SELECT x * by $$;\n',
        );
        const written = await functionsMigration(svc.prismaDir, 'twice_bigint');
        assert.ok(written);
        assert.match(
          await readFile(path.join(written.dir, 'migration.sql'), 'utf8'),
          /DROP FUNCTION twice\(x INTEGER\);\nCREATE OR REPLACE FUNCTION twice\(x BIGINT/,
        );
        assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });

        await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url });
        assert.deepEqual(
          (await functionsIn(url, 'twice')).map(({ args, result }) => ({ args, result })),
          [{ args: 'x bigint, by bigint', result: 'bigint' }],
        );
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('a re-indented body is a change, as the database stores it as written; the layout around it is not', async () => {
    const svc = await service('fn-layout', answer(1));
    try {
      await withDatabase('fn_layout', async (url) => {
        await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url });
        await extractFunctionSources(svc.prismaDir);

        const reflowed = answer(1).replace('() RETURNS INTEGER\n', '()\n  -- no parameters\n  RETURNS  INTEGER\n');
        await writeFile(svc.source('answer'), reflowed);
        assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });

        await writeFile(svc.source('answer'), reflowed.replace('  RETURN 1;', '    RETURN 1;'));
        assert.deepEqual(await functionDrift(svc.prismaDir), { changed: ['answer'], withoutSource: [] });
        assert.ok(await functionsMigration(svc.prismaDir, 'answer_indented'));
        await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url });
        const [fn] = await functionsIn(url, 'answer');
        assert.match(fn?.body ?? '', /\n {4}RETURN 1;\n/);
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('a function renamed in a migration is known under its new name, with its text', async () => {
    const svc = await service('fn-rename', TWICE);
    try {
      await writeMigrations(svc.migrationsDir, [
        ['20260102000000_rename', 'ALTER FUNCTION twice(INTEGER) RENAME TO double_it;'],
      ]);
      assert.deepEqual(await extractFunctionSources(svc.prismaDir), ['double_it']);
      assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });
      assert.equal(await functionsMigration(svc.prismaDir, 'nothing'), null);

      await withDatabase('fn_rename', async (url) => {
        await applyMigrations({ migrationsDir: svc.migrationsDir, databaseUrl: url });
        const [fn] = await functionsIn(url, 'double_it');
        const source = await functionSources(svc.prismaDir);
        assert.match(source.get('double_it')?.definition.text ?? '', /FUNCTION double_it\(x INTEGER\)/);
        assert.equal(fn?.body, ' SELECT x * 2 ');
        assert.deepEqual(await functionsIn(url, 'twice'), []);
      });
    } finally {
      await svc.cleanup();
    }
  });

  test('a function written only in a migration, or a source file holding more than its function, is refused', async () => {
    const svc = await service(
      'fn-missing',
      `-- CREATE FUNCTION gone(x INT) was planned here once;\n${answer(1)}${TWICE}`,
    );
    try {
      await mkdir(path.join(svc.prismaDir, 'functions'));
      await writeFile(svc.source('answer'), answer(1));
      assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: ['twice'] });

      await writeFile(svc.source('twice'), answer(2));
      await assert.rejects(functionDrift(svc.prismaDir), /twice\.sql must hold exactly one statement/);
      // A grant beside the function would reach a migration without ever being compared with one.
      await writeFile(svc.source('twice'), `${TWICE}GRANT EXECUTE ON FUNCTION twice(INTEGER) TO PUBLIC;\n`);
      await assert.rejects(functionDrift(svc.prismaDir), /twice\.sql must hold exactly one statement/);
      await writeFile(svc.source('twice'), `-- Doubles.\n${TWICE}-- a comment after it is fine\n`);
      assert.deepEqual(await functionDrift(svc.prismaDir), { changed: [], withoutSource: [] });
    } finally {
      await svc.cleanup();
    }
  });

  const services = path.resolve(__dirname, '..', '..', '..', 'services');
  const withFunctions = readdirSync(services).filter((name) =>
    readdirSync(path.join(services, name, 'prisma')).includes('functions'),
  );

  test("every service's function sources agree with its migrations", async () => {
    assert.ok(withFunctions.includes('crawl'), withFunctions.join());
    for (const name of readdirSync(services)) {
      const drift = await functionDrift(path.join(services, name, 'prisma'));
      assert.deepEqual(
        drift,
        { changed: [], withoutSource: [] },
        `${name}: run wap-db functions services/${name} <name>`,
      );
    }
  });

  test("a service's migrated database holds exactly the functions of its sources, with their bodies", async () => {
    for (const name of withFunctions) {
      const sources = await functionSources(path.join(services, name, 'prisma'));
      const db = await freshServiceDatabase(path.join(services, name));
      try {
        const rows = await query<{ name: string; body: string }>(
          db.url,
          `SELECT p.proname AS name, p.prosrc AS body FROM pg_proc p
             JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public'
            WHERE NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
`,
        );
        assert.deepEqual(rows.map((r) => r.name).sort(), [...sources.keys()].sort(), name);
        for (const { name: fn, body } of rows) {
          const text = sources.get(fn)?.definition.text ?? '';
          const quoted = /\bAS\s+(\$\w*\$)([\s\S]*?)\1/i.exec(text);
          assert.equal(body, quoted?.[2], `${name}: ${fn}`);
        }
      } finally {
        await db.drop();
      }
    }
  });
});
