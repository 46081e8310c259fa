// A host that died mid-session stops beating. Its live rows are found by
// whichever host sweeps next (or by the host itself, restarting under the
// same URL), and their bills finished from their journals: browser time runs
// until the last heartbeat, the charge in flight is replayed under its own
// key, the hold is voided (libs/billing recoverMetered). The slots lapse by
// themselves in the ledger (SLOT_TTL_SECONDS).
import { type LedgerClient, type MeteredState, recoverMetered } from '@wap/billing';
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import type { Profiles } from '../profiles/profiles.js';
import { kindOf, type SessionRow, type SessionStore } from '../store/sessions.js';

/** How often a host says its sessions are alive: at most this much browser time of a killed host goes unbilled. */
export const HEARTBEAT_MS = 2_000;
/** Fifteen missed heartbeats: the host is gone, not slow. */
export const LOST_AFTER_MS = 15 * HEARTBEAT_MS;
export const SWEEP_EVERY_MS = 10_000;

/** What the heartbeat needs of the host's session manager: its live sessions, and ending one. */
export interface LiveSessions {
  ids(): string[];
  get(id: string): { end(outcome: 'host_lost'): Promise<unknown> } | undefined;
}

/**
 * The host's heartbeat: its live sessions' rows, and the leases of the
 * profiles they hold; a row a sweep took for lost ends its session unbilled.
 */
export const sessionHeartbeat = (store: SessionStore, sessions: LiveSessions, log: Logger, profiles?: Profiles) =>
  new PeriodicJob({ name: 'session heartbeat', intervalMs: HEARTBEAT_MS, log }, async () => {
    const ids = sessions.ids();
    await profiles
      ?.renew(ids)
      .catch((err) => log.warn({ err }, 'profile leases not renewed; they lapse if this lasts'));
    const taken = await store.heartbeat(ids);
    for (const id of taken) {
      log.warn({ sessionId: id }, 'session row was taken for lost while its host ran; ending it unbilled');
      await sessions.get(id)?.end('host_lost');
    }
    return taken.length;
  });

/** The browser time of a lost row: from its start to its last heartbeat, in whole seconds rounded up. */
export const lostSeconds = (row: Pick<SessionRow, 'startedAt' | 'heartbeatAt'>): bigint =>
  BigInt(Math.max(0, Math.ceil((row.heartbeatAt.getTime() - row.startedAt.getTime()) / 1000)));

/** Finishes the bills of lost rows (every row stale, and `host`'s own); answers how many it ended. */
export async function recoverLost(store: SessionStore, ledger: LedgerClient, log: Logger, host?: string) {
  let ended = 0;
  for (const row of await store.lost(new Date(Date.now() - LOST_AFTER_MS), host)) {
    // Billed as it was while it ran: an agent run's browser under the run's capability, and without
    // browser time, which the run bills itself (agent_seconds); only what was in flight is replayed.
    const agentRun = kindOf(row) === 'agent';
    const charge = {
      workspaceId: row.workspaceId,
      operationId: row.operationId,
      capability: agentRun ? 'agent' : 'connect',
      reference: row.id,
    };
    const used = agentRun ? [] : [{ meter: 'context_seconds' as const, quantity: lostSeconds(row) }];
    const state = row.metering as MeteredState | null;
    // A row without a journal never held credit (its hold was refused or is lapsing by itself).
    const chargedMc = state ? await recoverMetered(ledger, charge, state, used) : 0n;
    if (await store.recovered(row, Number(lostSeconds(row)), chargedMc)) {
      ended++;
      log.warn(
        {
          sessionId: row.id,
          workspaceId: row.workspaceId,
          seconds: Number(lostSeconds(row)),
          chargedMc: String(chargedMc),
        },
        'session of a host that stopped beating ended as host_lost, its bill finished',
      );
    }
  }
  return ended;
}

export const lostSessionSweeper = (
  store: SessionStore,
  ledger: LedgerClient,
  log: Logger,
  intervalMs = SWEEP_EVERY_MS,
) => new PeriodicJob({ name: 'lost session sweep', intervalMs, log }, () => recoverLost(store, ledger, log));
