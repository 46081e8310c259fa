// The idempotency sweep as the gateway runs it, against a real database:
// records past their day go and live ones stay.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { quietLog, until } from '@wap/testkit';
import { IdempotencyStore } from '../store/idempotency.js';
import { freshDatabase, type TestDatabase } from '../test-support.js';
import { idempotencySweeper } from './idempotency-sweep.js';

const HOUR_MS = 3_600_000;
let database: TestDatabase;

before(async () => {
  database = await freshDatabase();
});
after(() => database?.close());

test('the running sweep deletes the records past their 24 hours and keeps the live ones', async () => {
  const { prisma } = database.db;
  const workspaceId = randomUUID();
  const aged = (key: string, hours: number) => ({
    workspaceId,
    key,
    fingerprint: key,
    done: true,
    createdAt: new Date(Date.now() - hours * HOUR_MS),
  });
  await prisma.idempotencyRecord.createMany({
    data: [aged('two-days', 48), aged('a-day-and-a-bit', 24.1), aged('almost-a-day', 23.9), aged('new', 0)],
  });
  const keys = async () =>
    (await prisma.idempotencyRecord.findMany({ where: { workspaceId }, orderBy: { key: 'asc' } })).map((r) => r.key);

  const sweeper = idempotencySweeper(new IdempotencyStore(prisma), quietLog(), 20);
  sweeper.start();
  try {
    await until('the expired records are swept', async () => (await keys()).length === 2);
  } finally {
    await sweeper.stop();
  }
  assert.deepEqual(await keys(), ['almost-a-day', 'new']);
});
