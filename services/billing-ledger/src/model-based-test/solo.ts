// One client driving its own account: every answer is predicted exactly by
// the model, so each step is checked as it happens.
import assert from 'node:assert/strict';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { creditsDown, creditsUp, priceUsage } from '@wap/billing';
import { isApiError } from '@wap/errors';
import { ledger } from '@wap/proto';
import type { LedgerClient, TestClock } from '../test-support.js';
import { meterName } from '../views/convert.js';
import { effectiveStatus, storedState, tally, type UsageTally } from './checks.js';
import type { ModelAccount } from './ledger-model.js';
import { type Rng, randomMeters } from './random.js';

type Op = 'authorize' | 'settle' | 'charge' | 'grant';
interface Sent {
  op: Op;
  request: Record<string, unknown>;
  response: unknown;
}

export async function refusalCode(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(isApiError(err), String(err));
  return err.code;
}

const priced = (meters: { meter: ledger.Meter; quantity: bigint }[]) =>
  priceUsage(meters.map((m) => ({ meter: meterName(m.meter)!, quantity: m.quantity })));

export class SoloDriver {
  private readonly sent: Sent[] = [];
  private seq = 0;
  readonly answered: UsageTally = { meters: new Map(), charged: 0n };
  steps = 0;
  /** How often each interesting path was taken, so the test can tell it did not test nothing. */
  readonly seen = {
    quotaExceeded: 0,
    capExceeded: 0,
    shortfall: 0,
    retries: 0,
    conflicts: 0,
    voided: 0,
    /** A settle naming its call retried on another hold (decision 0031). */
    redraws: 0,
  };
  /** The call each settle that named one was listed under: its usage row must say so. */
  private readonly references = new Map<string, string>();

  constructor(
    private readonly client: LedgerClient,
    readonly workspaceId: string,
    readonly model: ModelAccount,
    private readonly rng: Rng,
    private readonly clock: TestClock,
  ) {}

  private key(): string {
    return `${this.workspaceId}-${++this.seq}`;
  }

  async step(): Promise<void> {
    this.steps++;
    const op = this.rng.weighted({
      authorize: 24,
      settle: 28,
      void: 8,
      charge: 18,
      grant: 5,
      retry: 12,
      conflict: 5,
      redraw: 5,
    });
    await this[op]();
  }

  private async authorize() {
    const now = this.clock.now();
    const request = {
      workspaceId: this.workspaceId,
      idempotencyKey: this.key(),
      capability: this.rng.pick(['crawl', 'agent', 'search'])!,
      millicredits: this.rng.big(1, 600_000),
      ttlSeconds: this.rng.int(5, 900),
      reference: `ref-${this.seq}`,
    };
    const expected = this.model.authorize(request.millicredits, now);
    if ('error' in expected) {
      this.seen.quotaExceeded++;
      const err = await this.client.authorize(request).catch((e: unknown) => e);
      assert.ok(isApiError(err) && err.code === 'quota_exceeded', `authorize refused: ${String(err)}`);
      assert.deepEqual(err.details, {
        needed: creditsUp(expected.needed!),
        available: creditsDown(expected.available!),
      });
      return;
    }
    const response = await this.client.authorize(request);
    const expiresAt = now.getTime() + request.ttlSeconds * 1000;
    assert.equal(Number(response.expiresAt?.seconds) * 1000 + (response.expiresAt?.nanos ?? 0) / 1e6, expiresAt);
    this.model.addHold(response.holdId, request.millicredits, expiresAt);
    this.sent.push({ op: 'authorize', request, response });
  }

  private async settle() {
    const holdId = this.rng.pick([...this.model.holds.keys()]);
    if (!holdId) return this.authorize();
    const hold = this.model.holds.get(holdId)!;
    const left = (hold.amount - hold.settled) / 1000n;
    const meters =
      this.rng.chance(0.6) && left > 0n
        ? [{ meter: ledger.Meter.PAGE_LOAD, quantity: this.rng.big(0, Number(left)) }]
        : randomMeters(this.rng);
    const price = priced(meters);
    // Some settles name their call, as a hold drawn down for many calls settles each (decision 0031).
    const key = this.key();
    const reference = this.rng.chance(0.3) ? `call-${this.seq}` : undefined;
    const request = { holdId, idempotencyKey: key, meters, ...(reference && { reference }) };
    const expected = this.model.settle(holdId, price.meters, price.millicredits, this.clock.now());
    if ('error' in expected) {
      this.seen.capExceeded++;
      assert.equal(await refusalCode(this.client.settle(request)), 'cap_exceeded');
      return;
    }
    const response = await this.client.settle(request);
    assert.equal(response.usage?.millicredits, expected.charged, 'settle charged');
    assert.equal(response.holdRemainingMillicredits, expected.remaining, 'hold remaining');
    assert.deepEqual(
      response.usage?.meters.map((m) => [meterName(m.meter), m.quantity, m.millicredits]),
      price.meters.map((m) => [m.meter, m.quantity, m.millicredits]),
    );
    tally(this.answered, response.usage);
    if (reference) this.references.set(key, reference);
    this.sent.push({ op: 'settle', request, response });
  }

  private async void() {
    const holdId = this.rng.pick([...this.model.holds.keys()]);
    if (!holdId) return;
    const expected = this.model.void(holdId, this.clock.now());
    if (expected.released > 0n) this.seen.voided++;
    const response = await this.client.void({ holdId });
    assert.deepEqual(
      [response.releasedMillicredits, response.settledMillicredits],
      [expected.released, expected.settled],
    );
  }

  private async charge() {
    const meters = randomMeters(this.rng);
    const price = priced(meters);
    const request = {
      workspaceId: this.workspaceId,
      idempotencyKey: this.key(),
      capability: this.rng.pick(['scrape', 'connect', 'monitors.check'])!,
      reference: '',
      meters,
    };
    const expected = this.model.charge(price.meters, price.millicredits, this.clock.now());
    const response = await this.client.charge(request);
    if (expected.charged < price.millicredits) this.seen.shortfall++;
    assert.equal(response.usage?.millicredits, expected.charged, 'charge charged');
    tally(this.answered, response.usage);
    this.sent.push({ op: 'charge', request, response });
  }

  private async grant() {
    const now = this.clock.now();
    const lapsesAt = this.rng.chance(0.3) ? null : new Date(now.getTime() + this.rng.int(60, 20_000) * 1000);
    const request = {
      workspaceId: this.workspaceId,
      idempotencyKey: this.key(),
      kind: this.rng.pick([ledger.GrantKind.PROMOTIONAL, ledger.GrantKind.STUDENT, ledger.GrantKind.PURCHASED])!,
      millicredits: this.rng.big(10_000, 300_000),
      ...(lapsesAt && { lapsesAt: timestampFromMs(lapsesAt.getTime()) }),
    };
    const response = await this.client.grant(request);
    this.model.grant(response.grantId, request.millicredits, lapsesAt, now);
    this.sent.push({ op: 'grant', request, response });
  }

  /** The same key and request again: the first answer, and nothing moves. */
  private async retry() {
    const sent = this.rng.pick(this.sent);
    if (!sent) return;
    this.seen.retries++;
    this.model.roll(this.clock.now());
    // biome-ignore lint/suspicious/noExplicitAny: replays whichever request this was
    const again = await (this.client[sent.op] as (r: any) => Promise<unknown>)(sent.request);
    assert.deepEqual(again, sent.response, `retry of ${sent.op} answers the first answer`);
  }

  /**
   * A settle that named its call, sent again on another hold of the workspace (a
   * retried call drawing on the hold taken after): the first answer, nothing moves.
   */
  private async redraw() {
    const sent = this.rng.pick(this.sent.filter((s) => s.op === 'settle' && s.request.reference));
    const other = this.rng.pick([...this.model.holds.keys()].filter((id) => id !== sent?.request.holdId));
    if (!sent || !other) return this.settle();
    this.seen.redraws++;
    this.model.roll(this.clock.now());
    const again = await this.client.settle({ ...(sent.request as ledger.SettleRequest), holdId: other });
    assert.deepEqual(again, sent.response, 'a redrawn settle answers the first answer');
  }

  /** The same key with another request: refused, and nothing moves. */
  private async conflict() {
    const sent = this.rng.pick(this.sent);
    if (!sent) return;
    this.seen.conflicts++;
    const changed =
      sent.op === 'settle' || sent.op === 'charge'
        ? { ...sent.request, meters: [{ meter: ledger.Meter.TOKENS, quantity: 987_654_321n }] }
        : { ...sent.request, millicredits: (sent.request.millicredits as bigint) + 1n };
    // biome-ignore lint/suspicious/noExplicitAny: replays whichever request this was
    const call = (this.client[sent.op] as (r: any) => Promise<unknown>)(changed);
    this.model.roll(this.clock.now());
    assert.equal(await refusalCode(call), 'bad_request');
  }

  /** The stored rows and Credits agree with the model. */
  async verify(pool: import('pg').Pool): Promise<void> {
    const now = this.clock.now();
    const stored = await storedState(pool, this.workspaceId);
    const credits = await this.client.credits({ workspaceId: this.workspaceId });
    const m = this.model;
    const ws = this.workspaceId;
    assert.equal(credits.availableMillicredits, m.available(now), `${ws}: available`);
    assert.equal(credits.heldMillicredits, m.held(now), `${ws}: held`);
    assert.equal(credits.allowanceSpentMillicredits, m.allowanceSpent, `${ws}: allowance spent`);
    assert.ok(credits.availableMillicredits >= 0n, `${ws}: never below zero`);
    for (const [id, grant] of m.grants) {
      assert.equal(stored.grants.get(id)?.spent, grant.spent, `${ws}: grant ${id} spent`);
    }
    for (const [id, hold] of m.holds) {
      const row = stored.holds.get(id)!;
      assert.equal(row.settled, hold.settled, `${ws}: hold ${id} settled`);
      const modelStatus = hold.status === 'active' && hold.expiresAt <= now.getTime() ? 'expired' : hold.status;
      assert.equal(effectiveStatus(row, now), modelStatus, `${ws}: hold ${id} status`);
    }
    assert.equal(stored.spentByEntries, this.answered.charged, `${ws}: entries = sum of answers`);
    for (const [key, reference] of this.references) {
      assert.equal(stored.usageReferences.get(key), reference, `${ws}: settle ${key} listed under its call`);
    }
  }
}
