// The runs table: submits, claims and their leases, reads, cancels and files.
// The run loop writes through `Fenced` (fenced.ts), which changes the row only
// while the replica still holds its claim.
import { type AgentRun, Prisma } from '../generated/prisma/client.js';
import type { AgentDatabase } from './database.js';
import { appendEvent, type Tx } from './events.js';
import { Fenced } from './fenced.js';

export type RunRow = AgentRun;

export interface NewRun {
  workspaceId: string;
  requestId: string;
  task: string;
  startUrl: string | undefined;
  profileId: string | undefined;
  outputSchema: unknown;
  model: string;
  /** A step profile or lab arm the run asked for; undefined: the model's own. */
  stepProfile?: string;
  maxCredits: number;
  maxSteps: number;
}

export interface NewFile {
  handle: string;
  name: string;
  mimeType: string;
  size: number;
  sealed: Uint8Array<ArrayBuffer>;
}

/** The statuses a run passes through, in order. */
export const RUN_STATUSES = ['queued', 'running', 'paused', 'settled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How many characters of its task a listed run shows. */
export const LISTED_TASK_CHARS = 200;

/** A run as a listing reads it: the columns of a summary, its task cut short. */
export type ListedRun = Pick<
  RunRow,
  | 'id'
  | 'status'
  | 'outcome'
  | 'pausedFor'
  | 'reasonCode'
  | 'reasonMessage'
  | 'task'
  | 'model'
  | 'sessionId'
  | 'steps'
  | 'billed'
  | 'chargedMc'
  | 'createdAt'
  | 'startedAt'
  | 'finishedAt'
>;

export interface RunListing {
  status?: RunStatus;
  /** The last run of the previous page: the page holds the runs older than it. */
  after?: { createdAt: Date; id: string };
  limit: number;
}

/** What the loop keeps of a claim: the row as it was claimed. */
export type Claimed = RunRow;

/** Every column of a run as RunRow names it, for statements Prisma's builder cannot write (`r` is the run). */
const RUN_COLUMNS = Prisma.raw(`r.id, r.workspace_id AS "workspaceId", r.request_id AS "requestId", r.task,
  r.start_url AS "startUrl", r.profile_id AS "profileId", r.output_schema AS "outputSchema",
  r.model, r.step_profile AS "stepProfile", r.max_credits AS "maxCredits", r.max_steps AS "maxSteps",
  r.status, r.outcome,
  r.paused_for AS "pausedFor", r.question, r.reply, r.answer, r.reason_code AS "reasonCode",
  r.reason_message AS "reasonMessage", r.plan, r.memory, r.steps,
  r.cancel_requested AS "cancelRequested", r.session_id AS "sessionId", r.site,
  r.claimed_by AS "claimedBy", r.lease_until AS "leaseUntil", r.attempt, r.metering, r.billed,
  r.charged_mc AS "chargedMc", r.input_tokens AS "inputTokens", r.output_tokens AS "outputTokens",
  r.event_seq AS "eventSeq", r.record_seq AS "recordSeq", r.created_at AS "createdAt",
  r.started_at AS "startedAt", r.finished_at AS "finishedAt"`);

export class RunStore {
  constructor(private readonly db: AgentDatabase) {}

  /** The run a request made, if it made one (a retried submit). */
  byRequest(workspaceId: string, requestId: string): Promise<RunRow | null> {
    return this.db.agentRun.findUnique({ where: { workspaceId_requestId: { workspaceId, requestId } } });
  }

  /** The workspace's runs waiting to start (for a replica or a browser slot): the queue AGENT_MAX_QUEUED_RUNS bounds. */
  queuedCount(workspaceId: string): Promise<number> {
    return this.db.agentRun.count({ where: { workspaceId, status: 'queued' } });
  }

  /** A new queued run with its files and its first event; `also` writes more of it in the same transaction (its grants). */
  async submit(id: string, run: NewRun, files: NewFile[], also?: (tx: Tx) => Promise<void>): Promise<RunRow> {
    if (files.length === 0 && !also) {
      // The common submit in one statement: a submit's answer waits on it.
      const schema = run.outputSchema === undefined ? null : JSON.stringify(run.outputSchema);
      const [row] = await this.db.$queryRaw<RunRow[]>`
        WITH r AS (
          INSERT INTO agent_runs (id, workspace_id, request_id, task, start_url, profile_id, output_schema,
                                  model, step_profile, max_credits, max_steps, event_seq)
          VALUES (${id}::uuid, ${run.workspaceId}::uuid, ${run.requestId}, ${run.task}, ${run.startUrl ?? null},
                  ${run.profileId ?? null}::uuid, ${schema}::jsonb, ${run.model}, ${run.stepProfile ?? null},
                  ${run.maxCredits}, ${run.maxSteps}, 1)
          RETURNING *
        ), queued AS (
          INSERT INTO agent_events (run_id, seq, level, kind, message, data)
          SELECT id, 1, 'summary', 'status', 'queued', '{"status":"queued"}'::jsonb FROM r
        )
        SELECT ${RUN_COLUMNS} FROM r`;
      return row as RunRow;
    }
    return this.db.$transaction(async (tx) => {
      const created = await tx.agentRun.create({
        data: {
          id,
          workspaceId: run.workspaceId,
          requestId: run.requestId,
          task: run.task,
          startUrl: run.startUrl ?? null,
          profileId: run.profileId ?? null,
          outputSchema: (run.outputSchema ?? undefined) as Prisma.InputJsonValue | undefined,
          model: run.model,
          stepProfile: run.stepProfile ?? null,
          maxCredits: run.maxCredits,
          maxSteps: run.maxSteps,
          eventSeq: 1n,
        },
      });
      await tx.agentEvent.create({
        data: { runId: id, seq: 1n, level: 'summary', kind: 'status', message: 'queued', data: { status: 'queued' } },
      });
      if (files.length > 0) await tx.agentFile.createMany({ data: files.map((f) => ({ ...f, runId: id })) });
      await also?.(tx);
      return created;
    });
  }

  /** The workspace's run; undefined for another workspace's or none. */
  get(workspaceId: string, runId: string): Promise<RunRow | null> {
    return this.db.agentRun.findFirst({ where: { id: runId, workspaceId } });
  }

  /**
   * The workspace's runs, newest first, from after `after`: a keyset read, so a
   * page costs the same however deep, and runs submitted meanwhile never make
   * a reader see a run twice or miss one (as an offset would). Served by the
   * (workspace_id, created_at, id) index, or its status twin when filtered.
   */
  list(workspaceId: string, q: RunListing): Promise<ListedRun[]> {
    const status = q.status ? Prisma.sql`AND r.status = ${q.status}` : Prisma.empty;
    const after = q.after
      ? Prisma.sql`AND (r.created_at, r.id) < (${q.after.createdAt}::timestamptz, ${q.after.id}::uuid)`
      : Prisma.empty;
    return this.db.$queryRaw<ListedRun[]>`
      SELECT r.id, r.status, r.outcome, r.paused_for AS "pausedFor", r.reason_code AS "reasonCode",
             r.reason_message AS "reasonMessage", left(r.task, ${LISTED_TASK_CHARS}::int) AS task, r.model,
             r.session_id AS "sessionId", r.steps, r.billed, r.charged_mc AS "chargedMc",
             r.created_at AS "createdAt", r.started_at AS "startedAt", r.finished_at AS "finishedAt"
        FROM agent_runs AS r
       WHERE r.workspace_id = ${workspaceId}::uuid ${status} ${after}
       ORDER BY r.created_at DESC, r.id DESC
       LIMIT ${q.limit}`;
  }

  byId(runId: string): Promise<RunRow | null> {
    return this.db.agentRun.findUnique({ where: { id: runId } });
  }

  /**
   * Up to `limit` runs for `replica`: queued ones, oldest first, and live ones
   * whose claim lapsed (their replica died); each claimed for `leaseMs`.
   */
  claim(replica: string, limit: number, leaseMs: number): Promise<Claimed[]> {
    return this.db.$queryRaw<Claimed[]>`
      UPDATE agent_runs AS r
         SET claimed_by = ${replica}, lease_until = now() + ${leaseMs} * interval '1 millisecond',
             attempt = r.attempt + 1
       WHERE r.id IN (SELECT id FROM agent_runs
                       WHERE status IN ('queued', 'running', 'paused')
                         AND (lease_until IS NULL OR lease_until < now())
                       ORDER BY created_at
                       LIMIT ${limit}
                       FOR UPDATE SKIP LOCKED)
      RETURNING ${RUN_COLUMNS}`;
  }

  /** The loop's handle on one claimed run. */
  fenced(runId: string, replica: string): Fenced {
    return new Fenced(this.db, runId, replica);
  }

  /** A queued run nobody claimed yet is cancelled here; a claimed one is asked to stop (its loop settles it). */
  async cancel(workspaceId: string, runId: string): Promise<RunRow | null> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string; claimed_by: string | null; lease_until: Date | null }[]>`
        SELECT status, claimed_by, lease_until FROM agent_runs
         WHERE id = ${runId}::uuid AND workspace_id = ${workspaceId}::uuid FOR UPDATE`;
      if (!row) return null;
      if (row.status === 'settled') return tx.agentRun.findUnique({ where: { id: runId } });
      const unclaimed = row.status === 'queued' && (!row.lease_until || row.lease_until < new Date());
      if (unclaimed) {
        await tx.agentRun.update({
          where: { id: runId },
          data: {
            status: 'settled',
            outcome: 'cancelled',
            pausedFor: null,
            question: null,
            reasonCode: 'cancelled',
            reasonMessage: 'Cancelled before it started.',
            finishedAt: new Date(),
            cancelRequested: true,
          },
        });
        await tx.agentFile.deleteMany({ where: { runId } });
        await appendEvent(tx, runId, undefined, {
          level: 'summary',
          kind: 'status',
          message: 'settled: cancelled',
          data: { status: 'settled', outcome: 'cancelled' },
        });
      } else {
        await tx.agentRun.update({ where: { id: runId }, data: { cancelRequested: true } });
        await appendEvent(tx, runId, undefined, { level: 'summary', kind: 'cancel', message: 'cancel requested' });
      }
      return tx.agentRun.findUnique({ where: { id: runId } });
    });
  }

  /** Adds a file to a run that has not ended; `ended` when it has. */
  async addFile(workspaceId: string, runId: string, file: NewFile): Promise<'ok' | 'not_found' | 'ended'> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ status: string }[]>`
        SELECT status FROM agent_runs WHERE id = ${runId}::uuid AND workspace_id = ${workspaceId}::uuid FOR SHARE`;
      if (!row) return 'not_found' as const;
      if (row.status === 'settled') return 'ended' as const;
      await tx.agentFile.create({ data: { ...file, runId } });
      await appendEvent(tx, runId, undefined, {
        level: 'step',
        kind: 'file',
        message: `file handed over: ${file.handle}`,
        data: { handle: file.handle, name: file.name, size: file.size },
      });
      return 'ok' as const;
    });
  }

  files(runId: string) {
    return this.db.agentFile.findMany({
      where: { runId },
      select: { handle: true, name: true, mimeType: true, size: true },
      orderBy: { createdAt: 'asc' },
    });
  }

  file(runId: string, handle: string) {
    return this.db.agentFile.findFirst({ where: { runId, handle } });
  }

  /** Events after `after`, at `levels`, oldest first. */
  events(runId: string, levels: string[], after: bigint, limit: number) {
    return this.db.agentEvent.findMany({
      where: { runId, seq: { gt: after }, level: { in: levels } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
  }

  records(runId: string, after: bigint, limit: number) {
    return this.db.agentRecord.findMany({ where: { runId, seq: { gt: after } }, orderBy: { seq: 'asc' }, take: limit });
  }
}
