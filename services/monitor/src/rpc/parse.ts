// The checks a new monitor's fields pass, each answering bad_request with the field named.
import { ApiError } from '@wap/errors';
import { checkUrl } from '@wap/netguard';
import type { monitor as proto } from '@wap/proto';
import { parseInterval, type Schedule, scheduleProblem } from '../domain/schedule.js';
import { type Target, type TargetRules, targetProblem } from '../domain/targets.js';
import type { MonitorSettings } from './deps.js';

export const invalid = (path: string, message: string): never => {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
};

export function scheduleOf(s: proto.Schedule | undefined): Schedule {
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

export function targetOf(t: proto.Target | undefined, settings: MonitorSettings): Target {
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
