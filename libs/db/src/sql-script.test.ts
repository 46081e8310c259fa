import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dropParameters, functionStatement, renamed, splitStatements, withoutLayout } from './sql-script';

describe('SQL scripts cut into statements', () => {
  test('semicolons inside comments, strings, quoted names and dollar-quoted bodies do not end a statement', () => {
    const sql = `-- a leading comment; with a semicolon
CREATE TABLE "odd;name" (v TEXT DEFAULT 'it''s; fine', w TEXT DEFAULT E'a\\'; b');
/* a /* nested */ comment; */
CREATE FUNCTION f() RETURNS INT LANGUAGE plpgsql AS $fn1$
BEGIN
  EXECUTE 'DROP FUNCTION g()'; -- a statement of the body, not of the script
  RETURN $$;$$::text::int;
END $fn1$;
;
SELECT 1`;
    const statements = splitStatements(sql).map((s) => s.text);
    assert.equal(statements.length, 3, statements.join('\n----\n'));
    assert.match(statements[0] ?? '', /^CREATE TABLE "odd;name" .*b'\);$/);
    assert.match(statements[1] ?? '', /^CREATE FUNCTION f\(\)[\s\S]*END \$fn1\$;$/);
    assert.equal(statements[2], 'SELECT 1');
    assert.deepEqual(
      statements.map((s) => functionStatement(s)?.kind ?? null),
      [null, 'create', null],
      'the DROP inside the body is not a statement of the script',
    );
  });

  test('a CREATE FUNCTION in a comment or a string is no statement', () => {
    const sql = `-- CREATE FUNCTION old_idea(x INT) RETURNS INT AS $$ SELECT 1 $$;
COMMENT ON TABLE t IS 'see CREATE FUNCTION h()';`;
    assert.deepEqual(
      splitStatements(sql).map((s) => functionStatement(s.text)),
      [null],
    );
  });

  test('unterminated bodies and strings are refused, not read to the end', () => {
    assert.throws(() => splitStatements('CREATE FUNCTION f() RETURNS INT AS $$ SELECT 1;'), /unterminated \$\$/);
    assert.throws(() => splitStatements("SELECT 'x;"), /unterminated string/);
  });

  test('layout goes, what the database stores stays: bodies, strings and quoted names as written', () => {
    const sql = `CREATE FUNCTION f(x INT, -- the input
      y  TEXT DEFAULT 'a  b' /* two spaces kept */)
  RETURNS "odd  name"
  LANGUAGE plpgsql AS $$
BEGIN
    RETURN 1; -- inside the body: kept
END $$;`;
    assert.equal(
      withoutLayout(sql),
      `CREATE FUNCTION f(x INT, y TEXT DEFAULT 'a  b' ) RETURNS "odd  name" LANGUAGE plpgsql AS $$
BEGIN
    RETURN 1; -- inside the body: kept
END $$;`,
    );
  });
});

describe('function statements', () => {
  test('names fold to lower case unless quoted; the public schema goes unsaid', () => {
    const name = (sql: string) => {
      const s = functionStatement(sql);
      return s?.kind === 'create' ? s.name : s?.kind === 'drop' ? s.names : s;
    };
    assert.equal(name('CREATE FUNCTION Crawl_Take() RETURNS INT AS $$ SELECT 1 $$;'), 'crawl_take');
    assert.equal(
      name('CREATE OR REPLACE FUNCTION "ledger_draw" (x INT) RETURNS INT AS $$ SELECT 1 $$;'),
      'ledger_draw',
    );
    assert.equal(name('create or replace function public."Mixed"() returns int as $$ select 1 $$;'), 'Mixed');
    assert.equal(name('CREATE FUNCTION audit.log_it() RETURNS INT AS $$ SELECT 1 $$;'), 'audit.log_it');
    assert.deepEqual(name('DROP FUNCTION IF EXISTS a(INT, TEXT), "b", public.c(x UUID) CASCADE;'), ['a', 'b', 'c']);
  });

  test('a rename or a move to another schema is the same function under a new name; other ALTERs change nothing', () => {
    const rename = (sql: string) => {
      const s = functionStatement(sql);
      return s?.kind === 'rename' ? `${s.from} -> ${s.to}` : s;
    };
    assert.equal(rename('ALTER FUNCTION Old_Name(x INT) RENAME TO "New Name";'), 'old_name -> New Name');
    assert.equal(rename('ALTER FUNCTION audit.f RENAME TO g;'), 'audit.f -> audit.g');
    assert.equal(rename('ALTER FUNCTION public.f(INT) SET SCHEMA audit;'), 'f -> audit.f');
    assert.equal(rename('ALTER FUNCTION audit.f() SET SCHEMA public;'), 'audit.f -> f');
    assert.equal(rename('ALTER FUNCTION f(INT) OWNER TO ledger;'), null);
    assert.equal(rename("ALTER FUNCTION f(INT) SET search_path = 'public';"), null);

    const f = functionStatement('CREATE OR REPLACE FUNCTION public.f (x INT) RETURNS INT AS $$ SELECT x $$;');
    assert.equal(f?.kind, 'create');
    if (f?.kind !== 'create') return;
    assert.equal(
      renamed(f, 'New Name').text,
      'CREATE OR REPLACE FUNCTION "New Name" (x INT) RETURNS INT AS $$ SELECT x $$;',
    );
  });

  test('parameters and result are read as written, defaults and table results included', () => {
    const table =
      functionStatement(`CREATE OR REPLACE FUNCTION crawl_take(p_crawl UUID, p_key TEXT DEFAULT 'a,b', p_n INT = 3)
RETURNS TABLE (kind TEXT, wait_ms INTEGER)
LANGUAGE plpgsql AS $$ BEGIN END $$;`);
    assert.equal(table?.kind, 'create');
    if (table?.kind !== 'create') return;
    assert.equal(table.parameters, "p_crawl UUID, p_key TEXT DEFAULT 'a,b', p_n INT = 3");
    assert.equal(table.returns, 'RETURNS TABLE (kind TEXT, wait_ms INTEGER)');
    assert.equal(dropParameters(table.parameters), 'p_crawl UUID, p_key TEXT, p_n INT');

    const plain = functionStatement(
      'CREATE FUNCTION "ledger_lock_account"(p_ws text) RETURNS "accounts" STABLE LANGUAGE sql AS $$ SELECT 1 $$;',
    );
    assert.equal(plain?.kind === 'create' && plain.returns, 'RETURNS "accounts"');
    const setof = functionStatement(
      'CREATE FUNCTION f(a numeric(10, 2)) RETURNS SETOF timestamp with time zone AS $$ SELECT now() $$ LANGUAGE sql;',
    );
    assert.equal(setof?.kind === 'create' && setof.returns, 'RETURNS SETOF timestamp with time zone');
    assert.equal(setof?.kind === 'create' && dropParameters(setof.parameters), 'a numeric(10, 2)');
  });
});
