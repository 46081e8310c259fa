// Monitors fitted to their workspace's plan (docs/monitors.md, "Limits per
// plan"). The monitor service learns a workspace's plan from the gateway when
// a monitor is made, and otherwise from the ledger, which keeps the plan and
// announces each workspace whose plan (or any of its credits) moved: the
// workspaces announced that could be past some plan's cap have their plan
// read (the ledger's `Credits`) and their monitors fitted to it, pausing the
// newest past the cap and resuming them, oldest first, as room comes. A
// monitor deleted asks for the same look, as it may make room. An announcement
// lost is made up by the next one: a workspace whose monitors are checked is
// announced with every check it pays for.
import type { LedgerClient } from '@wap/billing';
import type { Logger } from '@wap/log';
import { PLAN_NAMES, PLANS, plans } from '@wap/plans';
import type { PlanCapStore } from '../store/plan-caps.js';
import { type Announcements, announcedWorkspaces } from './announced.js';

export interface PlanCapDeps {
  caps: PlanCapStore;
  ledger: LedgerClient;
  log: Logger;
  /** Where the ledger announces whose credits (and plan) changed. */
  announcements?: Announcements;
}

/** A workspace with no more monitors than this fits every plan. */
const SMALLEST_CAP = Math.min(...PLAN_NAMES.map((name) => PLANS[name].monitors));
/**
 * Announcements are gathered this long: a workspace whose checks settle many
 * times a second has its plan read at most once in it.
 */
const GATHER_MS = 1_000;

export function planCaps(deps: PlanCapDeps) {
  const { caps, ledger, log } = deps;

  const fit = async (workspaceId: string) => {
    try {
      const plan = plans.toName((await ledger.credits({ workspaceId })).plan);
      if (!plan) return;
      const { paused, resumed } = await caps.fit(workspaceId, PLANS[plan].monitors);
      if (paused > 0 || resumed > 0)
        log.info({ workspaceId, plan, paused, resumed }, "monitors past the plan's cap paused, those it keeps resumed");
    } catch (err) {
      // The next announcement of the workspace brings it back.
      log.warn({ err, workspaceId }, 'the plan could not be read; its monitors are fitted to it later');
    }
  };

  const announced = announcedWorkspaces(
    deps.announcements,
    { queue: 'monitor-plan-caps', gatherMs: GATHER_MS, log, otherwise: 'monitors fit their plan as it was' },
    async (ids) => {
      for (const workspaceId of await caps.mayNotFit(ids, SMALLEST_CAP)) await fit(workspaceId);
    },
  );

  return {
    /** A monitor of the workspace went: one paused past the cap may fit now. */
    changed: (workspaceId: string) => announced.add([workspaceId]),
    start: announced.start,
    stop: announced.stop,
  };
}

export type PlanCaps = ReturnType<typeof planCaps>;
