// What a run costs while it runs (docs/agent.md, "The loop"): its metered hold
// on the ledger (capability agent, operation `<run>:<attempt>`), journaled on
// the row so that a claim that dies is billed exactly once by the next; agent
// and browser seconds on a clock that stops while the run waits; a page per
// document; tokens at zero; and the spend cap, checked before each step.
import {
  type LedgerClient,
  MeteredHold,
  type MeteredState,
  type MeterName,
  priceUsage,
  recoverMetered,
} from '@wap/billing';
import { isApiError } from '@wap/errors';
import { type RunContext, SESSION_LIFETIME_SECONDS } from './context.js';

/** Credits held ahead of use at most: the run's spend cap bounds it too. */
const AHEAD_MC = 10_000n;

type Quantities = Partial<Record<MeterName, string>>;

const sum = (a: Quantities, b: Quantities) => {
  const out: Quantities = { ...a };
  for (const [m, q] of Object.entries(b) as [MeterName, string][]) out[m] = String(BigInt(out[m] ?? '0') + BigInt(q));
  return out;
};

export class MeteringSystem {
  private hold: MeteredHold | undefined;
  /** Quantities and millicredits billed by earlier claims, and this claim's hold on top. */
  private base: { billed: Quantities; chargedMc: bigint };
  private readonly unsettled = new Map<MeterName, bigint>();
  private state: MeteredState | undefined;
  /** Agent time: metered only while running. */
  private runningSince: number | undefined;
  private carryMs = 0;

  constructor(
    private readonly run: RunContext,
    private readonly ledger: LedgerClient,
    /** The clock agent time is read from (a test's own). */
    private readonly now: () => number = Date.now,
  ) {
    this.base = { billed: (run.row.billed ?? {}) as Quantities, chargedMc: run.row.chargedMc };
    run.onEnd('before', () => this.close());
  }

  /** A claim before this one died mid-run: finish its bill exactly once from its journal. */
  async recover(): Promise<void> {
    const row = this.run.row;
    const state = row.metering as MeteredState | null;
    if (!state?.holdId) return;
    const pending = state.pending?.meters ?? {};
    const used = sum(state.settled, pending);
    const charged = await recoverMetered(
      this.ledger,
      {
        workspaceId: row.workspaceId,
        operationId: `${row.id}:${row.attempt - 1}`,
        capability: 'agent',
        reference: row.id,
      },
      state,
      (Object.entries(used) as [MeterName, string][]).map(([meter, q]) => ({ meter, quantity: BigInt(q) })),
    );
    this.base = {
      billed: sum(this.base.billed, pending),
      chargedMc: this.base.chargedMc - BigInt(state.chargedMc) + charged,
    };
    await this.run.fenced.metered(null, this.base.billed, this.base.chargedMc);
  }

  /** Holds the run's first stretch; a refusal (no credit) ends the run with the ledger's code. */
  async open(): Promise<void> {
    const row = this.run.row;
    const cap = BigInt(row.maxCredits) * 1_000n;
    try {
      this.hold = await MeteredHold.open(
        this.ledger,
        {
          workspaceId: row.workspaceId,
          operationId: `${row.id}:${row.attempt}`,
          capability: 'agent',
          reference: row.id,
        },
        {
          aheadMc: cap < AHEAD_MC ? cap : AHEAD_MC,
          ttlSeconds: SESSION_LIFETIME_SECONDS + 3_600,
          onExhausted: () => this.run.stepAbort.abort(),
          journal: async (state) => {
            this.state = state;
            await this.run.fenced.metered(
              state,
              sum(this.base.billed, state.settled),
              this.base.chargedMc + BigInt(state.chargedMc),
            );
          },
        },
      );
    } catch (err) {
      this.run.log.warn({ err }, 'the run cannot be held on the ledger');
      if (isApiError(err)) await this.run.end('failed', { code: err.code, message: err.message });
      throw err;
    }
  }

  /** Gives the hold back without ending the run: it waits in the queue holding nothing (a browser slot). */
  async giveBack(): Promise<void> {
    await this.hold?.close().catch(() => undefined);
    this.hold = undefined;
    await this.run.fenced.metered(null, this.base.billed, this.base.chargedMc);
  }

  add(meter: MeterName, quantity: bigint): void {
    if (quantity <= 0n) return;
    this.hold?.add(meter, quantity);
    this.unsettled.set(meter, (this.unsettled.get(meter) ?? 0n) + quantity);
  }

  /** Credits the run has used (earlier claims, this one settled and not yet settled). */
  spentMc(): bigint {
    const all = sum(this.base.billed, this.state?.settled ?? {});
    for (const [m, q] of this.unsettled) all[m] = String(BigInt(all[m] ?? '0') + q);
    for (const [m, q] of Object.entries(this.state?.settled ?? {}) as [MeterName, string][]) {
      // `unsettled` counts everything added this claim; the settled part is already in `all`.
      all[m] = String(BigInt(all[m] ?? '0') - BigInt(q));
    }
    return priceUsage(
      (Object.entries(all) as [MeterName, string][]).map(([meter, q]) => ({ meter, quantity: BigInt(q) })),
    ).millicredits;
  }

  /** Another step would pass the cap: what a step costs on average so far, or a page and half a minute at the start. */
  overCap(): boolean {
    this.accrue();
    const spent = this.spentMc();
    const perStep = this.run.steps > 0 ? spent / BigInt(this.run.steps) : 1_000n + 3_000n;
    return spent + perStep > BigInt(this.run.row.maxCredits) * 1_000n;
  }

  /** The run goes on (it started, or a pause ended): its time is metered again. */
  resumeClock(): void {
    this.runningSince ??= this.now();
  }

  /** The run waits (a question, an approval, a person driving): its time is not metered meanwhile. */
  pauseClock(): void {
    this.accrue();
    this.runningSince = undefined;
  }

  /** Adds the running time since the last look, in whole seconds, to agent and browser time. */
  accrue(final = false): void {
    if (this.runningSince === undefined) return;
    const now = this.now();
    this.carryMs += now - this.runningSince;
    this.runningSince = now;
    const seconds = final ? Math.ceil(this.carryMs / 1_000) : Math.floor(this.carryMs / 1_000);
    this.carryMs = Math.max(0, this.carryMs - seconds * 1_000);
    this.add('agent_seconds', BigInt(seconds));
    this.add('context_seconds', BigInt(seconds));
  }

  /** Charges what accrued; a failed settle is retried by the next. */
  async settle(): Promise<void> {
    await this.hold?.settle().catch((err) => this.run.log.warn({ err }, 'run settle failed; the next one retries'));
  }

  /** The run ends: the last of its time (rounded up) charged, the hold released, the bill written on the row. */
  async close(): Promise<void> {
    this.accrue(true);
    this.runningSince = undefined;
    if (!this.hold) return;
    await this.hold.close().catch((err) => this.run.log.warn({ err }, 'run hold not closed; it lapses'));
    const state = this.hold.state();
    this.base = { billed: sum(this.base.billed, state.settled), chargedMc: this.base.chargedMc + this.hold.charged };
    this.hold = undefined;
    await this.run.fenced.metered(null, this.base.billed, this.base.chargedMc);
  }

  /** This replica lets the run go: what accrued is settled, and the journal lets the next claim finish the bill. */
  async release(): Promise<void> {
    await this.hold?.settle().catch(() => undefined);
  }
}
