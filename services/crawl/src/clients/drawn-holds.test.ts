// Scrapes of a busy workspace drawn from a hold taken ahead (decision 0031),
// through the crawl service as production wires it, against a real ledger:
// each scrape is still billed as its own call, once, and a workspace without
// credit is still refused before anything is fetched.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ApiError, isApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import { until } from '@wap/testkit';
import { startTestSite, type TestSite } from '@wap/testsite';
import { type InProcessCrawl, proWorkspace, serveCrawl } from '../test-support.js';
import { DrawnHolds } from './drawn-holds.js';

let served: InProcessCrawl;
let site: TestSite;

before(async () => {
  site = await startTestSite({ pages: 40, extras: false, latencyMs: 20 });
  served = await serveCrawl();
});

after(async () => {
  await served?.close();
  await site?.close();
});

const holds = () => served.deps.holds as DrawnHolds;

/** A workspace whose whole balance is `mc`. */
async function workspaceWith(mc: bigint): Promise<string> {
  const workspaceId = randomUUID();
  await served.ledger.client.ensureAccount({ workspaceId, plan: ledger.Plan.FREE, monthlyAllowanceMillicredits: mc });
  return workspaceId;
}

const credits = (workspaceId: string) => served.ledger.client.credits({ workspaceId });

/** Every hold the ledger keeps for the workspace. */
async function holdRows(workspaceId: string) {
  const { rows } = await served.ledger.db.pool.query<{ reference: string; status: string }>(
    'SELECT "reference", "status" FROM "holds" WHERE "workspace_id" = $1',
    [workspaceId],
  );
  return rows;
}

const scrape = (workspaceId: string, article: number, requestId = randomUUID()) =>
  served.client.scrape({
    workspaceId,
    requestId,
    reference: `req-${requestId}`,
    url: `${site.url}/articles/${article}`,
    options: {},
  });

test('concurrent scrapes draw on one hold taken ahead, and each is billed as its own call', async () => {
  const workspaceId = await proWorkspace(served);
  const before = await credits(workspaceId);
  const taken = holds().taken;
  const ids = Array.from({ length: 12 }, () => randomUUID());
  const answers = await Promise.all(ids.map((id, i) => scrape(workspaceId, i, id)));
  for (const a of answers) assert.equal(a.usage?.millicredits, 1000n, 'each scrape answers its page load');
  const after = await credits(workspaceId);
  assert.equal(after.allowanceSpentMillicredits - before.allowanceSpentMillicredits, 12_000n, 'twelve pages billed');
  assert.equal(after.heldMillicredits, 0n, 'nothing held once every answer is back');
  assert.ok(holds().taken > taken, 'a hold was taken ahead');
  const rows = await holdRows(workspaceId);
  assert.ok(rows.length < 12, `fewer holds than scrapes (${rows.length})`);
  // Each settle is its own usage row, listed under the scrape's own reference.
  const calls = await served.ledger.client.listCalls({ workspaceId, limit: 100 });
  assert.deepEqual(calls.calls.map((c) => c.reference).sort(), ids.map((id) => `req-${id}`).sort());
  assert.ok(calls.calls.every((c) => c.capability === 'scrape'));
});

test('a scrape retried while its workspace is busy is billed once', async () => {
  const workspaceId = await proWorkspace(served);
  const before = await credits(workspaceId);
  const retried = randomUUID();
  // Sent first, alone so far: it holds its page alone.
  const first = await Promise.all([
    scrape(workspaceId, 20, retried),
    ...[21, 22, 23].map((a) => scrape(workspaceId, a)),
  ]);
  // Sent again last, others under way: it draws on a new hold taken ahead, and its settle answers the first.
  const taken = holds().taken;
  const again = await Promise.all([
    ...[24, 25, 26].map((a) => scrape(workspaceId, a)),
    scrape(workspaceId, 20, retried),
  ]);
  assert.ok(holds().taken > taken, 'the retry came while a hold was taken ahead');
  assert.deepEqual(again[3]?.usage, first[0]?.usage);
  const after = await credits(workspaceId);
  assert.equal(after.allowanceSpentMillicredits - before.allowanceSpentMillicredits, 7_000n, 'seven pages, not eight');
  assert.equal(after.heldMillicredits, 0n);
  const calls = await served.ledger.client.listCalls({ workspaceId, limit: 100 });
  assert.equal(
    calls.calls.filter((c) => c.reference === `req-${retried}`).length,
    1,
    'one usage row for the retried call',
  );
});

test('pages that fail while drawn are not billed and their credit goes back', async () => {
  const workspaceId = await proWorkspace(served);
  const before = await credits(workspaceId);
  const missing = (n: number) =>
    served.client
      .scrape({ workspaceId, requestId: randomUUID(), url: `${site.url}/no-such-page-${n}`, options: {} })
      .then(
        () => assert.fail('a missing page is not answered'),
        (err: unknown) => assert.ok(isApiError(err) && err.code === 'page_unreachable', String(err)),
      );
  await Promise.all([missing(1), missing(2), missing(3), scrape(workspaceId, 30), scrape(workspaceId, 31)]);
  const after = await credits(workspaceId);
  assert.equal(after.allowanceSpentMillicredits - before.allowanceSpentMillicredits, 2_000n, 'only the pages answered');
  assert.equal(after.heldMillicredits, 0n);
});

test('a workspace without credit is refused at once, busy or not, and nothing is fetched', async () => {
  const workspaceId = await workspaceWith(0n);
  const fetched = site.stats.total;
  const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => scrape(workspaceId, i)));
  for (const o of outcomes) {
    assert.equal(o.status, 'rejected');
    assert.ok(isApiError(o.reason) && o.reason.code === 'quota_exceeded', String(o.reason));
  }
  assert.equal(site.stats.total, fetched, 'no page was fetched');
});

test('a balance too small to hold pages ahead is spent page by page, exactly', async () => {
  const workspaceId = await workspaceWith(5_000n);
  const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => scrape(workspaceId, 10 + i)));
  const answered = outcomes.filter((o) => o.status === 'fulfilled').length;
  for (const o of outcomes)
    if (o.status === 'rejected') assert.ok(isApiError(o.reason) && o.reason.code === 'quota_exceeded');
  const after = await credits(workspaceId);
  assert.equal(after.allowanceSpentMillicredits, BigInt(answered) * 1000n, 'billed what was answered');
  assert.ok(answered >= 1 && answered <= 5, `at most the five pages it could pay for (${answered})`);
  assert.equal(after.heldMillicredits, 0n);
  assert.ok(
    (await holdRows(workspaceId)).every((h) => h.reference !== 'scrape held ahead' || h.status !== 'active'),
    'no hold ahead left active',
  );
});

test('a hold ahead the ledger could not void when the workspace went idle is voided once it can', async () => {
  const workspaceId = await proWorkspace(served);
  // The real ledger, reached through a link that loses the first void asked of it (as when the
  // ledger's database restarts just then).
  let lost = 0;
  const client = new Proxy(served.ledger.client, {
    get: (target, name, receiver) =>
      name === 'void' && lost++ === 0
        ? () => Promise.reject(new ApiError('no_capacity'))
        : Reflect.get(target, name, receiver),
  });
  const drawn = new DrawnHolds(client, { pages: 32 }, { warn: () => undefined });
  const page = [{ meter: 'page_load' as const, quantity: 1n }];
  const charge = () => ({ workspaceId, operationId: randomUUID(), capability: 'scrape', reference: randomUUID() });
  await Promise.all([1, 2, 3].map(() => drawn.billed(charge(), page, async () => ({ result: undefined, used: page }))));
  assert.equal(drawn.taken, 1, 'the three drew on one hold taken ahead');
  assert.ok(lost >= 1, 'its first void was lost');
  // Asked again a second later, not left to lapse in ten minutes.
  await until('the hold ahead voided', async () => (await credits(workspaceId)).heldMillicredits === 0n, 10_000);
  assert.equal((await credits(workspaceId)).allowanceSpentMillicredits, 3_000n);
});
