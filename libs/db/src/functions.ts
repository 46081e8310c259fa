// A service's database functions live as source files, one per function, in
// prisma/functions/<name>.sql; migrations are produced from them. Applied
// migrations are never edited, so a function's text would otherwise be spread
// over every migration that redefined it (crawl_take four times).
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { migrationDirs, nextTimestamp } from './diff';
import { MIGRATION_FILE } from './migrations';
import {
  dropParameters,
  type FunctionDefinition,
  type FunctionDrop,
  type FunctionRename,
  functionStatement,
  quoteName,
  renamed,
  sameSignature,
  splitStatements,
  withoutLayout,
} from './sql-script';

export const FUNCTIONS_DIR = 'functions';

/** The function statements of one SQL script, in order. */
export function functionStatements(sql: string): (FunctionDefinition | FunctionDrop | FunctionRename)[] {
  return splitStatements(sql).flatMap((s) => functionStatement(s.text) ?? []);
}

/**
 * Two definitions are the same when the database would keep the same function:
 * they may differ in `OR REPLACE` and in layout outside the body and the
 * literals, not inside them (a re-indented body is stored as written).
 */
export function sameDefinition(a: string, b: string): boolean {
  const kept = (s: string) => withoutLayout(s.replace(/^(\s*CREATE\s+)OR\s+REPLACE\s+/i, '$1'));
  return kept(a) === kept(b);
}

/**
 * Each function's definition as the migrations leave it, in order of last
 * definition: dropped ones gone, renamed ones under their new name.
 */
export async function migratedFunctions(migrationsDir: string): Promise<Map<string, FunctionDefinition>> {
  const defined = new Map<string, FunctionDefinition>();
  for (const dir of await migrationDirs(migrationsDir)) {
    const file = path.join(migrationsDir, dir, MIGRATION_FILE);
    if (!existsSync(file)) continue;
    for (const s of functionStatements(await readFile(file, 'utf8'))) {
      if (s.kind === 'rename') {
        const before = defined.get(s.from);
        defined.delete(s.from);
        if (before) defined.set(s.to, renamed(before, s.to));
        continue;
      }
      for (const name of s.kind === 'drop' ? s.names : [s.name]) defined.delete(name);
      if (s.kind === 'create') defined.set(s.name, s);
    }
  }
  return defined;
}

interface Source {
  /** The whole file, comments included: what a produced migration carries. */
  file: string;
  /** Its one statement: what is compared with the migrations. */
  definition: FunctionDefinition;
}

/** The source files of prisma/functions/, by function name (the file name without `.sql`). */
export async function functionSources(prismaDir: string): Promise<Map<string, Source>> {
  const dir = path.join(prismaDir, FUNCTIONS_DIR);
  const sources = new Map<string, Source>();
  if (!existsSync(dir)) return sources;
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort()) {
    const text = await readFile(path.join(dir, file), 'utf8');
    const name = file.slice(0, -'.sql'.length);
    // Anything else in the file would reach a produced migration without ever being compared.
    const statements = splitStatements(text);
    const definition = statements.length === 1 ? functionStatement(statements[0]?.text ?? '') : null;
    if (definition?.kind !== 'create' || definition.name !== name)
      throw new Error(
        `${path.join(dir, file)} must hold exactly one statement, CREATE OR REPLACE FUNCTION ${name} (comments aside)`,
      );
    sources.set(name, { file: text, definition });
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
      .filter(([name, source]) => !sameDefinition(source.definition.text, migrated.get(name)?.text ?? ''))
      .map(([name]) => name),
    withoutSource: [...migrated.keys()].filter((name) => !sources.has(name)).sort(),
  };
}

/**
 * Writes `<timestamp>_<name>/migration.sql` redefining every changed function
 * from its source, in the order the migrations last defined them (new ones
 * last), so one that calls another comes after it. Null when none changed.
 * A function whose parameters or result changed is dropped first: CREATE OR
 * REPLACE cannot change its result, and with other parameters it would add a
 * second function beside the old one.
 */
export async function functionsMigration(prismaDir: string, name: string): Promise<{ dir: string } | null> {
  const drift = await functionDrift(prismaDir);
  if (drift.changed.length === 0) return null;
  const migrationsDir = path.join(prismaDir, 'migrations');
  const sources = await functionSources(prismaDir);
  const migrated = await migratedFunctions(migrationsDir);
  const order = [...migrated.keys()];
  const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  const changed = [...drift.changed].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const redefinition = (n: string) => {
    const source = sources.get(n) as Source;
    const before = migrated.get(n);
    const text = source.file.trim();
    if (!before || sameSignature(before, source.definition)) return text;
    return `DROP FUNCTION ${quoteName(n)}(${dropParameters(before.parameters)});\n${text}`;
  };
  const sql = [`-- Produced from prisma/${FUNCTIONS_DIR}/ by \`wap-db functions\`: ${changed.join(', ')}.`]
    .concat(changed.map(redefinition))
    .join('\n\n');
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
  for (const [name, definition] of migrated) {
    if (sources.has(name)) continue;
    await mkdir(path.join(prismaDir, FUNCTIONS_DIR), { recursive: true });
    const replaceable = definition.text.replace(/^CREATE\s+FUNCTION/i, 'CREATE OR REPLACE FUNCTION');
    await writeFile(path.join(prismaDir, FUNCTIONS_DIR, `${name}.sql`), `${replaceable}\n`);
    written.push(name);
  }
  return written;
}
