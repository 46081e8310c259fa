import { ApiError } from './api-error.js';

// What a database (or its pool) throws while its server is away: down, restarting, or a
// primary moving to a standby. node-postgres raises socket errors and SQLSTATEs; Prisma's
// pg adapter wraps them in a `kind`, and its client in a P1xxx code.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, or in recovery
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction: a write reached a primary that is now a standby
]);
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed and is not queryable/,
];

/** Whether `err`, or an error it was caused by, says the database cannot be reached right now. */
export function isDatabaseOutage(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, kind, message } = e as { code?: unknown; kind?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || PRISMA_CODES.has(code)) return true;
      if (code.startsWith('08')) return true; // connection_exception and its subclasses
    }
    if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
    if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * `no_capacity` (503, Retry-After) for a database outage, which clears without any change by
 * the caller (a restart, a failover); undefined for anything else.
 */
export function outageError(err: unknown): ApiError | undefined {
  return isDatabaseOutage(err) ? new ApiError('no_capacity', { retryAfterSeconds: 2 }, { cause: err }) : undefined;
}
