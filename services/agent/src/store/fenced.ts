// The run loop's writes to its run: each changes the row only while this
// replica still holds its claim, so a replica that lost it (its lease lapsed
// and another took the run) stops writing at its next call (ClaimLost).
import type { MeteredState } from '@wap/billing';
import type { Prisma, AgentRun as RunRow } from '../generated/prisma/client.js';
import type { AgentDatabase } from './database.js';
import { appendEvent, type NewEvent } from './events.js';

export type Outcome = 'completed' | 'failed' | 'cancelled';

/** Why a run ended or stopped, as its `reason`. */
export interface Reason {
  code: string;
  message: string;
}

/** The claim was lost: another replica has the run now. */
export class ClaimLost extends Error {
  constructor(runId: string) {
    super(`the claim on run ${runId} was lost`);
    this.name = 'ClaimLost';
  }
}

/** Writes of the run loop, each only while this replica holds the claim (ClaimLost otherwise). */
export class Fenced {
  constructor(
    private readonly db: AgentDatabase,
    readonly runId: string,
    readonly replica: string,
  ) {}

  private where() {
    return { id: this.runId, claimedBy: this.replica };
  }

  private async update(data: Prisma.AgentRunUpdateManyMutationInput): Promise<void> {
    const { count } = await this.db.agentRun.updateMany({ where: this.where(), data });
    if (count === 0) throw new ClaimLost(this.runId);
  }

  /** Renews the claim; answers the row as it stands (cancel asked, taken over, answered), or throws ClaimLost. */
  async renew(leaseMs: number): Promise<RunRow> {
    const [row] = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE agent_runs SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
       WHERE id = ${this.runId}::uuid AND claimed_by = ${this.replica} RETURNING id`;
    if (!row) throw new ClaimLost(this.runId);
    return (await this.db.agentRun.findUnique({ where: { id: this.runId } })) as RunRow;
  }

  async event(e: NewEvent): Promise<void> {
    if (!(await appendEvent(this.db, this.runId, this.replica, e))) throw new ClaimLost(this.runId);
  }

  async record(data: unknown): Promise<bigint> {
    const rows = await this.db.$queryRaw<{ seq: bigint }[]>`
      WITH s AS (
        UPDATE agent_runs SET record_seq = record_seq + 1
         WHERE id = ${this.runId}::uuid AND claimed_by = ${this.replica}
        RETURNING record_seq)
      INSERT INTO agent_records (run_id, seq, data)
      SELECT ${this.runId}::uuid, record_seq, ${JSON.stringify(data)}::jsonb FROM s
      RETURNING seq`;
    if (rows.length === 0) throw new ClaimLost(this.runId);
    return rows[0]?.seq ?? 0n;
  }

  started(sessionId: string): Promise<void> {
    return this.update({ status: 'running', sessionId, startedAt: new Date() });
  }

  /** The run's browser, kept on the row before the run starts driving it (a replica taking over reconnects to it). */
  session(sessionId: string): Promise<void> {
    return this.update({ sessionId });
  }

  /** After a step: the counters, the plan, what the loop carries on. */
  stepped(s: {
    steps: number;
    plan: string[];
    memory: unknown;
    inputTokens: bigint;
    outputTokens: bigint;
    site: string | null;
  }) {
    return this.update({
      steps: s.steps,
      plan: s.plan,
      memory: s.memory as Prisma.InputJsonValue,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      site: s.site,
    });
  }

  site(site: string | null): Promise<void> {
    return this.update({ site });
  }

  /** The metered hold's journal, and what is billed so far. */
  metered(state: MeteredState | null, billed: Record<string, string>, chargedMc: bigint): Promise<void> {
    return this.update({ metering: (state ?? undefined) as never, billed, chargedMc });
  }

  /** Settles the run and destroys its files, in one transaction. */
  async settle(outcome: Outcome, reason: Reason | null, answer: unknown): Promise<void> {
    await this.db.$transaction(async (tx) => {
      const { count } = await tx.agentRun.updateMany({
        where: this.where(),
        data: {
          status: 'settled',
          outcome,
          pausedFor: null,
          question: null,
          reasonCode: reason?.code ?? null,
          reasonMessage: reason?.message ?? null,
          ...(answer !== undefined && { answer: answer as Prisma.InputJsonValue }),
          finishedAt: new Date(),
          claimedBy: null,
          leaseUntil: null,
        },
      });
      if (count === 0) throw new ClaimLost(this.runId);
      await tx.agentFile.deleteMany({ where: { runId: this.runId } });
      await appendEvent(tx, this.runId, undefined, {
        level: 'summary',
        kind: 'status',
        message: `settled: ${outcome}${reason ? ` (${reason.code})` : ''}`,
        data: { status: 'settled', outcome, ...(reason && { reason }) },
      });
    });
  }

  /** Lets the run go for `ms` (it waits for a browser slot): no replica claims it before then. */
  async postpone(ms: number): Promise<void> {
    const rows = await this.db.$executeRaw`
      UPDATE agent_runs SET claimed_by = NULL, lease_until = now() + ${ms} * interval '1 millisecond'
       WHERE id = ${this.runId}::uuid AND claimed_by = ${this.replica}`;
    if (rows === 0) throw new ClaimLost(this.runId);
  }

  /** Lets the run go without ending it (this replica stops): another claims it at once. */
  async release(): Promise<void> {
    await this.db.agentRun.updateMany({ where: this.where(), data: { claimedBy: null, leaseUntil: null } });
  }
}
