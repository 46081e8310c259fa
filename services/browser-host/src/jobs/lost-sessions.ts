// A host that died mid-session stops beating: its rows are ended as
// host_lost by whichever host sweeps next. Its slots lapse by themselves in
// the ledger (SLOT_TTL_SECONDS), and its holds at their TTL.
import type { Logger } from '@wap/log';
import { PeriodicJob } from '@wap/service';
import { METER_INTERVAL_MS } from '../sessions/session.js';
import type { SessionStore } from '../store/sessions.js';

/** Three missed heartbeats: the host is gone, not slow. */
export const LOST_AFTER_MS = 3 * METER_INTERVAL_MS;

export const lostSessionSweeper = (store: SessionStore, log: Logger, intervalMs = METER_INTERVAL_MS) =>
  new PeriodicJob({ name: 'lost session sweep', intervalMs, log }, async () => {
    const lost = await store.endLost(new Date(Date.now() - LOST_AFTER_MS));
    if (lost > 0) log.warn({ sessions: lost }, 'sessions of a host that stopped beating ended as host_lost');
    return lost;
  });
