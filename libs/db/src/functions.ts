// A service's database functions live as source files, one per function, in
// prisma/functions/<name>.sql; migrations are produced from them. Applied
// migrations are never edited, so a function's text would otherwise be spread
// over every migration that redefined it (crawl_take four times).
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { migrationDirs, nextTimestamp } from './diff';
import { MIGRATION_FILE } from './migrations';

export const FUNCTIONS_DIR = 'functions';

/** One `CREATE [OR REPLACE] FUNCTION` statement, or a `DROP FUNCTION`. */
interface Statement {
  name: string;
  kind: 'create' | 'drop';
  /** The whole statement, semicolon included. */
  text: string;
}

const CREATE = /\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+("?)([A-Za-z_][\w.]*)\1\s*\(/gi;
const DROP = /\bDROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?("?)([A-Za-z_][\w.]*)\1/gi;

/** Where the statement that starts at `from` ends: past its dollar-quoted body, at its semicolon. */
function statementEnd(sql: string, from: number): number {
  let i = from;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === ';') return i + 1;
    if (ch === "'") {
      i = sql.indexOf("'", i + 1) + 1 || sql.length;
      continue;
    }
    if (ch === '-' && sql[i + 1] === '-') {
      i = sql.indexOf('\n', i) + 1 || sql.length;
      continue;
    }
    if (ch === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, i + tag.length);
        if (close < 0) throw new Error(`unterminated ${tag} body`);
        i = close + tag.length;
        continue;
      }
    }
    i++;
  }
  throw new Error('statement without a closing semicolon');
}

/** The function statements of one SQL script, in order. */
export function functionStatements(sql: string): Statement[] {
  const found: (Statement & { at: number })[] = [];
  for (const [re, kind] of [
    [CREATE, 'create'],
    [DROP, 'drop'],
  ] as const) {
    for (const m of sql.matchAll(re)) {
      const at = m.index ?? 0;
      found.push({ name: (m[2] as string).toLowerCase(), kind, at, text: sql.slice(at, statementEnd(sql, at)) });
    }
  }
  return found.sort((a, b) => a.at - b.at).map(({ at: _at, ...s }) => s);
}

/** Two definitions are the same when they differ only in whitespace or in `OR REPLACE`. */
export function sameDefinition(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .replace(/^(\s*CREATE\s+)OR\s+REPLACE\s+/i, '$1')
      .replace(/\s+/g, ' ')
      .trim();
  return norm(a) === norm(b);
}

/** Each function's definition as the migrations leave it (dropped ones gone), in order of last definition. */
export async function migratedFunctions(migrationsDir: string): Promise<Map<string, string>> {
  const defined = new Map<string, string>();
  for (const dir of await migrationDirs(migrationsDir)) {
    const file = path.join(migrationsDir, dir, MIGRATION_FILE);
    if (!existsSync(file)) continue;
    for (const s of functionStatements(await readFile(file, 'utf8'))) {
      defined.delete(s.name);
      if (s.kind === 'create') defined.set(s.name, s.text);
    }
  }
  return defined;
}

interface Source {
  /** The whole file, comments included: what a produced migration carries. */
  file: string;
  /** Its one CREATE statement: what is compared with the migrations. */
  statement: string;
}

/** The source files of prisma/functions/, by function name (the file name without `.sql`). */
export async function functionSources(prismaDir: string): Promise<Map<string, Source>> {
  const dir = path.join(prismaDir, FUNCTIONS_DIR);
  const sources = new Map<string, Source>();
  if (!existsSync(dir)) return sources;
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort()) {
    const text = await readFile(path.join(dir, file), 'utf8');
    const statements = functionStatements(text);
    const name = file.slice(0, -'.sql'.length).toLowerCase();
    if (statements.length !== 1 || statements[0]?.kind !== 'create' || statements[0].name !== name)
      throw new Error(`${path.join(dir, file)} must hold exactly one CREATE OR REPLACE FUNCTION ${name}`);
    sources.set(name, { file: text, statement: statements[0].text });
  }
  return sources;
}

export interface FunctionDrift {
  /** Sources whose text the migrations do not end with (new or changed): a migration is due. */
  changed: string[];
  /** Functions the migrations define that have no source file. */
  withoutSource: string[];
}

export async function functionDrift(prismaDir: string): Promise<FunctionDrift> {
  const [sources, migrated] = await Promise.all([
    functionSources(prismaDir),
    migratedFunctions(path.join(prismaDir, 'migrations')),
  ]);
  return {
    changed: [...sources]
      .filter(([name, source]) => !sameDefinition(source.statement, migrated.get(name) ?? ''))
      .map(([name]) => name),
    withoutSource: [...migrated.keys()].filter((name) => !sources.has(name)).sort(),
  };
}

/**
 * Writes `<timestamp>_<name>/migration.sql` redefining every changed function
 * from its source, in the order the migrations last defined them (new ones
 * last), so one that calls another comes after it. Null when none changed.
 * A changed argument list or return type needs a DROP FUNCTION added by hand
 * above its definition: CREATE OR REPLACE cannot change either.
 */
export async function functionsMigration(prismaDir: string, name: string): Promise<{ dir: string } | null> {
  const drift = await functionDrift(prismaDir);
  if (drift.changed.length === 0) return null;
  const migrationsDir = path.join(prismaDir, 'migrations');
  const sources = await functionSources(prismaDir);
  const order = [...(await migratedFunctions(migrationsDir)).keys()];
  const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  const changed = [...drift.changed].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const sql = [
    `-- Produced from prisma/${FUNCTIONS_DIR}/ by \`wap-db functions\`: ${changed.join(', ')}.`,
    ...changed.map((n) => (sources.get(n) as Source).file.trim()),
  ].join('\n\n');
  const dirName = `${nextTimestamp(new Date(), (await migrationDirs(migrationsDir)).at(-1))}_${name}`;
  const dir = path.join(migrationsDir, dirName);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, MIGRATION_FILE), `${sql}\n`);
  return { dir };
}

/** Writes a source file for every migrated function that has none, from its last definition. */
export async function extractFunctionSources(prismaDir: string): Promise<string[]> {
  const migrated = await migratedFunctions(path.join(prismaDir, 'migrations'));
  const sources = await functionSources(prismaDir);
  const written: string[] = [];
  for (const [name, text] of migrated) {
    if (sources.has(name)) continue;
    await mkdir(path.join(prismaDir, FUNCTIONS_DIR), { recursive: true });
    const replaceable = text.replace(/^CREATE\s+FUNCTION/i, 'CREATE OR REPLACE FUNCTION');
    await writeFile(path.join(prismaDir, FUNCTIONS_DIR, `${name}.sql`), `${replaceable}\n`);
    written.push(name);
  }
  return written;
}
