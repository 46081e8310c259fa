// One claimed run, driven to its end or until this replica lets it go
// (docs/agent.md, "The loop"; docs/decisions/0019-agent-run-systems.md). The
// loop only composes: it builds the run's systems (its metering, its browser,
// its pauses, the workspace's gates, its secrets and purchases, its tools,
// what it hands back, and the step that drives them all), keeps the claim
// (renewed every third of the lease, and at a wake), and sets the order of
// the run's life: an earlier claim's bill finished, the model ready, the
// policy read, the hold and the browser opened, then a checkpoint and a step
// until one of them ends the run.
import type { LedgerClient } from '@wap/billing';
import type { BrowserHosts } from '@wap/browser-hosts';
import type { Logger } from '@wap/log';
import type { ModelRegistry } from '../clients/models.js';
import type { ModelClient } from '../model/types.js';
import { ClaimLost } from '../store/fenced.js';
import type { PauseStore } from '../store/pauses.js';
import type { RunRow, RunStore } from '../store/runs.js';
import { type PolicyDeps, RunPolicy } from './run-policy.js';
import { BrowserSystem, type SessionDriver } from './systems/browser.js';
import { RunContext, Stop } from './systems/context.js';
import { GateSystem } from './systems/gates.js';
import { MeteringSystem } from './systems/metering.js';
import { OutputSystem } from './systems/output.js';
import { type Decision, PauseSystem } from './systems/pauses.js';
import { SecretSystem } from './systems/secrets.js';
import { StepSystem } from './systems/step.js';
import { ToolSystem } from './systems/tools.js';

/** A model that cannot answer yet is asked again this often. */
const MODEL_WAIT_MS = 2_000;

export interface LoopDeps {
  store: RunStore;
  pauses: PauseStore;
  ledger: LedgerClient;
  hosts: BrowserHosts;
  models: ModelRegistry;
  log: Logger;
  replica: string;
  leaseMs: number;
  filesKey: string | undefined;
  /** What the run's grants and the workspace's rules are read from (none: nothing granted, no rules). */
  policy?: PolicyDeps;
  /** How long a run paused for an approval waits for it. */
  approvalTimeoutMs: number;
  /** The key an approval's CVC is sealed with (the secrets' key); unset, no CVC is taken. */
  secretsKey?: string;
  /** Tells the session's host a person handed the wheel back: its guard on the person's navigations ends at once. */
  releaseControl(sessionId: string): Promise<void>;
  /** Connects to the run's session and wraps it for the loop (Playwright over the host's CDP endpoint). */
  openDriver(webSocketUrl: string): Promise<SessionDriver>;
}

/** What the systems take of the loop's deps: all but the claim's own and the models, which are the loop's. */
export type SystemDeps = Omit<LoopDeps, 'models' | 'log' | 'replica' | 'leaseMs'>;

/**
 * The systems of one run, each handed the others it calls and what it needs of `deps`: the one
 * place they are wired (the loop's, and a test's). Built in the order of their ending: the bill is
 * closed first, the step's timing told, the browser's session ended last.
 */
export function runSystems(run: RunContext, deps: SystemDeps) {
  const metering = new MeteringSystem(run, deps.ledger);
  const browser = new BrowserSystem(run, metering, deps);
  const pauses = new PauseSystem(run, metering, browser, deps);
  const gates = new GateSystem(run, metering, browser, pauses);
  const secrets = new SecretSystem(run, browser, pauses, {
    intents: deps.policy?.intents,
    secretsKey: deps.secretsKey,
  });
  const tools = new ToolSystem(run, deps.policy?.integrations);
  const output = new OutputSystem(run);
  const steps = new StepSystem(run, { metering, browser, pauses, gates, secrets, tools, output }, deps.store);
  return { metering, browser, pauses, gates, secrets, tools, output, steps };
}

export class RunLoop {
  private readonly context: RunContext;
  private readonly systems: ReturnType<typeof runSystems>;
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: LoopDeps,
    row: RunRow,
    private readonly signal: AbortSignal,
  ) {
    this.context = new RunContext(row, deps.store.fenced(row.id, deps.replica), {
      leaseMs: deps.leaseMs,
      log: deps.log,
      signal,
    });
    this.systems = runSystems(this.context, deps);
  }

  /** Drives the run; resolves when it settled or was let go. Never throws. */
  async run(): Promise<void> {
    const run = this.context;
    this.renewal = setInterval(() => void run.renew().catch(() => undefined), this.deps.leaseMs / 3);
    this.signal.addEventListener('abort', () => run.stepAbort.abort(), { once: true });
    try {
      await this.drive();
    } catch (err) {
      if (err instanceof ClaimLost) run.log.warn('the run was taken by another replica; this one stops');
      else if (!(err instanceof Stop)) {
        run.log.error({ err }, 'run loop failed');
        await run
          .end('failed', { code: 'internal', message: 'The run stopped on an internal error.' })
          .catch(() => undefined);
      }
    } finally {
      clearInterval(this.renewal);
      // Let go without ending: the session waits for the next replica, and its bill for the next claim.
      if (run.latest.status !== 'settled') {
        await this.systems.metering.release();
        await this.systems.browser.letGo();
        await run.fenced.release().catch(() => undefined);
      }
    }
  }

  /** Asked by a wake message: look now. */
  poke(): void {
    void this.context.renew().catch(() => undefined);
  }

  private async drive(): Promise<void> {
    const run = this.context;
    const { metering, browser, pauses, steps } = this.systems;
    const row = run.row;
    await metering.recover();
    if (row.cancelRequested) return run.cancelled();
    const model = this.deps.models.get(row.model);
    if (!model)
      return run.end('failed', { code: 'capability_unavailable', message: `The model ${row.model} is not served.` });
    await this.untilReady(model);
    if (this.deps.policy) run.policy = await RunPolicy.load(this.deps.policy, row);
    await metering.open();
    const fresh = !row.sessionId;
    const sessionId = await browser.open();
    if (fresh) {
      await run.fenced.started(sessionId);
      // How long it stood queued: for a replica, the model, or (said in `waitedFor`) one of the plan's browsers.
      const queuedSeconds = Math.max(0, Math.round((Date.now() - row.createdAt.getTime()) / 1000));
      const waitedFor = run.memory.waiting;
      await run.event(
        'summary',
        'status',
        waitedFor ? `running, after ${queuedSeconds} s waiting for a ${waitedFor}` : 'running',
        { status: 'running', sessionId, queuedSeconds, ...(waitedFor && { waitedFor }) },
      );
      // An integration gone or changed since the submit is told once, at the start.
      for (const note of run.policy.notes) {
        await run.event('summary', 'integration', `${note.code}: ${note.message}`, note);
        run.memory.results.push(`integration unavailable (${note.code}): ${JSON.stringify(note.details)}`);
      }
    } else await run.event('step', 'resumed', 'resumed by another replica', { attempt: row.attempt });
    metering.resumeClock();
    if (fresh && row.startUrl) await browser.startPage(row.startUrl);
    const grants = {
      ...(row.outputSchema ? { outputSchema: row.outputSchema as Record<string, unknown> } : {}),
      ...run.policy.stepGrants(true),
    };
    for (;;) {
      await pauses.checkpoint((decision) => this.decided(decision));
      if (run.steps >= row.maxSteps)
        return run.end('failed', { code: 'max_steps', message: `The step cap (${row.maxSteps}) was reached.` });
      if (metering.overCap())
        return run.end('failed', {
          code: 'cap_exceeded',
          message: `The spend cap (${row.maxCredits} credits) would be passed by another step.`,
        });
      await steps.step(model, grants);
    }
  }

  /** A person's decision on an approval: a purchase's is the secrets', any other an action a rule gates. */
  private async decided(decision: Decision): Promise<void> {
    if (!(await this.systems.secrets.decided(decision))) this.systems.gates.decided(decision);
  }

  /**
   * A model that cannot answer yet (the embedded one still being fetched): the run waits queued,
   * before it takes a browser or a hold, so the wait costs nothing; it says why once.
   */
  private async untilReady(model: ModelClient): Promise<void> {
    const run = this.context;
    let said = false;
    for (let state = model.ready?.(); state && !state.ready; state = model.ready?.()) {
      if (!said) await run.event('summary', 'waiting', state.why, { for: 'model' });
      said = true;
      const row = await run.renew();
      if (row.cancelRequested) return run.cancelled();
      await run.idle(MODEL_WAIT_MS);
      if (this.signal.aborted) throw new Stop();
    }
  }
}
