import { after, before, test } from 'node:test';
import { quietLog, until } from '@wap/testkit';
import { allowancePeriod } from '../domain/period.js';
import { LedgerDatabase } from '../store/database.js';
import { MoneyStore } from '../store/money.js';
import { freshDatabase, TestClock, type TestDatabase } from '../test-support.js';
import { holdSweeper } from './sweeper.js';

let database: TestDatabase;
let db: LedgerDatabase;

before(async () => {
  database = await freshDatabase();
  db = new LedgerDatabase(database.url);
});
after(async () => {
  await db?.$disconnect();
  await database?.drop();
});

test('the running sweeper marks expired holds, and stop() waits for its pass', async () => {
  const clock = new TestClock();
  const at = () => ({ now: clock.now(), period: allowancePeriod(clock.now()) });
  const money = new MoneyStore(db.pool);
  await money.ensureAccount('sweep-ws', { open: { plan: 'free', monthlyMc: 1_000_000n, slots: 2 } }, at());
  for (let i = 0; i < 3; i++) {
    const hold = { workspaceId: 'sweep-ws', key: `k${i}`, hash: `k${i}`, capability: 'crawl', reference: '' };
    await money.authorize({ ...hold, amountMc: 1_000n, ttlSeconds: 5 }, at());
  }
  clock.advance(6);
  const sweeper = holdSweeper(money, clock.now, quietLog(), 20);
  sweeper.start();
  await until('the sweeper marked the expired holds', async () => {
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM "holds" WHERE "status" = 'active'`);
    return rows[0].n === 0;
  });
  await sweeper.stop();
});
