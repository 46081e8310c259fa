// Monitors fitted to a plan's cap against real Postgres: the newest past it are
// paused and never claimed; they resume oldest first, each due at its own next
// check, or with the others while the workspace is paused for credits.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { FreshDatabase } from '@wap/testkit';
import type { Monitor } from '../generated/prisma/client.js';
import { freshDatabase, monitorRow } from '../test-support.js';
import { type MonitorDatabase, openMonitorDatabase } from './database.js';
import { MonitorStore } from './monitors.js';
import { PauseStore } from './pauses.js';
import { PlanCapStore } from './plan-caps.js';

let database: FreshDatabase;
let db: MonitorDatabase;

before(async () => {
  database = await freshDatabase();
  db = openMonitorDatabase(database.url);
});
after(async () => {
  await db?.$disconnect();
  await database?.drop();
});

test('past a cap the newest are paused and not claimed; room resumes them oldest first, each due at its own check', async () => {
  const workspaceId = `ws-${randomUUID()}`;
  const small = `ws-${randomUUID()}`;
  const now = new Date();
  const ids: string[] = [];
  // Four monitors made a minute apart, all due.
  for (let i = 0; i < 4; i++) {
    const row = { ...monitorRow(workspaceId, new Date(now.getTime() - 1_000), String(i)) };
    await new MonitorStore(db).create({ ...row, createdAt: new Date(now.getTime() - (4 - i) * 60_000) }, 100);
    ids.push(row.id);
  }
  await new MonitorStore(db).create(monitorRow(small, now, 'alone'), 100);
  const caps = new PlanCapStore(db);
  const monitors = new MonitorStore(db);
  const paused = async () =>
    (
      await db.query<Monitor>`
        SELECT * FROM monitors WHERE workspace_id = ${workspaceId} AND plan_paused_at IS NOT NULL ORDER BY created_at`
    ).map((m) => m.id);

  assert.deepEqual(
    await caps.mayNotFit([workspaceId, small, 'ws-none'], 2),
    [workspaceId],
    'one monitor fits any plan',
  );
  assert.deepEqual(await caps.fit(workspaceId, 2, now), { paused: 2, resumed: 0 });
  assert.deepEqual(await paused(), ids.slice(2), 'the newest two');
  assert.deepEqual(await caps.fit(workspaceId, 2, now), { paused: 0, resumed: 0 }, 'fitted: nothing moves');
  assert.deepEqual(await caps.mayNotFit([workspaceId], 10), [workspaceId], 'paused ones are looked at again');

  const claimed = await monitors.claimDue('replica', 16, 60_000, now);
  assert.deepEqual(
    claimed
      .map((c) => c.monitor.id)
      .filter((id) => ids.includes(id))
      .sort(),
    ids.slice(0, 2).sort(),
    'only the two the cap keeps are claimed',
  );

  // Room for one more: the older paused one resumes. Never checked, its first slot came while it
  // was paused: due at once.
  assert.deepEqual(await caps.fit(workspaceId, 3, now), { paused: 0, resumed: 1 });
  assert.deepEqual(await paused(), ids.slice(3));
  const [resumed] = await db.query<Monitor>`SELECT * FROM monitors WHERE id = ${ids[2]}::uuid`;
  assert.ok(resumed);
  assert.ok(resumed.nextCheckAt <= now, `due at once: ${resumed.nextCheckAt.toISOString()}`);
  assert.equal(resumed.skippedReason, null);

  // Paused for credits meanwhile: the last one resumes into that pause, and waits with the others.
  const probeAt = new Date(now.getTime() + 3_600_000);
  await new PauseStore(db).pause(workspaceId, probeAt);
  assert.deepEqual(await caps.fit(workspaceId, 500, now), { paused: 0, resumed: 1 });
  const [last] = await db.query<Monitor>`SELECT * FROM monitors WHERE id = ${ids[3]}::uuid`;
  assert.ok(last);
  assert.equal(last.planPausedAt, null);
  assert.equal(last.skippedReason, 'credits');
  assert.ok(last.nextCheckAt >= probeAt, 'not before the look at its credits');

  // A lower cap again pauses the newest, the one just resumed first among them.
  assert.deepEqual(await caps.fit(workspaceId, 1, now), { paused: 3, resumed: 0 });
  assert.deepEqual(await paused(), ids.slice(1));
});
