// The one store of a run's pauses (docs/decisions/0019-agent-run-systems.md).
// A run waits for one thing at a time, and `paused_for` says which kind: a
// question for the caller, an approval, or a person driving its browser. The
// loop opens a pause under its claim, a person takes the wheel, and one
// resume path completes any kind. The completion stays on the row (`status`
// running, `paused_for` still naming the kind, `reply` its output) until the
// loop has read it, so nothing that completed a pause is missed between two
// of the loop's looks.
import type { AgentDatabase } from './database.js';
import { appendEvent, type NewEvent } from './events.js';
import { ClaimLost } from './fenced.js';
import type { RunRow } from './runs.js';

export type PauseKind = 'question' | 'approval' | 'control';

/** The output of an approved approval (it asked for a decision, so it carries no words). */
export const APPROVED = 'approved';
export const DENIED = 'denied';

/** A person's decision as the approval's output: an approved purchase may bring its CVC, sealed for the run. */
export function approvalOutput(approved: boolean, sealedCvc?: string): string {
  return approved ? (sealedCvc ? `${APPROVED}:${sealedCvc}` : APPROVED) : DENIED;
}

/** The decision an approval's output carries. */
export function readApproval(output: string): { approved: boolean; sealedCvc?: string } {
  const sealed = output.startsWith(`${APPROVED}:`) ? output.slice(APPROVED.length + 1) : undefined;
  return { approved: output === APPROVED || sealed !== undefined, ...(sealed && { sealedCvc: sealed }) };
}

const RUNNING: NewEvent = { level: 'summary', kind: 'status', message: 'running', data: { status: 'running' } };

export class PauseStore {
  constructor(private readonly db: AgentDatabase) {}

  /** The loop pauses its run for a question or an approval; only while `replica` holds the claim. */
  async open(runId: string, replica: string, kind: 'question' | 'approval', prompt: string): Promise<void> {
    const { count } = await this.db.agentRun.updateMany({
      where: { id: runId, claimedBy: replica },
      data: { status: 'paused', pausedFor: kind, question: prompt, reply: null },
    });
    if (count === 0) throw new ClaimLost(runId);
  }

  /** The loop has read what completed the pause; a pause opened since (a person took over) stays open. */
  async taken(runId: string, replica: string): Promise<void> {
    const rows = await this.db.$executeRaw`
      UPDATE agent_runs SET reply = NULL, paused_for = CASE WHEN status = 'paused' THEN paused_for END
       WHERE id = ${runId}::uuid AND claimed_by = ${replica}`;
    if (rows === 0) throw new ClaimLost(runId);
  }

  /** Whether a person drives the session's run now: the only time its control link may drive. */
  async driving(workspaceId: string, sessionId: string): Promise<boolean> {
    const found = await this.db.agentRun.findFirst({
      where: { workspaceId, sessionId, status: 'paused', pausedFor: 'control' },
      select: { id: true },
    });
    return found !== null;
  }

  /** Answers a run paused with a question; `not_asked` when it is not. */
  async answer(workspaceId: string, runId: string, reply: string): Promise<RunRow | 'not_found' | 'not_asked'> {
    const out = await this.complete(workspaceId, runId, 'question', reply, [
      { level: 'summary', kind: 'answer', message: 'the question was answered', data: { answer: reply } },
      RUNNING,
    ]);
    return out === 'not_paused' ? 'not_asked' : out;
  }

  /**
   * A person's decision on what a run paused for approval asked (a purchase, an action a rule
   * gates): the run resumes and reads it. `no_open_purchase` when the run waits for no approval.
   */
  async approve(
    workspaceId: string,
    runId: string,
    approved: boolean,
    /** An approved purchase's CVC, sealed for the run: the loop opens it for its one fill. */
    sealedCvc?: string,
  ): Promise<RunRow | 'not_found' | 'no_open_purchase'> {
    const out = await this.complete(workspaceId, runId, 'approval', approvalOutput(approved, sealedCvc), [
      { level: 'summary', kind: 'answer', message: approved ? 'approved' : 'denied', data: { approved } },
      RUNNING,
    ]);
    return out === 'not_paused' ? 'no_open_purchase' : out;
  }

  /**
   * Moves a run between the loop's hands and a person's: `take` pauses a live run (`paused_for:
   * control`), `release` completes that pause. Answers the row after, or why it could not. `why` is
   * the pause's status message when the run itself hands over (a captcha it could not pass).
   */
  async control(
    workspaceId: string,
    runId: string,
    take: boolean,
    why = 'paused: a person took control',
  ): Promise<{ row: RunRow } | { refused: 'not_found' | 'not_live' | 'not_taken' }> {
    if (take) return this.take(workspaceId, runId, why);
    const out = await this.complete(workspaceId, runId, 'control', undefined, [
      { ...RUNNING, message: 'running: control handed back' },
    ]);
    if (out === 'not_found') return { refused: 'not_found' };
    return out === 'not_paused' ? { refused: 'not_taken' } : { row: out };
  }

  /** A person takes the wheel of a live run; taking a run already taken is one take. */
  private take(
    workspaceId: string,
    runId: string,
    why: string,
  ): Promise<{ row: RunRow } | { refused: 'not_found' | 'not_live' }> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string; paused_for: string | null; session_id: string | null }[]>`
        SELECT status, paused_for, session_id FROM agent_runs
         WHERE id = ${runId}::uuid AND workspace_id = ${workspaceId}::uuid FOR UPDATE`;
      if (!row) return { refused: 'not_found' as const };
      // A run is live once it has its browser; a queued or settled one has nothing to drive.
      if (row.status === 'settled' || !row.session_id) return { refused: 'not_live' as const };
      if (row.status !== 'paused' || row.paused_for !== 'control') {
        await tx.agentRun.update({ where: { id: runId }, data: { status: 'paused', pausedFor: 'control' } });
        await appendEvent(tx, runId, undefined, {
          level: 'summary',
          kind: 'status',
          message: why,
          data: { status: 'paused', pausedFor: 'control' },
        });
      }
      return { row: (await tx.agentRun.findUnique({ where: { id: runId } })) as RunRow };
    });
  }

  /**
   * The one resume path: the run's open pause of `kind` is completed with `output` (a hand back has
   * none, and leaves a reply not yet read where it is), the run goes on, and `events` say so.
   */
  private complete(
    workspaceId: string,
    runId: string,
    kind: PauseKind,
    output: string | undefined,
    events: NewEvent[],
  ): Promise<RunRow | 'not_found' | 'not_paused'> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string; paused_for: string | null }[]>`
        SELECT status, paused_for FROM agent_runs
         WHERE id = ${runId}::uuid AND workspace_id = ${workspaceId}::uuid FOR UPDATE`;
      if (!row) return 'not_found' as const;
      if (row.status !== 'paused' || row.paused_for !== kind) return 'not_paused' as const;
      await tx.agentRun.update({
        where: { id: runId },
        data: { status: 'running', question: null, ...(output !== undefined && { reply: output }) },
      });
      for (const e of events) await appendEvent(tx, runId, undefined, e);
      return (await tx.agentRun.findUnique({ where: { id: runId } })) as RunRow;
    });
  }
}
