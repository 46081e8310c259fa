// Where a monitor's notifications go (docs/monitors.md): a Discord webhook, a
// Slack incoming webhook, or a generic webhook signed per Standard Webhooks.
// Shapes are checked here; the address is checked by the egress guard. Pure.

export type Target =
  | { kind: 'discord'; url: string }
  | { kind: 'slack'; url: string }
  | { kind: 'webhook'; url: string };

const DISCORD =
  /^https:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/api(?:\/v\d+)?\/webhooks\/\d{5,25}\/[\w-]{20,100}$/;
const SLACK = /^https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[\w/-]{10,200}$/;

/** Why the target cannot be used as given, or undefined. */
export function targetProblem(target: Target, allowPlainHttp = false): string | undefined {
  if (target.kind === 'discord' && !DISCORD.test(target.url))
    return 'discord: a Discord webhook URL, https://discord.com/api/webhooks/<id>/<token>';
  if (target.kind === 'slack' && !SLACK.test(target.url))
    return 'slack: a Slack incoming webhook URL, https://hooks.slack.com/services/…';
  if (target.kind === 'webhook') {
    let u: URL;
    try {
      u = new URL(target.url);
    } catch {
      return 'webhook: a URL';
    }
    if (u.protocol !== 'https:' && !(allowPlainHttp && u.protocol === 'http:')) return 'webhook: an https URL';
    if (u.username || u.password) return 'webhook: no credentials in the URL (the signature authenticates us)';
  }
  return undefined;
}
