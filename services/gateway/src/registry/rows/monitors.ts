// Monitors (docs/monitors.md): pages watched on a schedule, a notification on
// real change. Creating, listing and deleting are free; the checks bill as
// they run (monitors.check, not a registry row: docs/billing.md).
import { ENGINE_NAMES, PLAN_NAMES, PLANS, type PlanLimits, plans } from '@wap/plans';
import type { monitor } from '@wap/proto';
import { z } from 'zod';
import { asQueryIssues, nextCursor, pageQuery } from '../paging.js';
import { capability } from '../types.js';
import { isoTime } from '../usage-shape.js';
import { pageUrl } from './scrape.js';

/** A figure of each plan, in the plans' order: `free 5, builder 50, …`. */
const perPlan = (figure: (plan: PlanLimits) => string) =>
  PLAN_NAMES.map((name) => `${name} ${figure(PLANS[name])}`).join(', ');
const shortest = (plan: PlanLimits) => `${plan.monitorIntervalMs / 60_000}m`;

const scheduleInput = z
  .union([
    z.strictObject({
      every: z
        .string()
        .max(16)
        .describe(`An interval: \`15m\`, \`2h\`, \`1d\`; at least the plan's shortest (${perPlan(shortest)}).`),
    }),
    z.strictObject({
      cron: z
        .string()
        .max(120)
        .describe(
          `A cron expression (five fields, or six with seconds), its firings at least the plan's shortest interval apart (${perPlan(shortest)}).`,
        ),
      timezone: z.string().max(64).optional().describe('IANA; default UTC.'),
    }),
  ])
  .describe('When to check.');

const watchInput = z
  .union([z.enum(['main', 'page']), z.strictObject({ selector: z.string().min(1).max(500) })])
  .describe('What is compared: `main` content (default), the whole `page`, or a CSS `selector`’s text.');

const notifyInput = z
  .union([
    z.strictObject({ discord: z.string().max(2_000).describe('A Discord webhook URL.') }),
    z.strictObject({ slack: z.string().max(2_000).describe('A Slack incoming webhook URL.') }),
    z.strictObject({
      webhook: z.string().max(2_000).describe('An https URL; each request is signed per Standard Webhooks.'),
    }),
  ])
  .describe('Where a change is announced: one target.');

const monitorObject = z.object({
  id: z.string(),
  url: z.string(),
  schedule: z.union([z.object({ every: z.string() }), z.object({ cron: z.string(), timezone: z.string() })]),
  watch: z.union([z.enum(['main', 'page']), z.object({ selector: z.string() })]),
  notify: z
    .object({ kind: z.enum(['discord', 'slack', 'webhook']), url: z.string().describe('Without its secret part.') })
    .describe('The target, its token never shown.'),
  scrape: z.object({ engine: z.string(), headers: z.record(z.string(), z.string()), waitFor: z.number().int() }),
  createdAt: z.string(),
  nextCheckAt: z.string().describe('When it is checked next (ISO 8601).'),
  lastCheck: z
    .object({
      at: z.string(),
      status: z.enum(['ok', 'changed', 'failed', 'skipped']),
      changed: z.boolean(),
      errorCode: z.string().nullable(),
    })
    .nullable()
    .describe('Null before the first check.'),
  skippedReason: z
    .enum(['credits', 'plan'])
    .nullable()
    .describe(
      'Why checks are skipped now: `credits`, the workspace cannot pay for one; `plan`, the workspace keeps more monitors than its plan allows and this one, among the newest, waits (kept) until there is room. Null while they run.',
    ),
  deliveries: z
    .array(
      z.object({
        at: z.string().describe('When the change was found.'),
        status: z.enum(['pending', 'delivered', 'failed']),
        attempts: z.number().int(),
        lastStatus: z.number().int().nullable().describe('The target’s last HTTP status; null when none came.'),
        lastError: z.string().nullable().describe('Why the last attempt could not reach the target.'),
        nextAttemptAt: z.string().nullable().describe('When it is tried again, while pending.'),
      }),
    )
    .describe('The delivery log: the last ten notifications, newest first.'),
});

/** Why the monitor service says checks are skipped, as the API names it; empty (or unknown) is none. */
const skippedReason = (reason: string): 'credits' | 'plan' | null =>
  reason === 'credits' || reason === 'plan' ? reason : null;

function toMonitorJson(m: monitor.Monitor | undefined) {
  if (!m) throw new Error('the monitor service answered no monitor');
  const schedule =
    m.schedule?.kind.case === 'cron'
      ? { cron: m.schedule.kind.value.expression, timezone: m.schedule.kind.value.timezone }
      : { every: m.schedule?.kind.case === 'every' ? m.schedule.kind.value : '' };
  const watch =
    m.watch?.kind.case === 'selector'
      ? { selector: m.watch.kind.value }
      : m.watch?.kind.case === 'page'
        ? ('page' as const)
        : ('main' as const);
  return {
    id: m.id,
    url: m.url,
    schedule,
    watch,
    notify: { kind: m.targetKind as 'discord' | 'slack' | 'webhook', url: m.targetUrl },
    scrape: {
      engine: m.scrape?.engine ?? 'auto',
      headers: { ...m.scrape?.headers },
      waitFor: m.scrape?.waitForMs ?? 0,
    },
    createdAt: isoTime(m.createdAt) ?? '',
    nextCheckAt: isoTime(m.nextCheckAt) ?? '',
    lastCheck: m.lastCheck
      ? {
          at: isoTime(m.lastCheck.at) ?? '',
          status: m.lastCheck.status as 'ok' | 'changed' | 'failed' | 'skipped',
          changed: m.lastCheck.changed,
          errorCode: m.lastCheck.errorCode || null,
        }
      : null,
    skippedReason: skippedReason(m.skippedReason),
    deliveries: m.deliveries.map((d) => ({
      at: isoTime(d.at) ?? '',
      status: d.status as 'pending' | 'delivered' | 'failed',
      attempts: d.attempts,
      lastStatus: d.lastStatus || null,
      lastError: d.lastError || null,
      nextAttemptAt: isoTime(d.nextAttemptAt) ?? null,
    })),
  };
}

export const monitorsCreateRow = capability({
  name: 'monitors.create',
  method: 'post',
  path: '/v1/monitors',
  tag: 'Monitors',
  summary: 'Watch a page',
  description: `Checks the page on its schedule and announces a real change (not a clock, a token, a tracking parameter or a rotating ad) once, with the words added and removed, to Discord, Slack or a signed webhook. The first check takes the baseline. A webhook target’s signing secret is in this answer only. A workspace keeps at most ${perPlan((p) => p.monitors.toLocaleString('en-US'))} monitors (cap_exceeded past it: delete one or move to a higher plan); a schedule more frequent than the plan allows is plan_required. Free: each check bills 1 credit, plus 1 when the page changed.`,
  backend: 'monitor',
  bills: [],
  mcpTool: 'service_monitors_create',
  openWorld: true,
  request: {
    body: z.strictObject({
      url: pageUrl('The page to watch (http or https).'),
      schedule: scheduleInput,
      watch: watchInput.optional(),
      notify: notifyInput,
      scrape: z
        .strictObject({
          engine: z.enum(ENGINE_NAMES).optional(),
          headers: z.record(z.string().max(256), z.string().max(4_096)).optional(),
          waitFor: z.number().int().min(0).max(30_000).optional().describe('Milliseconds to wait after load.'),
        })
        .optional(),
    }),
  },
  example: {
    url: 'https://example.com/pricing',
    schedule: { every: '1h' },
    notify: { webhook: 'https://example.com/hooks/wap' },
  },
  response: z.object({
    success: z.literal(true),
    monitor: monitorObject,
    webhookSecret: z
      .string()
      .nullable()
      .describe(
        '`whsec_…`: verify each request with it (Standard Webhooks); shown this once. Null for Discord and Slack.',
      ),
  }),
  errors: ['page_unreachable', 'cap_exceeded', 'plan_required', 'capability_unavailable'],
  handler: async ({ principal, upstreams, signal }, { body }) => {
    const schedule =
      'every' in body.schedule
        ? { kind: { case: 'every' as const, value: body.schedule.every } }
        : {
            kind: {
              case: 'cron' as const,
              value: { expression: body.schedule.cron, timezone: body.schedule.timezone ?? '' },
            },
          };
    const watch =
      body.watch === undefined || body.watch === 'main'
        ? { kind: { case: 'main' as const, value: true } }
        : body.watch === 'page'
          ? { kind: { case: 'page' as const, value: true } }
          : { kind: { case: 'selector' as const, value: body.watch.selector } };
    const notify =
      'discord' in body.notify
        ? { kind: { case: 'discord' as const, value: body.notify.discord } }
        : 'slack' in body.notify
          ? { kind: { case: 'slack' as const, value: body.notify.slack } }
          : { kind: { case: 'webhook' as const, value: body.notify.webhook } };
    const out = await upstreams.monitor.createMonitor(
      {
        workspaceId: principal.workspaceId,
        plan: plans.toEnum(principal.plan),
        url: body.url,
        schedule,
        watch,
        target: notify,
        scrape: {
          engine: body.scrape?.engine ?? 'auto',
          headers: body.scrape?.headers ?? {},
          waitForMs: body.scrape?.waitFor ?? 0,
        },
      },
      { signal },
    );
    return { success: true as const, monitor: toMonitorJson(out.monitor), webhookSecret: out.webhookSecret || null };
  },
});

export const monitorsListRow = capability({
  name: 'monitors.list',
  method: 'get',
  path: '/v1/monitors',
  tag: 'Monitors',
  summary: "The workspace's monitors",
  description:
    'Newest first, a page at a time: each with its last check, when it is checked next, and its delivery log (the last ten notifications and how their sending went). Free.',
  backend: 'monitor',
  bills: [],
  mcpTool: 'service_monitors_list',
  request: {
    query: z.strictObject({
      ...pageQuery('Monitors', 20),
    }),
  },
  response: z.object({
    success: z.literal(true),
    monitors: z.array(monitorObject),
    nextCursor,
  }),
  errors: [],
  handler: async ({ principal, upstreams, signal }, { query: q }) => {
    const out = await upstreams.monitor
      .listMonitors({ workspaceId: principal.workspaceId, limit: q.limit, cursor: q.cursor ?? '' }, { signal })
      .catch(asQueryIssues);
    return { success: true as const, monitors: out.monitors.map(toMonitorJson), nextCursor: out.nextCursor || null };
  },
});

export const monitorsDeleteRow = capability({
  name: 'monitors.delete',
  method: 'delete',
  path: '/v1/monitors/{id}',
  tag: 'Monitors',
  summary: 'Stop watching a page',
  description: 'Stops the schedule at once and discards the snapshots and the delivery log. Free.',
  backend: 'monitor',
  bills: [],
  mcpTool: 'service_monitors_delete',
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The monitor id.') }) },
  response: z.object({ success: z.literal(true) }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    await upstreams.monitor.deleteMonitor({ workspaceId: principal.workspaceId, monitorId: p.id }, { signal });
    return { success: true as const };
  },
});
