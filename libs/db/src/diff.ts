// Authors migrations without any database (`migrate dev` needs a shadow
// database, and diffing from the migrations themselves fails through the
// adapter): diff the schema as of the last migration, kept beside the
// migrations, against the current schema.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type LogFn, NO_FILTERS, openEngine, summariseError } from './engine';
import { LOCKFILE_CONTENT, LOCKFILE_NAME, MIGRATION_FILE } from './migrations';

/**
 * Not `.prisma`: Prisma loads every .prisma file under a folder given as
 * --schema, and a second copy of every model would break that.
 */
export const SNAPSHOT_FILE = 'schema.prisma.snapshot';

export interface DiffOptions {
  schemaPath: string;
  migrationsDir: string;
  /** Human part of the directory name, e.g. "add_users". */
  name: string;
  log?: LogFn;
}

export interface AuthoredMigration {
  /** Directory name, `<yyyymmddHHMMSS>_<name>`. */
  name: string;
  dir: string;
  sql: string;
}

/**
 * Writes `<timestamp>_<name>/migration.sql` (plus migration_lock.toml and the
 * updated snapshot) for the changes since the last migration, or returns null
 * and writes nothing when the schema's database shape did not change.
 */
export async function diffMigration(opts: DiffOptions): Promise<AuthoredMigration | null> {
  const suffix = migrationSuffix(opts.name);
  const migrationsDir = path.resolve(opts.migrationsDir);
  const schemaFiles = await readSchemaFiles(opts.schemaPath);
  const schema = combineSchema(schemaFiles);
  const snapshotPath = path.join(migrationsDir, SNAPSHOT_FILE);
  const existing = await migrationDirs(migrationsDir);
  const previous = existsSync(snapshotPath) ? await readFile(snapshotPath, 'utf8') : null;
  if (previous === null && existing.length > 0) {
    // Diffing from empty would re-create every table the migrations already made.
    throw new Error(
      `${snapshotPath} is missing but ${existing.length} migration(s) exist; restore it from the schema as of the last migration (e.g. git show <rev>:<schema>)`,
    );
  }

  const file = 'schema.prisma';
  const session = await openEngine(null, opts.log);
  let result: { exitCode: number; stdout: string | null };
  try {
    result = await session.engine.diff({
      from:
        previous === null ? { tag: 'empty' } : { tag: 'schemaDatamodel', files: [{ path: file, content: previous }] },
      to: { tag: 'schemaDatamodel', files: schemaFiles },
      script: true,
      // With exitCode set the engine answers 2 when there is a difference, 0 when none.
      exitCode: true,
      filters: NO_FILTERS,
    });
  } catch (e) {
    const cause = session.explain(e);
    throw new Error(`cannot diff ${opts.schemaPath}: ${summariseError(cause.message)}`, { cause });
  } finally {
    await session.close();
  }
  if (result.exitCode !== 2 || !result.stdout) {
    opts.log?.('schema unchanged, no migration written', { schema: opts.schemaPath });
    return null;
  }

  const name = `${nextTimestamp(new Date(), existing.at(-1))}_${suffix}`;
  const dir = path.join(migrationsDir, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, MIGRATION_FILE), result.stdout);
  await writeFile(path.join(migrationsDir, LOCKFILE_NAME), LOCKFILE_CONTENT);
  await writeFile(snapshotPath, schema);
  opts.log?.('migration written', { migration: name, dir });
  return { name, dir, sql: result.stdout };
}

/**
 * A schema is one file or, as Prisma allows, a folder of `.prisma` files (a
 * service's folder links the models libs/events needs in every database).
 */
export async function readSchemaFiles(schemaPath: string): Promise<{ path: string; content: string }[]> {
  if (!(await stat(schemaPath)).isDirectory()) {
    return [{ path: path.basename(schemaPath), content: await readFile(schemaPath, 'utf8') }];
  }
  const names = (await readdir(schemaPath)).filter((n) => n.endsWith('.prisma')).sort();
  return Promise.all(names.map(async (n) => ({ path: n, content: await readFile(path.join(schemaPath, n), 'utf8') })));
}

/** The snapshot keeps a folder's files as one schema, each under a marker line. */
function combineSchema(files: { path: string; content: string }[]): string {
  if (files.length === 1) return files[0]?.content ?? '';
  return files.map((f) => `// ---- ${f.path} ----\n${f.content.trimEnd()}\n`).join('\n');
}

/** Mirrors the CLI: lowercase words joined by underscores. */
export function migrationSuffix(name: string): string {
  const suffix = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200);
  if (!suffix) throw new Error(`invalid migration name: ${JSON.stringify(name)}`);
  return suffix;
}

export async function migrationDirs(migrationsDir: string): Promise<string[]> {
  if (!existsSync(migrationsDir)) return [];
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b));
}

/**
 * UTC yyyymmddHHMMSS, bumped past the last migration's timestamp so that two
 * migrations authored within one second (or on a skewed clock) still apply
 * in the order they were written.
 */
export function nextTimestamp(now: Date, lastMigration?: string): string {
  let t = Math.floor(now.getTime() / 1000) * 1000;
  const last = lastMigration ? /^(\d{14})/.exec(lastMigration)?.[1] : undefined;
  if (last) {
    const lastMs = Date.UTC(
      +last.slice(0, 4),
      +last.slice(4, 6) - 1,
      +last.slice(6, 8),
      +last.slice(8, 10),
      +last.slice(10, 12),
      +last.slice(12, 14),
    );
    if (t <= lastMs) t = lastMs + 1000;
  }
  return new Date(t).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
