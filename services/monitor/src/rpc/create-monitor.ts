// CreateMonitor: the schedule, target and scrape settings checked, the plan's
// shortest interval and monitor cap enforced, the target sealed.
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { checkUrl } from '@wap/netguard';
import { ENGINE_NAMES, lowestPlanForMonitorInterval, PLANS, plans } from '@wap/plans';
import { monitor as proto } from '@wap/proto';
import { sealText } from '@wap/sealed';
import { firstCheckAt, shortestGapMs } from '../domain/schedule.js';
import { TARGET_PURPOSE } from '../domain/targets.js';
import { shown, toMonitor } from '../views/monitor.js';
import type { MonitorDeps } from './deps.js';
import { invalid, scheduleOf, targetOf } from './parse.js';

export const createMonitor =
  ({ store, settings }: MonitorDeps) =>
  async (req: proto.CreateMonitorRequest): Promise<proto.CreateMonitorResponse> => {
    if (!settings.key) throw new ApiError('capability_unavailable', { capability: 'monitors' });
    const url = checkUrl(req.url, { allow: settings.allow }).href;
    const schedule = scheduleOf(req.schedule);
    const target = targetOf(req.target, settings);
    const watch = req.watch?.kind;
    if (watch?.case === 'selector' && !watch.value.trim()) invalid('watch.selector', 'a CSS selector');
    const engine = req.scrape?.engine || 'auto';
    if (!(ENGINE_NAMES as readonly string[]).includes(engine)) invalid('scrape.engine', ENGINE_NAMES.join(', '));
    const waitForMs = req.scrape?.waitForMs ?? 0;
    if (waitForMs < 0 || waitForMs > 30_000) invalid('scrape.waitForMs', 'between 0 and 30000');
    // An older gateway names no plan: the strictest one's limits.
    const plan = plans.toName(req.plan) ?? 'free';
    const limits = PLANS[plan];
    const gap = shortestGapMs(schedule);
    if (gap < limits.monitorIntervalMs)
      throw new ApiError('plan_required', { plan: lowestPlanForMonitorInterval(gap) ?? 'scale', current: plan });
    const id = randomUUID();
    // The webhook helpers bring the HTTP client: loaded by the first webhook monitor, not at start.
    const secret = target.kind === 'webhook' ? (await import('@wap/fetch')).newWebhookSecret() : undefined;
    const now = new Date();
    const row = await store.create(
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
  };
