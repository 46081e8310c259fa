// The checks (docs/monitors.md, "A check"): due monitors claimed from the
// schedule, each fetched through crawl's Scrape under its own hold (a page,
// plus a change when the page changed), compared with its last snapshot on
// normalised text, and a change stored with its diff and its notification
// in one transaction (the outbox). A workspace that cannot cover a check is
// skipped, nothing billed, and paused (credit-pauses.ts); a fetch that fails
// is not billed.
import { createHash } from 'node:crypto';
import { billed, type LedgerClient } from '@wap/billing';
import { isApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { crawl } from '@wap/proto';
import type { Closable, ServiceClient } from '@wap/rpc';
import { PeriodicJob } from '@wap/service';
import { wordDiff } from '../domain/diff.js';
import { normalize } from '../domain/normalize.js';
import type { Claimed, MonitorStore } from '../store/monitors.js';

export type CrawlClient = ServiceClient<(typeof crawl.CrawlService)['method']> & Closable;

export interface CheckDeps {
  store: MonitorStore;
  ledger: LedgerClient;
  crawl: CrawlClient;
  log: Logger;
  /** This replica's name on the checks it claims. */
  replica: string;
  /** A check of the workspace was refused for credits: its checks stop being claimed until it can pay (credit-pauses.ts). */
  pause(workspaceId: string): Promise<void>;
}

export interface CheckSettings {
  /** How often the schedule is looked at. */
  pollMs: number;
  /** Checks one replica runs at once. */
  concurrency: number;
  /**
   * How long a claimed check is this replica's unless renewed: renewed every
   * third of it while the check runs, so a dead replica's checks are taken
   * over within it.
   */
  leaseMs: number;
}

/** The shortest wait for the next due monitor: due checks are claimed at most this often when caught up. */
const WAKE_MS = 100;

export const HELD = [
  { meter: 'page_load' as const, quantity: 1n },
  { meter: 'monitor_change' as const, quantity: 1n },
];

/** What a check compares: the watched part of the page as text. */
async function fetchWatched(deps: CheckDeps, claimed: Claimed): Promise<string> {
  const { monitor, check } = claimed;
  const watch = monitor.watch as { kind: string; selector?: string };
  const scrape = monitor.scrape as { engine?: string; headers?: Record<string, string>; waitForMs?: number };
  const engine =
    scrape.engine === 'browser'
      ? crawl.Engine.BROWSER
      : scrape.engine === 'fetch'
        ? crawl.Engine.FETCH
        : crawl.Engine.AUTO;
  const out = await deps.crawl.scrape({
    workspaceId: monitor.workspaceId,
    requestId: check.id,
    url: monitor.url,
    billedByCaller: true,
    options: {
      formats: [crawl.Format.MARKDOWN],
      onlyMainContent: watch.kind === 'main',
      includeTags: watch.kind === 'selector' && watch.selector ? [watch.selector] : [],
      waitForMs: scrape.waitForMs ?? 0,
      headers: scrape.headers ?? {},
      engine,
      // Always the page as it is now: never the cache.
      maxAgeMs: 0n,
    },
  });
  return out.document?.markdown ?? '';
}

/** One check, start to end; never throws (what went wrong is recorded on the check). */
export async function runCheck(deps: CheckDeps, claimed: Claimed): Promise<void> {
  const { monitor, check } = claimed;
  try {
    const { result } = await billed(
      deps.ledger,
      { workspaceId: monitor.workspaceId, operationId: check.id, capability: 'monitors.check', reference: monitor.id },
      HELD,
      async () => {
        const text = normalize(await fetchWatched(deps, claimed));
        const sha256 = createHash('sha256').update(text).digest('hex');
        // The newest snapshot's digest came with the claim; its text is read only when it changed (for the diff).
        const first = monitor.lastSha256 === null;
        const changed = !first && monitor.lastSha256 !== sha256;
        const last = changed ? await deps.store.lastSnapshotText(monitor.id) : undefined;
        return {
          result: { text, sha256, changed, first, before: last ?? '' },
          used: changed ? HELD : HELD.slice(0, 1),
        };
      },
    );
    if (result.first || result.changed)
      await deps.store.keepSnapshot({
        monitorId: monitor.id,
        checkId: check.id,
        text: result.text,
        sha256: result.sha256,
        ...(result.changed && { diff: wordDiff(result.before, result.text) }),
      });
    await deps.store.finish(check, { status: result.changed ? 'changed' : 'ok' });
  } catch (err) {
    if (isApiError(err) && err.code === 'quota_exceeded') {
      await deps.store.finish(check, { status: 'skipped', errorCode: err.code, skippedReason: 'credits' });
      await deps
        .pause(monitor.workspaceId)
        .catch((e: unknown) =>
          deps.log.warn({ err: e, workspaceId: monitor.workspaceId }, 'a workspace without credits was not paused'),
        );
      return;
    }
    const code = isApiError(err) ? err.code : 'internal';
    if (!isApiError(err)) deps.log.error({ err, monitorId: monitor.id, checkId: check.id }, 'check failed');
    await deps.store.finish(check, { status: 'failed', errorCode: code }).catch(() => undefined);
  }
}

/**
 * The schedule's loop: lapsed and due checks claimed and run, `concurrency`
 * at a time (only as many claimed as there is room for: a claimed check
 * waits for nobody else). `stop` waits for the checks in flight.
 */
export function checkRunner(deps: CheckDeps, settings: CheckSettings) {
  const running = new Set<Promise<void>>();
  const inFlight = new Set<string>();
  const renewal = new PeriodicJob(
    { name: 'monitor check leases', intervalMs: Math.max(100, Math.floor(settings.leaseMs / 3)), log: deps.log },
    () => deps.store.renew(deps.replica, [...inFlight], settings.leaseMs),
  );
  // Whether the last pass stopped for want of room rather than of due checks: then finished checks
  // make room for more at once, half the room at a time, instead of after the poll interval.
  let backlog = false;
  // Caught up: the next pass comes when the next monitor falls due, if that is before the next poll
  // (at most every WAKE_MS, so a stream of due monitors is claimed in batches, not one by one).
  let wake: NodeJS.Timeout | undefined;
  const wakeForNext = async () => {
    const next = await deps.store.nextDueAt();
    if (!next) return;
    const wait = Math.max(WAKE_MS, next.getTime() - Date.now());
    if (wait >= settings.pollMs) return;
    clearTimeout(wake);
    wake = setTimeout(() => job.nudge(), wait);
    wake.unref();
  };
  const job: PeriodicJob = new PeriodicJob(
    { name: 'monitor checks', intervalMs: settings.pollMs, log: deps.log, immediately: true },
    async () => {
      for (;;) {
        let room = settings.concurrency - running.size;
        backlog = room <= 0;
        if (backlog) return;
        const claimed = await deps.store.reclaimLapsed(deps.replica, room, settings.leaseMs);
        room -= claimed.length;
        if (room > 0) claimed.push(...(await deps.store.claimDue(deps.replica, room, settings.leaseMs)));
        if (claimed.length === 0) return wakeForNext();
        for (const c of claimed) {
          inFlight.add(c.check.id);
          const check = runCheck(deps, c).finally(() => {
            running.delete(check);
            inFlight.delete(c.check.id);
            if (backlog && running.size <= settings.concurrency / 2) job.nudge();
          });
          running.add(check);
        }
      }
    },
  );
  return {
    start: () => {
      job.start();
      renewal.start();
    },
    stop: async () => {
      clearTimeout(wake);
      await job.stop();
      await Promise.all(running);
      await renewal.stop();
    },
  };
}
