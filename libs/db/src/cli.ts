#!/usr/bin/env node
import { existsSync } from 'node:fs';
// wap-db: what a service's deploy Job and its developers run. Logs go to
// stderr, results to stdout; any failure exits non-zero with one line.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { databaseUrlFor, ensureDatabase } from './database';
import { diffMigration, migrationSuffix } from './diff';
import type { LogFn } from './engine';
import { functionDrift, functionsMigration } from './functions';
import { generateClient } from './generate';
import { applyMigrations, markRolledBack, readMigrations } from './migrations';

const USAGE = `usage:
  wap-db migrate <serviceDir>        apply pending migrations (DATABASE_URL; with DATABASE_ADMIN_URL
                                     and DATABASE_NAME the database is created first)
  wap-db diff <serviceDir> <name>    author a migration from the schema changes
  wap-db generate <serviceDir>       generate the Prisma client
  wap-db functions <serviceDir> [<name>]
                                     check prisma/functions/ against the migrations; with <name>,
                                     write a migration redefining the changed functions
  wap-db resolve <serviceDir> --rolled-back <migration>
                                     mark a failed migration rolled back (DATABASE_URL)`;

class UsageError extends Error {}

const log: LogFn = (msg, fields) => {
  const extra = fields && Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
  process.stderr.write(`wap-db: ${msg}${extra}\n`);
};

function paths(serviceDir: string | undefined) {
  if (!serviceDir) throw new UsageError('missing <serviceDir>');
  const prismaDir = path.resolve(serviceDir, 'prisma');
  // A folder of schema files (prisma/schema/) when the service has one, else the single file.
  const folder = path.join(prismaDir, 'schema');
  const schemaPath = existsSync(folder) ? folder : path.join(prismaDir, 'schema.prisma');
  return { schemaPath, migrationsDir: path.join(prismaDir, 'migrations') };
}

async function databaseUrl(): Promise<string> {
  const admin = process.env.DATABASE_ADMIN_URL;
  const name = process.env.DATABASE_NAME;
  if (admin && name) {
    if (await ensureDatabase(admin, name)) log('database created', { database: name });
  }
  const url = process.env.DATABASE_URL || (admin && name ? databaseUrlFor(admin, name) : undefined);
  if (!url) throw new UsageError('DATABASE_URL is not set');
  return url;
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { 'rolled-back': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv);
  const [command, ...rest] = values.help ? ['--help'] : positionals;
  switch (command) {
    case 'migrate': {
      const { migrationsDir } = paths(rest[0]);
      const applied = await applyMigrations({ migrationsDir, databaseUrl: await databaseUrl(), log });
      process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
      return;
    }
    case 'diff': {
      const { schemaPath, migrationsDir } = paths(rest[0]);
      if (!rest[1]) throw new UsageError('missing <name>');
      const written = await diffMigration({ schemaPath, migrationsDir, name: rest[1], log });
      process.stdout.write(written ? `${path.relative(process.cwd(), written.dir)}\n` : 'no schema changes\n');
      return;
    }
    case 'generate': {
      await generateClient(paths(rest[0]).schemaPath, { log });
      return;
    }
    case 'functions': {
      const { migrationsDir } = paths(rest[0]);
      const prismaDir = path.dirname(migrationsDir);
      if (!existsSync(prismaDir)) throw new Error(`no prisma folder in ${rest[0]}`);
      if (rest[1]) {
        const written = await functionsMigration(prismaDir, migrationSuffix(rest[1]));
        process.stdout.write(written ? `${path.relative(process.cwd(), written.dir)}\n` : 'no function changes\n');
      }
      const drift = await functionDrift(prismaDir);
      const problems = [
        ...drift.changed.map((n) => `${n}: the source differs from the migrations (run wap-db functions <dir> <name>)`),
        ...drift.withoutSource.map((n) => `${n}: defined in a migration but has no prisma/functions/${n}.sql`),
      ];
      if (problems.length > 0) throw new Error(`functions out of step in ${rest[0]}: ${problems.join('; ')}`);
      return;
    }
    case 'resolve': {
      const { migrationsDir } = paths(rest[0]);
      const migration = values['rolled-back'];
      if (!migration) throw new UsageError('missing --rolled-back <migration>');
      // Guards against typos: the engine would only say it was never applied.
      const known = (await readMigrations(migrationsDir)).migrationDirectories.map((d) => d.path);
      if (!known.includes(migration)) throw new Error(`no migration ${migration} in ${migrationsDir}`);
      await markRolledBack({ databaseUrl: await databaseUrl(), migration, log });
      process.stdout.write(`marked ${migration} rolled back\n`);
      return;
    }
    case undefined:
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      if (command === undefined) process.exitCode = 2;
      return;
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

// Loading the wasm schema engine prints Node's ExperimentalWarning on every
// run; it says nothing actionable to whoever reads a deploy log.
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name === 'ExperimentalWarning' && /WebAssembly/i.test(w.message)) return;
  process.stderr.write(`${w.name}: ${w.message}\n`);
});

main(process.argv.slice(2))
  .catch((e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    const hint = e instanceof UsageError ? ' (see wap-db --help)' : '';
    process.stderr.write(`wap-db: error: ${message.split('\n')[0]}${hint}\n`);
    process.exitCode = e instanceof UsageError ? 2 : 1;
  })
  // Exit now: the wasm engine leaves a 10 s timer behind (its advisory-lock
  // timeout, never cleared), which would otherwise hold every run open.
  .finally(() => process.exit());
