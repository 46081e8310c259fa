// Claims runs and drives each in a RunLoop, up to AGENT_CONCURRENCY at once:
// queued runs, oldest first, and live runs whose replica stopped renewing its
// claim. A submit (or a cancel, an answer, a take-over) wakes the replicas
// over core NATS so nothing waits for the next poll; the poll is the fallback.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import type { RunStore } from '../store/runs.js';
import { type LoopDeps, RunLoop } from './run-loop.js';

/** Core NATS (nothing kept): a run id whose row changed. */
export const agentWakeSubject = (namespace: string) => `${namespace}agent.wake`;

export interface RunnerSettings {
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  namespace: string;
}

export class Runner {
  readonly replica = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly loops = new Map<string, { loop: RunLoop; done: Promise<void> }>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private subscription: ReturnType<NatsLink['nc']['subscribe']> | undefined;
  private claiming = false;

  constructor(
    private readonly store: RunStore,
    private readonly nats: NatsLink,
    private readonly loopDeps: Omit<LoopDeps, 'replica' | 'leaseMs'>,
    private readonly settings: RunnerSettings,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.claim(), this.settings.pollMs);
    this.timer.unref();
    this.subscription = this.nats.nc.subscribe(agentWakeSubject(this.settings.namespace), {
      callback: (err, message) => {
        if (err) return;
        const runId = message.string();
        const mine = this.loops.get(runId);
        if (mine) mine.loop.poke();
        else void this.claim();
      },
    });
    void this.claim();
  }

  /** Tells every replica to look at a run now. */
  wake(runId: string): void {
    this.nats.nc.publish(agentWakeSubject(this.settings.namespace), runId);
  }

  /** Claims what this replica has room for and starts a loop for each. */
  async claim(): Promise<void> {
    if (this.claiming || this.stopping.signal.aborted) return;
    const room = this.settings.concurrency - this.loops.size;
    if (room <= 0) return;
    this.claiming = true;
    try {
      const rows = await this.store.claim(this.replica, room, this.settings.leaseMs);
      for (const row of rows) {
        const loop = new RunLoop(
          { ...this.loopDeps, replica: this.replica, leaseMs: this.settings.leaseMs },
          row,
          this.stopping.signal,
        );
        const done = loop.run().finally(() => {
          this.loops.delete(row.id);
          // A slot freed: there may be more queued.
          if (!this.stopping.signal.aborted) setImmediate(() => void this.claim());
        });
        this.loops.set(row.id, { loop, done });
      }
    } catch (err) {
      this.log.warn({ err }, 'claiming runs failed; the next poll tries again');
    } finally {
      this.claiming = false;
    }
  }

  /** Runs this replica drives now. */
  get active(): number {
    return this.loops.size;
  }

  /** Stops claiming and lets every run go (unsettled): another replica takes each at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.subscription?.unsubscribe();
    this.stopping.abort();
    await Promise.all([...this.loops.values()].map((l) => l.done));
  }
}
