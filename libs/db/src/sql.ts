// Typed SQL on node-postgres, for a service whose store is a few fixed
// statements (docs/decisions/0032-prisma-client-only-where-rich.md): Prisma
// keeps its schema, its migrations and its model types, and the service runs
// without Prisma's runtime and query compiler (about 50 MB a process).
//
// A statement is a tagged template: each `${value}` is bound as a parameter
// ($1, $2...), never spliced into the text. Rows come back as Prisma's client
// gave them: columns named as the model's fields (`workspace_id` as
// `workspaceId`), int8 as bigint, timestamps as Date, json parsed, bytea as a
// Buffer; the row type is the caller's, usually the model's type imported from
// the generated client with `import type` (which loads nothing at run time).
import pg from 'pg';
import { inTransaction } from './transaction';

/** What runs statements: the database, or one transaction of it. */
export interface Sql {
  /** The rows of a statement, their columns named in camelCase. */
  query<R>(strings: TemplateStringsArray, ...values: unknown[]): Promise<R[]>;
  /** How many rows a statement wrote. */
  execute(strings: TemplateStringsArray, ...values: unknown[]): Promise<number>;
  /** A statement with `$n` placeholders, its rows as Postgres names their columns (what libs/events calls). */
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

export interface SqlOptions {
  /** Pool size (pg's default is 10). */
  max?: number;
  /** Called on errors of idle pooled connections, which would otherwise be swallowed. */
  onPoolError?: (err: Error) => void;
}

const INT8 = 20;
const TIMESTAMP = 1114;

/** Prisma's types for the columns where pg's defaults differ: int8 as bigint, a timestamp without zone as UTC. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (text: string) => BigInt(text);
    if (oid === TIMESTAMP) return (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** A value as a parameter: a Date as its UTC instant (pg would write local time), inside arrays too. */
function param(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(param);
  return value;
}

function statement(strings: TemplateStringsArray, values: unknown[]): pg.QueryConfig {
  let text = strings[0] ?? '';
  for (let i = 1; i < strings.length; i++) text += `$${i}${strings[i]}`;
  return { text, values: values.map(param) };
}

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function camelRows<R>(result: pg.QueryResult): R[] {
  const names = result.fields.map((f) => camel(f.name));
  if (names.every((n, i) => n === result.fields[i]?.name)) return result.rows as R[];
  return result.rows.map((row: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    result.fields.forEach((f, i) => {
      out[names[i] as string] = row[f.name];
    });
    return out as R;
  });
}

class Statements implements Sql {
  constructor(protected readonly runner: pg.Pool | pg.PoolClient) {}

  async query<R>(strings: TemplateStringsArray, ...values: unknown[]): Promise<R[]> {
    return camelRows<R>(await this.runner.query(statement(strings, values)));
  }

  async execute(strings: TemplateStringsArray, ...values: unknown[]): Promise<number> {
    return (await this.runner.query(statement(strings, values))).rowCount ?? 0;
  }

  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return (await this.runner.query(query, values.map(param))).rows as T;
  }

  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return (await this.runner.query(query, values.map(param))).rowCount ?? 0;
  }
}

/**
 * A service's database over one pg pool. It answers what libs/service (the
 * readiness ping, the disconnect) and libs/events (the outbox, the inbox) ask
 * of a database under the names a Prisma client has, so either serves them.
 */
export class SqlDatabase extends Statements {
  readonly pool: pg.Pool;

  constructor(url: string, opts: SqlOptions = {}) {
    const pool = new pg.Pool({ connectionString: url, types, ...(opts.max !== undefined && { max: opts.max }) });
    // An idle connection dropped by the server would otherwise crash the
    // process; the readiness probe reports the database instead.
    pool.on('error', opts.onPoolError ?? (() => undefined));
    super(pool);
    this.pool = pool;
  }

  /** Runs `work` in one transaction on one connection: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (client) => work(new Statements(client)));
  }

  $transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  async $disconnect(): Promise<void> {
    await this.pool.end();
  }
}
