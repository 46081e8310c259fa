// Where a monitor's notifications go (docs/monitors.md): a Discord webhook, a
// Slack incoming webhook, or a generic webhook signed per Standard Webhooks.
// Shapes are checked here; the address is checked by the egress guard. Pure.

/** What sealed target URLs and secrets are: the key derivation's purpose. */
export const TARGET_PURPOSE = 'wap monitor target v1';

export type Target =
  | { kind: 'discord'; url: string }
  | { kind: 'slack'; url: string }
  | { kind: 'webhook'; url: string };

/** What the checks accept besides the services' own origins: a local stand-in's, in tests only. */
export interface TargetRules {
  /** Plain http for the generic webhook (an egress allow-list is set: tests). */
  allowPlainHttp?: boolean;
  /** Another origin serving Discord's webhook paths (DISCORD_API_URL). */
  discordOrigin?: string | undefined;
  /** Another origin serving Slack's incoming-webhook paths (SLACK_HOOKS_URL). */
  slackOrigin?: string | undefined;
}

const DISCORD_ORIGINS = /^https:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com$/;
const DISCORD_PATH = /^\/api(?:\/v\d+)?\/webhooks\/\d{5,25}\/[\w-]{20,100}$/;
const SLACK_ORIGIN = 'https://hooks.slack.com';
const SLACK_PATH = /^\/(?:services|workflows|triggers)\/[\w/-]{10,200}$/;

const parse = (url: string): URL | undefined => {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
};

const sameOrigin = (u: URL, origin: string | undefined) => origin !== undefined && u.origin === parse(origin)?.origin;

/** Why the target cannot be used as given, or undefined. */
export function targetProblem(target: Target, rules: TargetRules = {}): string | undefined {
  const u = parse(target.url);
  if (!u) return `${target.kind}: a URL`;
  if (u.username || u.password || u.hash) return `${target.kind}: no credentials or fragment in the URL`;
  if (target.kind === 'discord') {
    const origin = DISCORD_ORIGINS.test(u.origin) || sameOrigin(u, rules.discordOrigin);
    if (!origin || !DISCORD_PATH.test(u.pathname))
      return 'discord: a Discord webhook URL, https://discord.com/api/webhooks/<id>/<token>';
  }
  if (target.kind === 'slack') {
    const origin = u.origin === SLACK_ORIGIN || sameOrigin(u, rules.slackOrigin);
    if (!origin || !SLACK_PATH.test(u.pathname))
      return 'slack: a Slack incoming webhook URL, https://hooks.slack.com/services/…';
  }
  if (target.kind === 'webhook' && u.protocol !== 'https:' && !(rules.allowPlainHttp && u.protocol === 'http:'))
    return 'webhook: an https URL';
  return undefined;
}
