// Drives Prisma's WebAssembly schema engine. The native schema-engine binary
// cannot be downloaded here (nor in an air-gapped cluster), so nothing in this
// library may depend on it.
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type ErrorCapturingSqlMigrationAwareDriverAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm';
import pg from 'pg';

export type LogFn = (msg: string, fields?: object) => void;

export const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

/** The datamodel the engine is constructed with; migrations do not need models. */
const BARE_DATAMODEL = 'datasource db {\n  provider = "postgresql"\n}\n';

type EngineModule = typeof import('@prisma/schema-engine-wasm');
let engineModule: Promise<EngineModule> | undefined;

// The package is ESM and imports its own .wasm, so a CJS require() cannot load
// it; tsc (module nodenext) keeps this import() as a real dynamic import.
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= import('@prisma/schema-engine-wasm');
  return engineModule;
}

/**
 * adapter-pg's executeScript splits the script on every ';' and sends the
 * pieces one by one through the pool. That breaks any ';' inside a string,
 * comment or function body, and a failing statement leaves the earlier ones
 * applied. The native engine sends the whole migration as one simple-protocol
 * query, which Postgres runs as a single implicit transaction: we restore that,
 * so a failed migration leaves nothing half-applied.
 */
class WholeScriptPg implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres';
  readonly adapterName: string;
  private readonly inner: PrismaPg;

  constructor(private readonly pool: pg.Pool) {
    this.inner = new PrismaPg(pool);
    this.adapterName = this.inner.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    const adapter = await this.inner.connect();
    // onError is how adapter-pg turns a pg error into the DriverAdapterError the engine understands.
    const toDriverError = (adapter as unknown as { onError?: (e: unknown) => never }).onError?.bind(adapter);
    adapter.executeScript = async (script: string) => {
      try {
        await this.pool.query(script);
      } catch (e) {
        if (toDriverError) toDriverError(e);
        throw e;
      }
    };
    return adapter;
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    throw new Error('wap-db never uses a shadow database');
  }
}

/**
 * A stand-in database for `diff` between two datamodels, which needs no
 * database: SchemaEngine.new still probes the server version once, so answer
 * that probe and refuse everything else.
 */
function offlineFactory(): SqlMigrationAwareDriverAdapterFactory {
  const refuse = (what: string) => Promise.reject(new Error(`no database available offline (${what})`));
  const adapter: SqlDriverAdapter = {
    provider: 'postgres',
    adapterName: 'wap-db-offline',
    async queryRaw(q: SqlQuery) {
      if (!/version\(\)/.test(q.sql)) return refuse(q.sql);
      return {
        columnNames: ['exists', 'version', 'numeric_version'],
        columnTypes: [ColumnTypeEnum.Boolean, ColumnTypeEnum.Text, ColumnTypeEnum.Int32],
        rows: [[true, 'PostgreSQL 15.0 (offline)', 150000]],
      };
    },
    executeRaw: (q) => refuse(q.sql),
    executeScript: () => refuse('script'),
    startTransaction: () => refuse('transaction'),
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    dispose: async () => {},
  };
  return {
    provider: 'postgres',
    adapterName: adapter.adapterName,
    connect: async () => adapter,
    connectToShadowDb: async () => adapter,
  };
}

export interface EngineSession {
  engine: SchemaEngine;
  /** Turns an engine rejection into an Error with the underlying JS error's text. */
  explain(e: unknown): Error;
  close(): Promise<void>;
}

/** Opens an engine on `databaseUrl`, or an offline one when it is null (diff only). */
export async function openEngine(databaseUrl: string | null, log?: LogFn): Promise<EngineSession> {
  const { SchemaEngine } = await loadEngineModule();
  // One connection: the engine's own session-level lock (pg_advisory_lock(72707369))
  // and its queries must all share it, and it is released by ending the pool.
  const pool = databaseUrl === null ? null : new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool?.on('error', (err) => log?.('migration connection error', { error: err.message }));
  const factory = bindMigrationAwareSqlAdapterFactory(pool ? new WholeScriptPg(pool) : offlineFactory());
  const explain = (e: unknown) => explainEngineError(e, factory);
  let engine: SchemaEngine;
  try {
    engine = await SchemaEngine.new({ datamodels: [['schema.prisma', BARE_DATAMODEL]] }, engineLogger(log), factory);
  } catch (e) {
    await pool?.end().catch(() => {});
    throw explain(e);
  }
  return {
    engine,
    explain,
    async close() {
      try {
        engine.free();
      } catch {
        // A panicked engine may refuse to free; the pool below is what matters.
      }
      await pool?.end().catch(() => {});
    },
  };
}

/**
 * One line out of Prisma's multi-line errors (message, code frame, context):
 * the error lines and their `-->` locations.
 */
export function summariseError(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const keep = lines.filter((l) => /^error\b/i.test(l) || l.startsWith('-->')).map((l) => l.replace(/^-->\s*/, 'at '));
  return (keep.length ? keep : lines.slice(0, 1)).join(' ').replace(/^error:\s*/i, '');
}

/** Engine failures inside JS (e.g. connection refused) surface as "External error id#N". */
function explainEngineError(e: unknown, factory: ErrorCapturingSqlMigrationAwareDriverAdapterFactory): Error {
  const err = e instanceof Error ? e : new Error(String(e));
  const id = /External error id#(\d+)/.exec(err.message)?.[1];
  if (id === undefined) return err;
  const inner = factory.errorRegistry.consumeError(Number(id))?.error;
  if (inner === undefined) return err;
  return inner instanceof Error ? inner : new Error(String(inner));
}

// The engine logs JSON lines; forward the informative ones, without the
// migration script it attaches (it can be megabytes).
function engineLogger(log?: LogFn): (line: string) => void {
  return (line: string) => {
    if (!log) return;
    try {
      const entry = JSON.parse(line) as {
        level?: string;
        fields?: Record<string, unknown>;
        span?: Record<string, unknown>;
      };
      const { message, script: _script, ...fields } = entry.fields ?? {};
      if (typeof message !== 'string' || /^(Analysis run in|Starting schema-engine)/.test(message)) return;
      log(message, {
        source: 'schema-engine',
        level: entry.level,
        ...fields,
        ...(entry.span?.migration_name ? { migration: entry.span.migration_name } : {}),
      });
    } catch {
      log(String(line).trim(), { source: 'schema-engine' });
    }
  };
}
