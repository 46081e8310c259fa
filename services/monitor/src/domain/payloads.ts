// A change as each target's own wire format (docs/monitors.md), cut to its
// limits: Discord's execute-webhook body, Slack's incoming-webhook message,
// and the generic webhook's JSON signed per Standard Webhooks. Pure but for
// the signature's clock.
import { randomUUID } from 'node:crypto';
import { signatureHeaders } from '@wap/fetch';
import { diffLines, type TextDiff } from './diff.js';
import type { Target } from './targets.js';

export interface Change {
  monitorId: string;
  url: string;
  checkedAt: Date;
  diff: TextDiff;
  /** Links to the snapshots before and after, when the service has a public URL for them. */
  snapshots: { before: string | null; after: string | null };
}

export interface Request {
  body: string;
  headers: Record<string, string>;
}

/** The snapshot links as `[label, url]` pairs, those that exist. */
const links = (c: Change) =>
  (
    [
      ['before', c.snapshots.before],
      ['after', c.snapshots.after],
    ] as const
  ).filter((l): l is readonly ['before' | 'after', string] => Boolean(l[1]));

/** Discord: content up to 2,000 characters, an embed description up to 4,096, a field's value up to 1,024. */
export function discordBody(c: Change) {
  const fields = links(c)
    .filter(([, url]) => url.length <= 1_000)
    .map(([label, url]) => ({ name: `Snapshot ${label}`, value: `[open](${url})`, inline: true }));
  return {
    content: `Change on ${c.url}`.slice(0, 2_000),
    embeds: [
      {
        title: 'Page changed'.slice(0, 256),
        url: c.url,
        description: `\`\`\`diff\n${diffLines(c.diff, 4_000)}\n\`\`\``,
        timestamp: c.checkedAt.toISOString(),
        ...(fields.length > 0 && { fields }),
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

/** Slack: a text fallback and blocks, a section's text up to 3,000 characters. */
export function slackBody(c: Change) {
  return {
    text: `Change on ${c.url}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*Change on* <${c.url}>`.slice(0, 3_000) } },
      { type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${diffLines(c.diff, 2_900)}\`\`\`` } },
      ...(links(c).length > 0
        ? [
            {
              type: 'context',
              elements: [
                {
                  type: 'mrkdwn',
                  text: links(c)
                    .map(([label, url]) => `<${url}|Snapshot ${label}>`)
                    .join(' · '),
                },
              ],
            },
          ]
        : []),
    ],
  };
}

/** The generic webhook's event. */
export function webhookBody(c: Change) {
  return {
    type: 'monitor.changed',
    timestamp: c.checkedAt.toISOString(),
    data: {
      monitorId: c.monitorId,
      url: c.url,
      checkedAt: c.checkedAt.toISOString(),
      diff: { added: c.diff.added.slice(0, 500), removed: c.diff.removed.slice(0, 500) },
      snapshots: c.snapshots,
    },
  };
}

/**
 * The request a target receives for a change; the webhook's signed with `secret` (`whsec_…`) under
 * `messageId`, which a delivery repeats on every attempt so a receiver can drop a repeat (Standard
 * Webhooks: the same id when a message is sent again).
 */
export function requestFor(
  target: Target,
  change: Change,
  secret?: string,
  messageId = `msg_${randomUUID()}`,
  now = new Date(),
): Request {
  const json = { 'content-type': 'application/json' };
  if (target.kind === 'discord') return { body: JSON.stringify(discordBody(change)), headers: json };
  if (target.kind === 'slack') return { body: JSON.stringify(slackBody(change)), headers: json };
  if (!secret) throw new Error('a webhook target needs its signing secret');
  const body = JSON.stringify(webhookBody(change));
  return { body, headers: { ...json, ...signatureHeaders(secret, messageId, body, now) } };
}
