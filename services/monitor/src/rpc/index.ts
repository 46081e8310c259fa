// The MonitorService (docs/monitors.md): monitors created with their
// schedule, target and settings checked, listed newest first, deleted with
// their snapshots and deliveries.
import { randomBytes, randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { type AllowList, checkUrl } from '@wap/netguard';
import { lowestPlanForMonitorInterval, PLANS, plans } from '@wap/plans';
import { monitor as proto } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf, resourceId, type ServiceImpl } from '@wap/rpc';
import { sealText } from '@wap/sealed';
import { storedDiff } from '../domain/diff.js';
import type { SnapshotLinks } from '../domain/links.js';
import { firstCheckAt, parseInterval, type Schedule, scheduleProblem, shortestGapMs } from '../domain/schedule.js';
import { type Target, type TargetRules, targetProblem } from '../domain/targets.js';
import type { Delivery, Monitor, PrismaClient } from '../generated/prisma/client.js';
import { MonitorStore } from '../store/monitors.js';

/** What sealed target URLs and secrets are: the key derivation's purpose. */
export const TARGET_PURPOSE = 'wap monitor target v1';
const ENGINES = ['auto', 'fetch', 'browser'];

const invalid = (path: string, message: string): never => {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
};

/** What the list shows of a target: its host and first path segment, never a token further down. */
const shown = (url: string) => {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.split('/').slice(0, 2).join('/')}/…`;
};

function scheduleOf(s: proto.Schedule | undefined): Schedule {
  const kind = s?.kind;
  let schedule: Schedule | undefined;
  if (kind?.case === 'every') {
    const ms = parseInterval(kind.value);
    if (ms === undefined) invalid('schedule.every', 'an interval such as 15m, 2h or 1d');
    schedule = { kind: 'every', ms: ms as number };
  } else if (kind?.case === 'cron')
    schedule = { kind: 'cron', expression: kind.value.expression, timezone: kind.value.timezone || 'UTC' };
  else return invalid('schedule', 'every or cron');
  const problem = scheduleProblem(schedule as Schedule);
  if (problem) invalid('schedule', problem);
  return schedule as Schedule;
}

export interface MonitorSettings {
  key: string | undefined;
  allow: AllowList;
  /** Signs the snapshot links of notifications; absent without MONITOR_KEY. */
  links: SnapshotLinks | undefined;
  /** Stand-in origins for Discord and Slack (tests). */
  discordOrigin?: string | undefined;
  slackOrigin?: string | undefined;
}

/** How many deliveries the list shows per monitor, newest first. */
const DELIVERIES_SHOWN = 10;

function targetOf(t: proto.Target | undefined, settings: MonitorSettings): Target {
  const { allow } = settings;
  const kind = t?.kind;
  if (!kind?.case) return invalid('notify', 'one of discord, slack or webhook');
  const target = { kind: kind.case, url: kind.value } as Target;
  // A private or metadata address is refused as every outbound fetch is; its name is checked again when it is sent.
  const url = checkUrl(target.url, { allow, field: `notify.${kind.case}` });
  const rules: TargetRules = {
    allowPlainHttp: !allow.empty && url.protocol === 'http:',
    discordOrigin: settings.discordOrigin,
    slackOrigin: settings.slackOrigin,
  };
  const problem = targetProblem(target, rules);
  if (problem) invalid(`notify.${kind.case}`, problem);
  return target;
}

type LogEntry = { status?: number; error?: string };

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
    skippedReason: row.skippedReason ?? '',
    deliveries: deliveries.map(toDelivery),
  });
}

/** The last DELIVERIES_SHOWN deliveries of each monitor, newest first. */
async function recentDeliveries(db: PrismaClient, monitorIds: string[]): Promise<Map<string, Delivery[]>> {
  const byMonitor = new Map<string, Delivery[]>();
  if (monitorIds.length === 0) return byMonitor;
  const ids = await db.$queryRaw<{ id: string }[]>`
    SELECT d.id FROM unnest(${monitorIds}::uuid[]) AS m(id)
     CROSS JOIN LATERAL (SELECT id FROM deliveries WHERE monitor_id = m.id
                          ORDER BY created_at DESC LIMIT ${DELIVERIES_SHOWN}) d`;
  const rows = await db.delivery.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  for (const row of rows) byMonitor.set(row.monitorId, [...(byMonitor.get(row.monitorId) ?? []), row]);
  return byMonitor;
}

export function monitorService(
  db: PrismaClient,
  settings: MonitorSettings,
): ServiceImpl<(typeof proto.MonitorService)['method']> {
  return {
    createMonitor: async (req) => {
      if (!settings.key) throw new ApiError('capability_unavailable', { capability: 'monitors' });
      const url = checkUrl(req.url, { allow: settings.allow }).href;
      const schedule = scheduleOf(req.schedule);
      const target = targetOf(req.target, settings);
      const watch = req.watch?.kind;
      if (watch?.case === 'selector' && !watch.value.trim()) invalid('watch.selector', 'a CSS selector');
      const engine = req.scrape?.engine || 'auto';
      if (!ENGINES.includes(engine)) invalid('scrape.engine', ENGINES.join(', '));
      const waitForMs = req.scrape?.waitForMs ?? 0;
      if (waitForMs < 0 || waitForMs > 30_000) invalid('scrape.waitForMs', 'between 0 and 30000');
      // An older gateway names no plan: the strictest one's limits.
      const plan = plans.toName(req.plan) ?? 'free';
      const limits = PLANS[plan];
      const gap = shortestGapMs(schedule);
      if (gap < limits.monitorIntervalMs)
        throw new ApiError('plan_required', { plan: lowestPlanForMonitorInterval(gap) ?? 'scale', current: plan });
      const id = randomUUID();
      const secret = target.kind === 'webhook' ? `whsec_${randomBytes(32).toString('base64')}` : undefined;
      const now = new Date();
      const row = await new MonitorStore(db).create(
        {
          id,
          workspaceId: req.workspaceId,
          url,
          schedule: schedule as object,
          watch:
            watch?.case === 'selector'
              ? { kind: 'selector', selector: watch.value }
              : { kind: watch?.case === 'page' ? 'page' : 'main' },
          scrape: { engine, headers: { ...req.scrape?.headers }, waitForMs },
          targetKind: target.kind,
          targetSealed: sealText(settings.key, TARGET_PURPOSE, id, target.url),
          targetShown: shown(target.url),
          ...(secret && { secretSealed: sealText(settings.key, TARGET_PURPOSE, `${id}:secret`, secret) }),
          anchorAt: now,
          createdAt: now,
          nextCheckAt: firstCheckAt(id, schedule, now),
        },
        limits.monitors,
      );
      return create(proto.CreateMonitorResponseSchema, { monitor: toMonitor(row), webhookSecret: secret ?? '' });
    },
    listMonitors: async (req) => {
      const limit = pageLimit(req.limit);
      const after = req.cursor ? decodeCursor(req.cursor) : undefined;
      const rows = await db.monitor.findMany({
        where: {
          workspaceId: req.workspaceId,
          ...(after && {
            OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }],
          }),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
      });
      const { page, nextCursor } = pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }));
      const deliveries = await recentDeliveries(
        db,
        page.map((m) => m.id),
      );
      return create(proto.ListMonitorsResponseSchema, {
        monitors: page.map((m) => toMonitor(m, deliveries.get(m.id))),
        nextCursor,
      });
    },
    deleteMonitor: async (req) => {
      const id = resourceId(req.monitorId);
      const deleted = await db.$transaction(async (tx) => {
        const { count } = await tx.monitor.deleteMany({ where: { id, workspaceId: req.workspaceId } });
        if (count === 0) return false;
        await tx.snapshot.deleteMany({ where: { monitorId: id } });
        await tx.delivery.deleteMany({ where: { monitorId: id } });
        await tx.check.deleteMany({ where: { monitorId: id } });
        return true;
      });
      if (!deleted) throw new ApiError('not_found');
      return create(proto.DeleteMonitorResponseSchema, {});
    },
    getSnapshot: async (req) => {
      const id = resourceId(req.snapshotId);
      if (!settings.links?.opens(id, Number(req.expires), req.signature)) throw new ApiError('not_found');
      const snapshot = await db.snapshot.findUnique({ where: { id } });
      const monitor = snapshot && (await db.monitor.findUnique({ where: { id: snapshot.monitorId } }));
      if (!snapshot || !monitor) throw new ApiError('not_found');
      const previous = await new MonitorStore(db).snapshotBefore(monitor.id, snapshot.takenAt);
      const diff = storedDiff(snapshot.diff);
      return create(proto.GetSnapshotResponseSchema, {
        snapshotId: snapshot.id,
        monitorId: monitor.id,
        url: monitor.url,
        takenAt: timestampFromDate(snapshot.takenAt),
        text: snapshot.text,
        added: diff.added,
        removed: diff.removed,
        previousUrl: previous ? settings.links.url(previous) : '',
      });
    },
  };
}
