// Helpers kept by hand beside the generated methods: waiting for a crawl or an agent run to
// settle (always with an overall timeout), and following a run's events as they come.
import { type RequestOptions, sleep } from './core.js';
import { WaitTimeoutError } from './errors.js';
import type { operations } from './generated/openapi.js';

type JsonOf<Id extends keyof operations, Status extends number = 200> =
  operations[Id]['responses'] extends Record<Status, { content: { 'application/json': infer T } }> ? T : never;

/** What `crawl.get` answers. */
export type CrawlStatus = JsonOf<'crawl.get'>;
/** What `agent.get` answers. */
export type AgentRunStatus = JsonOf<'agent.get'>;
/** One event of a run, as `agent.events` answers it. */
export type AgentEvent = JsonOf<'agent.events'>['events'][number];

/** Default overall timeouts of the waits: a wait that never ends is a bug in waiting. */
export const CRAWL_WAIT_TIMEOUT_MS = 30 * 60_000;
export const AGENT_WAIT_TIMEOUT_MS = 60 * 60_000;
export const WAIT_POLL_INTERVAL_MS = 2_000;

export interface WaitOptions<T> {
  /** Give up after this many milliseconds in all (WaitTimeoutError; the work goes on). `Infinity`: never. */
  timeoutMs?: number;
  /** Milliseconds between two reads (default 2,000). */
  pollIntervalMs?: number;
  /** Called with each state read, the last one included. */
  onProgress?: (state: T) => void | Promise<void>;
  /** Ends the wait (APIUserAbortError); the work goes on. */
  signal?: AbortSignal;
}

export interface AgentWaitOptions extends WaitOptions<AgentRunStatus> {
  /**
   * Called when the run pauses with a question; a string returned is sent as the answer
   * (`agent.answer`), undefined leaves the question open (answer it elsewhere).
   */
  onQuestion?: (question: string, state: AgentRunStatus) => string | undefined | Promise<string | undefined>;
}

export interface FollowOptions {
  /** Verbosity: `summary` < `step` (default) < `debug`. */
  level?: 'summary' | 'step' | 'debug';
  /** The last sequence already seen: events after it come. */
  after?: number;
  signal?: AbortSignal;
}

export interface Helpers {
  crawl: {
    /** Polls `crawl.get` until the crawl is settled; answers its last status. */
    wait(id: string, options?: WaitOptions<CrawlStatus>): Promise<CrawlStatus>;
  };
  agent: {
    /** Polls `agent.get` until the run is settled, answering its questions through `onQuestion`. */
    wait(id: string, options?: AgentWaitOptions): Promise<AgentRunStatus>;
    /** Every event of the run from `after` on, as it happens (long polls), until the run is settled. */
    follow(id: string, options?: FollowOptions): AsyncGenerator<AgentEvent>;
  };
}

/**
 * Calls an operation by its id with its path values, parameters and options, wherever the
 * generated method takes them (a method without parameters takes none).
 */
export type Invoke = <T>(
  operationId: string,
  pathArgs: string[],
  params: Record<string, unknown>,
  options: RequestOptions,
) => PromiseLike<T>;

/** Reads until `done`, every `pollIntervalMs`, within the overall timeout. */
async function waitFor<T>(
  read: (signal: AbortSignal) => PromiseLike<T>,
  done: (state: T) => boolean,
  options: WaitOptions<T>,
  defaultTimeoutMs: number,
  onEach?: (state: T, signal: AbortSignal) => Promise<void>,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const deadline = Number.isFinite(timeoutMs) ? AbortSignal.timeout(Math.max(0, timeoutMs)) : undefined;
  const signals = [options.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length ? AbortSignal.any(signals) : new AbortController().signal;
  let last: T | undefined;
  try {
    for (;;) {
      last = await read(signal);
      await options.onProgress?.(last);
      if (done(last)) return last;
      await onEach?.(last, signal);
      await sleep(options.pollIntervalMs ?? WAIT_POLL_INTERVAL_MS, signal);
    }
  } catch (err) {
    if (deadline?.aborted && !options.signal?.aborted) throw new WaitTimeoutError(timeoutMs, last);
    throw err;
  }
}

export function helpers(invoke: Invoke): Helpers {
  return {
    crawl: {
      wait: (id, options = {}) =>
        waitFor(
          (signal) => invoke<CrawlStatus>('crawl.get', [id], {}, { signal }),
          (s) => s.crawl.status === 'settled',
          options,
          CRAWL_WAIT_TIMEOUT_MS,
        ),
    },
    agent: {
      wait: (id, options = {}) => {
        let answered = '';
        return waitFor(
          (signal) => invoke<AgentRunStatus>('agent.get', [id], {}, { signal }),
          (s) => s.run.status === 'settled',
          options,
          AGENT_WAIT_TIMEOUT_MS,
          async (s, signal) => {
            const { run } = s;
            if (run.status !== 'paused' || run.pausedFor !== 'question' || !run.question || !options.onQuestion) return;
            const asked = `${run.steps}\n${run.question}`;
            if (asked === answered) return;
            const answer = await options.onQuestion(run.question, s);
            if (answer === undefined) return;
            answered = asked;
            await invoke('agent.answer', [id], { answer }, { signal });
          },
        );
      },
      async *follow(id, options = {}) {
        let after = options.after ?? 0;
        const limit = 100;
        for (;;) {
          // A long poll: the gateway holds the answer up to 20 s until an event comes.
          const page = await invoke<JsonOf<'agent.events'>>(
            'agent.events',
            [id],
            { after, level: options.level ?? 'step', wait: 20, limit },
            { signal: options.signal, timeoutMs: 60_000 },
          );
          yield* page.events;
          after = page.next;
          if (page.status === 'settled' && page.events.length < limit) return;
        }
      },
    },
  };
}
