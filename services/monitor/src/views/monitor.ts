// Rows as the MonitorService answers them.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { monitor as proto } from '@wap/proto';
import type { Schedule } from '../domain/schedule.js';
import type { Delivery, Monitor } from '../generated/prisma/client.js';

type LogEntry = { status?: number; error?: string };

/** What the list shows of a target: its host and first path segment, never a token further down. */
export const shown = (url: string) => {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.split('/').slice(0, 2).join('/')}/…`;
};

function toDelivery(row: Delivery): proto.Delivery {
  const log = (row.log as LogEntry[] | null) ?? [];
  const last = log.at(-1);
  return create(proto.DeliverySchema, {
    at: timestampFromDate(row.createdAt),
    status: row.status,
    attempts: row.attempts,
    lastStatus: last?.status && last.status > 0 ? last.status : 0,
    lastError: last?.error ?? '',
    ...(row.status === 'pending' && { nextAttemptAt: timestampFromDate(row.nextAttempt) }),
  });
}

export function toMonitor(row: Monitor, deliveries: Delivery[] = []): proto.Monitor {
  const schedule = row.schedule as unknown as Schedule;
  const watch = row.watch as { kind: string; selector?: string };
  const scrape = row.scrape as { engine?: string; headers?: Record<string, string>; waitForMs?: number };
  return create(proto.MonitorSchema, {
    id: row.id,
    workspaceId: row.workspaceId,
    url: row.url,
    schedule: {
      kind:
        schedule.kind === 'every'
          ? { case: 'every', value: `${Math.round(schedule.ms / 60_000)}m` }
          : { case: 'cron', value: { expression: schedule.expression, timezone: schedule.timezone } },
    },
    watch: {
      kind:
        watch.kind === 'selector'
          ? { case: 'selector', value: watch.selector ?? '' }
          : watch.kind === 'page'
            ? { case: 'page', value: true }
            : { case: 'main', value: true },
    },
    targetKind: row.targetKind,
    targetUrl: row.targetShown,
    scrape: { engine: scrape.engine ?? 'auto', headers: scrape.headers ?? {}, waitForMs: scrape.waitForMs ?? 0 },
    createdAt: timestampFromDate(row.createdAt),
    nextCheckAt: timestampFromDate(row.nextCheckAt),
    ...(row.lastCheckAt && {
      lastCheck: {
        at: timestampFromDate(row.lastCheckAt),
        status: row.lastStatus ?? '',
        changed: row.lastChanged,
        errorCode: row.lastErrorCode ?? '',
      },
    }),
    // Past the plan's cap it waits for room whatever its credits say.
    skippedReason: row.planPausedAt ? 'plan' : (row.skippedReason ?? ''),
    deliveries: deliveries.map(toDelivery),
  });
}
