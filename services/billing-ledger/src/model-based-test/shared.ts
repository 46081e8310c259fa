// Every client driving one shared account at once. The interleaving is not
// known, so answers are tallied as they come and the invariants that hold in
// any order are checked after each batch: what the answers charged is what
// the entries hold, each hold settled exactly what its answers priced and no
// more than its amount, duplicates charged once, the balance never below zero.
import assert from 'node:assert/strict';
import { priceUsage } from '@wap/billing';
import { isApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import type pg from 'pg';
import type { LedgerClient, TestClock } from '../test-support.js';
import { meterName } from '../views/convert.js';
import { storedState, tally, type UsageTally } from './checks.js';
import { type Rng, randomMeters } from './random.js';
import { refusalCode } from './solo.js';

export class SharedDriver {
  /** Priced settles per hold, from first answers only. */
  private readonly holds = new Map<string, { amount: bigint; priced: bigint }>();
  private readonly done: { op: 'settle' | 'charge'; request: Record<string, unknown>; answer: unknown }[] = [];
  readonly answered: UsageTally = { meters: new Map(), charged: 0n };
  private seq = 0;
  duplicates = 0;

  constructor(
    readonly workspaceId: string,
    private readonly clock: TestClock,
  ) {}

  private key(client: number): string {
    return `shared-${client}-${++this.seq}`;
  }

  async step(client: LedgerClient, c: number, rng: Rng): Promise<void> {
    const op = rng.weighted({ authorize: 30, settle: 35, void: 8, charge: 15, grant: 2, retry: 10 });
    if (op === 'authorize') {
      const request = {
        workspaceId: this.workspaceId,
        idempotencyKey: this.key(c),
        capability: 'crawl',
        millicredits: rng.big(1_000, 60_000),
        ttlSeconds: rng.int(5, 200),
      };
      const answer = await client.authorize(request).catch((e: unknown) => e);
      if (isApiError(answer)) return assert.equal(answer.code, 'quota_exceeded');
      const hold = answer as ledger.AuthorizeResponse;
      this.holds.set(hold.holdId, { amount: request.millicredits, priced: 0n });
    } else if (op === 'settle') {
      const holdId = rng.pick([...this.holds.keys()]);
      if (!holdId) return;
      const meters = rng.chance(0.7) ? [{ meter: ledger.Meter.PAGE_LOAD, quantity: rng.big(0, 8) }] : randomMeters(rng);
      const idempotencyKey = this.key(c);
      // Some name their call, as a hold drawn down for many calls settles each (decision 0031).
      const reference = rng.chance(0.3) ? `call-${idempotencyKey}` : undefined;
      await this.charged(client, rng, 'settle', { holdId, idempotencyKey, meters, ...(reference && { reference }) });
    } else if (op === 'charge') {
      const request = {
        workspaceId: this.workspaceId,
        idempotencyKey: this.key(c),
        capability: 'scrape',
        meters: randomMeters(rng),
      };
      await this.charged(client, rng, 'charge', request);
    } else if (op === 'void') {
      const holdId = rng.pick([...this.holds.keys()]);
      if (holdId) await client.void({ holdId });
    } else if (op === 'grant') {
      await client.grant({
        workspaceId: this.workspaceId,
        idempotencyKey: this.key(c),
        kind: ledger.GrantKind.PURCHASED,
        millicredits: rng.big(50_000, 400_000),
      });
    } else {
      const done = rng.pick(this.done);
      if (!done) return;
      // biome-ignore lint/suspicious/noExplicitAny: replays whichever request this was
      const again = await (client[done.op] as (r: any) => Promise<unknown>)(done.request);
      assert.deepEqual(again, done.answer, 'a retry answers the first answer');
      if (rng.chance(0.5)) {
        const other = { ...done.request, meters: [{ meter: ledger.Meter.TOKENS, quantity: 123_456_789n }] };
        // biome-ignore lint/suspicious/noExplicitAny: replays whichever request this was
        assert.equal(await refusalCode((client[done.op] as (r: any) => Promise<unknown>)(other)), 'bad_request');
      }
    }
  }

  /** A Settle or Charge, sometimes sent twice at once: both answers must be the same, charged once. */
  private async charged(client: LedgerClient, rng: Rng, op: 'settle' | 'charge', request: Record<string, unknown>) {
    const twice = rng.chance(0.15);
    // biome-ignore lint/suspicious/noExplicitAny: settle and charge share this path
    const send = () => (client[op] as (r: any) => Promise<ledger.SettleResponse | ledger.ChargeResponse>)(request);
    const answers = await Promise.all((twice ? [send(), send()] : [send()]).map((p) => p.catch((e: unknown) => e)));
    const [first] = answers;
    if (twice) {
      this.duplicates++;
      // A refusal is not stored, so its details may reflect what others did in between.
      const plain = (a: unknown) => (isApiError(a) ? a.code : a);
      assert.deepEqual(plain(answers[1]), plain(first), 'concurrent duplicates answer alike');
    }
    if (isApiError(first)) return assert.equal(first.code, 'cap_exceeded', `${op} refused`);
    const answer = first as ledger.SettleResponse;
    const meters = request.meters as { meter: ledger.Meter; quantity: bigint }[];
    const price = priceUsage(meters.map((m) => ({ meter: meterName(m.meter)!, quantity: m.quantity })));
    assert.ok((answer.usage?.millicredits ?? 0n) <= price.millicredits, 'never charges above the price');
    if (op === 'settle') this.holds.get(request.holdId as string)!.priced += price.millicredits;
    tally(this.answered, answer.usage);
    this.done.push({ op, request, answer });
  }

  async verify(client: LedgerClient, pool: pg.Pool): Promise<void> {
    const stored = await storedState(pool, this.workspaceId);
    assert.equal(stored.spentByEntries, this.answered.charged, 'shared: entries = sum of first answers');
    for (const [id, hold] of this.holds) {
      const row = stored.holds.get(id)!;
      assert.equal(row.settled, hold.priced, `shared: hold ${id} settled what its answers priced`);
      assert.ok(row.settled <= hold.amount, `shared: hold ${id} within its amount`);
    }
    const credits = await client.credits({ workspaceId: this.workspaceId });
    assert.ok(credits.availableMillicredits >= 0n);
    assert.equal(credits.heldMillicredits, this.held(stored, this.clock.now()));
  }

  private held(stored: Awaited<ReturnType<typeof storedState>>, now: Date): bigint {
    let held = 0n;
    for (const h of stored.holds.values()) {
      if (h.status === 'active' && h.expiresAt > now.getTime()) held += h.amount - h.settled;
    }
    return held;
  }
}
