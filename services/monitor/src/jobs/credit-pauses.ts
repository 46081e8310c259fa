// Workspaces whose checks were refused for credits (docs/monitors.md,
// "Credits"): paused at the first refusal, so their monitors are not claimed
// again and again while they cannot pay; their credits looked at again with
// a doubling wait (or when the plan's allowance renews), and at once when the
// ledger announces a change of them (a grant, a plan); checks resume as soon
// as the workspace can cover one.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { LedgerClient } from '@wap/billing';
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import { nextProbeAt } from '../domain/pause.js';
import type { DueProbe, PauseStore } from '../store/pauses.js';
import { type Announcements, announcedWorkspaces } from './announced.js';

export interface CreditPauseDeps {
  pauses: PauseStore;
  ledger: LedgerClient;
  log: Logger;
  /** The millicredits one check holds: what a workspace needs before its checks resume. */
  checkHoldMc: bigint;
  /** Where the ledger announces whose credits changed; without it, only the looks on the schedule resume checks. */
  announcements?: Announcements;
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

  const announced = announcedWorkspaces(
    deps.announcements,
    { queue: 'monitor-credit-pauses', gatherMs: GATHER_MS, log, otherwise: 'pauses end on schedule' },
    async (ids) => {
      // The pauses of those workspaces are looked at by whichever replica takes them.
      if ((await pauses.probeSoon(ids)) > 0) job.nudge();
    },
  );

  return {
    /** A check of the workspace was refused for credits. */
    pause: (workspaceId: string) => pauses.pause(workspaceId, nextProbeAt(new Date(), 0)),
    start: () => {
      job.start();
      announced.start();
    },
    stop: async () => {
      await announced.stop();
      await job.stop();
    },
  };
}

export type CreditPauses = ReturnType<typeof creditPauses>;
