// The MonitorService (docs/monitors.md): monitors created with their
// schedule, target and settings checked, listed newest first, deleted with
// their snapshots and deliveries.
import { randomBytes, randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { type AllowList, checkUrl } from '@wap/netguard';
import { monitor as proto } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf, resourceId, type ServiceImpl } from '@wap/rpc';
import { sealText } from '@wap/sealed';
import { jitterMs, parseInterval, type Schedule, scheduleProblem } from '../domain/schedule.js';
import { type Target, targetProblem } from '../domain/targets.js';
import type { Monitor, PrismaClient } from '../generated/prisma/client.js';

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

function targetOf(t: proto.Target | undefined, allow: AllowList): Target {
  const kind = t?.kind;
  if (!kind?.case) return invalid('notify', 'one of discord, slack or webhook');
  const target = { kind: kind.case, url: kind.value } as Target;
  // A private or metadata address is refused as every outbound fetch is; its name is checked again when it is sent.
  const url = checkUrl(target.url, { allow, field: `notify.${kind.case}` });
  const problem = targetProblem(target, !allow.empty && url.protocol === 'http:');
  if (problem) invalid(`notify.${kind.case}`, problem);
  return target;
}

export function toMonitor(row: Monitor): proto.Monitor {
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
  });
}

export function monitorService(
  db: PrismaClient,
  settings: { key: string | undefined; allow: AllowList },
): ServiceImpl<(typeof proto.MonitorService)['method']> {
  return {
    createMonitor: async (req) => {
      if (!settings.key) throw new ApiError('capability_unavailable', { capability: 'monitors' });
      const url = checkUrl(req.url, { allow: settings.allow }).href;
      const schedule = scheduleOf(req.schedule);
      const target = targetOf(req.target, settings.allow);
      const watch = req.watch?.kind;
      if (watch?.case === 'selector' && !watch.value.trim()) invalid('watch.selector', 'a CSS selector');
      const engine = req.scrape?.engine || 'auto';
      if (!ENGINES.includes(engine)) invalid('scrape.engine', ENGINES.join(', '));
      const waitForMs = req.scrape?.waitForMs ?? 0;
      if (waitForMs < 0 || waitForMs > 30_000) invalid('scrape.waitForMs', 'between 0 and 30000');
      const id = randomUUID();
      const secret = target.kind === 'webhook' ? `whsec_${randomBytes(32).toString('base64')}` : undefined;
      const now = new Date();
      const interval = schedule.kind === 'every' ? schedule.ms : 60_000;
      const row = await db.monitor.create({
        data: {
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
          // The first check takes the baseline soon, spread like every later one.
          nextCheckAt: new Date(now.getTime() + jitterMs(id, interval)),
        },
      });
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
      return create(proto.ListMonitorsResponseSchema, { monitors: page.map(toMonitor), nextCursor });
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
  };
}
