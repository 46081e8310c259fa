// Claims runs and drives each in a RunLoop, up to AGENT_CONCURRENCY at once:
// queued runs, oldest first, and live runs whose replica stopped renewing its
// claim. A submit (or a cancel, an answer, a take-over) wakes the replicas
// over core NATS so nothing waits for the next poll; the poll is the fallback.
// The poll is a PeriodicJob, as the monitor's claims are: one pass at a time,
// and a wake during a pass runs another right after it.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
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
  private poll: PeriodicJob | undefined;
  private subscription: ReturnType<NatsLink['nc']['subscribe']> | undefined;

  constructor(
    private readonly store: RunStore,
    private readonly nats: NatsLink,
    private readonly loopDeps: Omit<LoopDeps, 'replica' | 'leaseMs'>,
    private readonly settings: RunnerSettings,
    private readonly log: Logger,
  ) {}

  start(): void {
    const poll = new PeriodicJob(
      { name: 'agent run claims', intervalMs: this.settings.pollMs, log: this.log, immediately: true },
      () => this.claim(),
    );
    this.poll = poll;
    this.subscription = this.nats.nc.subscribe(agentWakeSubject(this.settings.namespace), {
      callback: (err, message) => {
        if (err) return;
        const runId = message.string();
        const mine = this.loops.get(runId);
        if (mine) mine.loop.poke();
        else poll.nudge();
      },
    });
    poll.start();
  }

  /** Tells every replica to look at a run now. */
  wake(runId: string): void {
    this.nats.nc.publish(agentWakeSubject(this.settings.namespace), runId);
  }

  /** Claims what this replica has room for and starts a loop for each (one pass of the poll; a failure is logged and the next pass tries again). */
  private async claim(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const room = this.settings.concurrency - this.loops.size;
    if (room <= 0) return;
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
        this.poll?.nudge();
      });
      this.loops.set(row.id, { loop, done });
    }
  }

  /** Runs this replica drives now. */
  get active(): number {
    return this.loops.size;
  }

  /** Stops claiming and lets every run go (unsettled): another replica takes each at once. */
  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    this.stopping.abort();
    await this.poll?.stop();
    await Promise.all([...this.loops.values()].map((l) => l.done));
  }
}
