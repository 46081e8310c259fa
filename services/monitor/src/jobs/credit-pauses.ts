// Workspaces whose checks were refused for credits (docs/monitors.md,
// "Credits"): paused at the first refusal, so their monitors are not claimed
// again and again while they cannot pay; their credits looked at again with
// a doubling wait (or when the plan's allowance renews), and at once when the
// ledger announces a change of them (a grant, a plan); checks resume as soon
// as the workspace can cover one.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { LedgerClient } from '@wap/billing';
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import { nextProbeAt } from '../domain/pause.js';
import type { DueProbe, PauseStore } from '../store/pauses.js';

type Subscription = ReturnType<NatsLink['nc']['subscribe']>;

export interface CreditPauseDeps {
  pauses: PauseStore;
  ledger: LedgerClient;
  log: Logger;
  /** The millicredits one check holds: what a workspace needs before its checks resume. */
  checkHoldMc: bigint;
  /** Where the ledger announces whose credits changed; without it, only the looks on the schedule resume checks. */
  announcements?: { nc: NatsLink['nc']; subject: string };
}

/** Pauses looked at in one go. */
const BATCH = 16;
/** A look taken by a replica that died is taken by another after this. */
const LOOK_LEASE_MS = 30_000;
/** Announced workspaces are gathered this long, then looked up in one statement. */
const GATHER_MS = 200;

export function creditPauses(deps: CreditPauseDeps, pollMs: number) {
  const { pauses, ledger, log } = deps;

  const look = async ({ workspaceId, probes }: DueProbe) => {
    try {
      const credits = await ledger.credits({ workspaceId });
      if (credits.availableMillicredits >= deps.checkHoldMc) {
        if (await pauses.resume(workspaceId)) log.info({ workspaceId }, 'credits are back: checks resume');
        return;
      }
      const renews = credits.allowanceResetsAt ? timestampDate(credits.allowanceResetsAt) : undefined;
      await pauses.putOff(workspaceId, nextProbeAt(new Date(), probes + 1, renews));
    } catch (err) {
      // Its lease brings it back.
      log.warn({ err, workspaceId }, 'credits could not be looked at; looked at again later');
    }
  };

  const job = new PeriodicJob({ name: 'monitor credit pauses', intervalMs: pollMs, log }, async () => {
    for (;;) {
      const due = await pauses.takeDue(BATCH, LOOK_LEASE_MS);
      if (due.length === 0) return;
      await Promise.all(due.map(look));
    }
  });

  let subscription: Subscription | undefined;
  const announced = new Set<string>();
  let gathering: NodeJS.Timeout | undefined;
  const lookSoon = async () => {
    gathering = undefined;
    const ids = [...announced];
    announced.clear();
    if ((await pauses.probeSoon(ids)) > 0) job.nudge();
  };

  return {
    /** A check of the workspace was refused for credits. */
    pause: (workspaceId: string) => pauses.pause(workspaceId, nextProbeAt(new Date(), 0)),
    start: () => {
      job.start();
      const a = deps.announcements;
      if (!a) return;
      // One replica hears each announcement: the pause it names is looked at by whichever takes it.
      subscription = a.nc.subscribe(a.subject, {
        queue: 'monitor-credit-pauses',
        callback: (err, message) => {
          if (err) return log.warn({ err }, 'credit announcements: subscription failed; pauses end on schedule');
          try {
            const ids = message.json<unknown>();
            if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') announced.add(id);
          } catch {
            return;
          }
          gathering ??= setTimeout(() => {
            lookSoon().catch((e: unknown) => log.warn({ err: e }, 'announced credits not looked at'));
          }, GATHER_MS);
        },
      });
    },
    stop: async () => {
      subscription?.unsubscribe();
      clearTimeout(gathering);
      await job.stop();
    },
  };
}

export type CreditPauses = ReturnType<typeof creditPauses>;
