// Human control of a live session (docs/sessions.md, "Human control"): who
// may drive (the control gate, asked for every batch and remembered for a
// second), and the way a person's input goes to the session's browser host
// (a request on core NATS that only that host answers).
import { ApiError } from '@wap/errors';
import { type ControlBatch, type ControlReply, controlReply, type NatsLink, sessionStreamNames } from '@wap/events';
import type { Logger } from '@wap/log';

/**
 * Whether a session may be driven by a person right now: the agent service
 * says yes while its run is taken over. The gateway asks it for every batch
 * (remembered for about a second), whatever the link says.
 */
export interface ControlGate {
  allowed(workspaceId: string, sessionId: string): Promise<boolean>;
}

/** The gate until one is wired: nobody drives anything. */
export const noControl: ControlGate = { allowed: async () => false };

/** How long the gate's answer is kept. */
export const GATE_CACHE_MS = 1_000;
/** How long a batch waits for its host: past this the person gets deadline_exceeded (the host bounds its own work below it). */
export const INPUT_TIMEOUT_MS = 10_000;

/** A gate whose answers are kept GATE_CACHE_MS; an answer that fails is a no, and is not kept. */
export class CachedControlGate implements ControlGate {
  private readonly answers = new Map<string, { at: number; allowed: Promise<boolean> }>();

  constructor(
    private readonly gate: ControlGate,
    private readonly log: Logger,
    private readonly ttlMs = GATE_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  allowed(workspaceId: string, sessionId: string): Promise<boolean> {
    const key = `${workspaceId}\n${sessionId}`;
    const now = this.now();
    const kept = this.answers.get(key);
    if (kept && now - kept.at < this.ttlMs) return kept.allowed;
    if (this.answers.size >= 10_000)
      for (const [k, v] of this.answers) if (now - v.at >= this.ttlMs) this.answers.delete(k);
    const allowed = this.gate.allowed(workspaceId, sessionId).then(
      (yes) => yes === true,
      (err) => {
        this.answers.delete(key);
        this.log.warn({ err, sessionId }, 'control gate failed: control refused');
        return false;
      },
    );
    this.answers.set(key, { at: now, allowed });
    return allowed;
  }
}

export interface ControlTarget {
  workspaceId: string;
  sessionId: string;
  site: string;
}

export class HumanControl {
  private readonly names;

  constructor(
    private readonly nc: NatsLink['nc'],
    namespace: string,
    readonly gate: ControlGate,
    private readonly timeoutMs = INPUT_TIMEOUT_MS,
  ) {
    this.names = sessionStreamNames(namespace);
  }

  /** replay_control_denied (`not_permitted`) unless the gate allows driving the session now. */
  async authorize(target: ControlTarget): Promise<void> {
    if (!(await this.gate.allowed(target.workspaceId, target.sessionId)))
      throw new ApiError('replay_control_denied', { sessionId: target.sessionId, reason: 'not_permitted' });
  }

  /**
   * Sends a validated batch to the session's host and answers what the host
   * did; a session no host runs is replay_control_denied (`not_live`).
   */
  async send(target: ControlTarget, batch: ControlBatch): Promise<Extract<ControlReply, { ok: true }>> {
    const body = JSON.stringify({ site: target.site, tab: batch.tab, actions: batch.actions });
    let raw: unknown;
    try {
      const answer = await this.nc.request(this.names.liveInput(target.sessionId), body, { timeout: this.timeoutMs });
      raw = answer.json<unknown>();
    } catch (err) {
      if (isNoResponders(err))
        throw new ApiError('replay_control_denied', { sessionId: target.sessionId, reason: 'not_live' });
      if (isTimeout(err)) throw new ApiError('deadline_exceeded', { timeoutMs: this.timeoutMs });
      throw err;
    }
    const parsed = controlReply.safeParse(raw);
    if (!parsed.success) throw new Error('the browser host answered a control batch with something else');
    const reply = parsed.data;
    if (reply.ok) return reply;
    switch (reply.refused) {
      case 'not_live':
        throw new ApiError('replay_control_denied', { sessionId: target.sessionId, reason: 'not_live' });
      case 'cross_site':
        throw new ApiError('replay_control_cross_site', { host: reply.host ?? '' });
      case 'no_tab':
        throw new ApiError('bad_request', {
          issues: [{ path: 'body.tab', message: 'is not an open tab of the session' }],
        });
      case 'invalid':
        throw new ApiError('bad_request', { issues: [{ path: 'body', message: 'was refused by the browser host' }] });
      case 'unresponsive':
        throw new ApiError('deadline_exceeded', {});
    }
  }
}

/** NATS' answer when nobody listens on a request's subject (a RequestError caused by NoResponders). */
const isNoResponders = (err: unknown) => {
  const e = err as { name?: string; cause?: { name?: string } } | undefined;
  return e?.name === 'NoResponders' || e?.cause?.name === 'NoResponders';
};
const isTimeout = (err: unknown) => {
  const e = err as { name?: string; cause?: { name?: string } } | undefined;
  return e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError';
};
