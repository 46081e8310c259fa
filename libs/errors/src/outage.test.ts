import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDatabaseOutage, outageError } from './index.js';

// The shapes node-postgres, Prisma's pg adapter and Prisma's client throw, as seen in the
// fleet's logs while Postgres restarted (e2e/src/failover.test.ts).
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
  errno: -111,
  syscall: 'connect',
});
const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
  code: '57P01',
  severity: 'FATAL',
});

describe('database outages', () => {
  it('are told from socket errors, SQLSTATEs, the adapter’s kinds, Prisma’s codes and pg’s messages', () => {
    for (const err of [
      refused,
      shutdown,
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('cannot execute UPDATE in a read-only transaction'), { code: '25006' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('driver adapter error'), { cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1' } }),
      Object.assign(new Error("Can't reach database server"), { code: 'P1001' }),
      new Error('wrapped', { cause: new Error('again', { cause: refused }) }),
    ])
      assert.equal(isDatabaseOutage(err), true, String(err));
  });

  it('leave every other failure alone', () => {
    for (const err of [
      new Error('boom'),
      Object.assign(new Error('duplicate key value'), { code: '23505' }),
      Object.assign(new Error('Unique constraint failed'), { code: 'P2002' }),
      Object.assign(new Error('syntax error'), { code: '42601' }),
      undefined,
      'ECONNREFUSED',
    ])
      assert.equal(isDatabaseOutage(err), false, String(err));
  });

  it('answer no_capacity with a Retry-After, keeping the cause for the logs', () => {
    const err = outageError(refused);
    assert.equal(err?.code, 'no_capacity');
    assert.equal(err?.status, 503);
    assert.deepEqual(err?.details, { retryAfterSeconds: 2 });
    assert.equal(err?.cause, refused);
    assert.equal(outageError(new Error('boom')), undefined);
  });
});
