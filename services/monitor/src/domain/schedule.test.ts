// Schedules, targets and payloads: the floor of a minute, no catch-up after an outage, a jitter that
// stays put, target shapes, and each target's body within its limits (the webhook's signature verifies).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { nextProbeAt } from './pause.js';
import { discordBody, requestFor, slackBody } from './payloads.js';
import {
  jitterMs,
  MIN_INTERVAL_MS,
  nextCheckAt,
  parseInterval,
  resumedCheckAt,
  scheduleProblem,
  shortestGapMs,
} from './schedule.js';
import { targetProblem } from './targets.js';

test('intervals and cron expressions are held to a minute at least', () => {
  assert.equal(parseInterval('15m'), 900_000);
  assert.equal(parseInterval('90s'), 90_000);
  assert.equal(parseInterval('2 h'), 7_200_000);
  assert.equal(parseInterval('soon'), undefined);
  assert.equal(scheduleProblem({ kind: 'every', ms: 30_000 }), 'every: once a minute at most');
  assert.equal(scheduleProblem({ kind: 'every', ms: MIN_INTERVAL_MS }), undefined);
  assert.equal(scheduleProblem({ kind: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' }), undefined);
  assert.match(scheduleProblem({ kind: 'cron', expression: '*/10 * * * * *', timezone: 'UTC' }) ?? '', /once a minute/);
  assert.match(scheduleProblem({ kind: 'cron', expression: 'not cron', timezone: 'UTC' }) ?? '', /^cron:/);
  assert.match(scheduleProblem({ kind: 'cron', expression: '0 9 * * *', timezone: 'Mars/Olympus' }) ?? '', /^cron:/);
});

test('after an outage a monitor is due once, at its next slot, not once per missed slot', () => {
  const anchor = new Date('2026-11-25T00:00:00Z');
  const schedule = { kind: 'every' as const, ms: 3_600_000 };
  const jitter = jitterMs('m-1', schedule.ms);
  assert.ok(jitter >= 0 && jitter < 60_000);
  assert.equal(jitterMs('m-1', schedule.ms), jitter, 'the same monitor, the same jitter');
  // Ten hours late: the next slot after now, with the jitter.
  const now = new Date('2026-11-25T10:30:00Z');
  assert.equal(
    nextCheckAt('m-1', schedule, now, anchor).toISOString(),
    new Date(Date.parse('2026-11-25T11:00:00Z') + jitter).toISOString(),
  );
  const cron = { kind: 'cron' as const, expression: '0 9 * * *', timezone: 'Europe/Berlin' };
  const due = nextCheckAt('m-2', cron, new Date('2026-11-25T12:00:00Z'), anchor);
  assert.ok(
    due.getTime() >= Date.parse('2026-11-26T08:00:00Z') && due.getTime() < Date.parse('2026-11-26T08:01:00Z'),
    due.toISOString(),
  );
  const spread = new Set(Array.from({ length: 50 }, (_, i) => jitterMs(`m-${i}`, schedule.ms)));
  assert.ok(spread.size > 40, 'monitors of one schedule spread out');
});

test('a schedule’s shortest gap is what a plan’s interval is held against', () => {
  assert.equal(shortestGapMs({ kind: 'every', ms: 900_000 }), 900_000);
  assert.equal(shortestGapMs({ kind: 'cron', expression: '*/5 * * * *', timezone: 'UTC' }), 300_000);
  // At nine and two minutes past, then not until the next day: the closest two count.
  assert.equal(shortestGapMs({ kind: 'cron', expression: '0,2 9 * * *', timezone: 'UTC' }), 120_000);
});

test('a workspace without credits is looked at again after a doubling wait, or when its allowance renews', () => {
  const now = new Date('2026-11-25T10:00:00Z');
  const waits = [0, 1, 2, 5, 6, 30].map((probes) => nextProbeAt(now, probes).getTime() - now.getTime());
  assert.deepEqual(waits, [60_000, 120_000, 240_000, 1_920_000, 3_600_000, 3_600_000]);
  const renews = new Date('2026-11-25T10:01:30Z');
  assert.equal(nextProbeAt(now, 2, renews).toISOString(), renews.toISOString());
  assert.equal(nextProbeAt(now, 0, renews).getTime() - now.getTime(), 60_000, 'the sooner of the two');
  // Checks resume at each monitor's own next slot: one missed meanwhile is already due.
  const hourly = { kind: 'every' as const, ms: 3_600_000 };
  const anchor = new Date('2026-11-25T07:00:00Z');
  const resumed = resumedCheckAt({
    id: 'm-1',
    schedule: hourly,
    anchorAt: anchor,
    createdAt: anchor,
    lastCheckAt: new Date('2026-11-25T08:00:10Z'),
  });
  assert.equal(resumed.getTime(), Date.parse('2026-11-25T09:00:00Z') + jitterMs('m-1', hourly.ms));
});

test('targets must have their service’s shape', () => {
  assert.equal(
    targetProblem({
      kind: 'discord',
      url: 'https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz_ABC-123',
    }),
    undefined,
  );
  assert.match(targetProblem({ kind: 'discord', url: 'https://evil.example/api/webhooks/1/x' }) ?? '', /^discord:/);
  assert.equal(
    targetProblem({ kind: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX' }),
    undefined,
  );
  assert.match(
    targetProblem({ kind: 'slack', url: 'https://hooks.slack.com.evil.example/services/T/B/X' }) ?? '',
    /^slack:/,
  );
  assert.equal(targetProblem({ kind: 'webhook', url: 'https://example.com/hook' }), undefined);
  assert.match(targetProblem({ kind: 'webhook', url: 'http://example.com/hook' }) ?? '', /https/);
  assert.match(targetProblem({ kind: 'webhook', url: 'https://u:p@example.com/hook' }) ?? '', /credentials/);
  // A local stand-in's origin is accepted only when configured, and only with the service's own paths.
  const standIn = 'http://127.0.0.2:4000/api/webhooks/123456/abcdefghijklmnopqrstuvwxyz';
  assert.match(targetProblem({ kind: 'discord', url: standIn }) ?? '', /^discord:/);
  assert.equal(targetProblem({ kind: 'discord', url: standIn }, { discordOrigin: 'http://127.0.0.2:4000' }), undefined);
  assert.match(
    targetProblem(
      { kind: 'discord', url: 'http://127.0.0.2:4000/other' },
      { discordOrigin: 'http://127.0.0.2:4000' },
    ) ?? '',
    /^discord:/,
  );
  assert.equal(
    targetProblem(
      { kind: 'slack', url: 'http://127.0.0.2:4001/services/T000/B000/XXXX' },
      { slackOrigin: 'http://127.0.0.2:4001/' },
    ),
    undefined,
  );
});

test('each target gets its own wire format within its limits; the webhook is signed', () => {
  const change = {
    monitorId: 'mon_1',
    url: 'https://example.com/news',
    checkedAt: new Date('2026-11-25T18:00:00Z'),
    diff: { added: Array.from({ length: 2_000 }, (_, i) => `new sentence ${i}`), removed: ['old sentence'] },
    snapshots: { before: 'https://api.example.com/snapshots/a?exp=1&sig=x', after: null },
  };
  const discord = discordBody(change);
  assert.ok(discord.content.length <= 2_000);
  assert.ok((discord.embeds[0]?.description.length ?? 0) <= 4_096);
  assert.deepEqual(discord.allowed_mentions, { parse: [] }, 'a page cannot ping @everyone');
  const slack = slackBody(change);
  for (const block of slack.blocks) assert.ok((block.text?.text.length ?? 0) <= 3_000);
  assert.deepEqual(
    discord.embeds[0]?.fields?.map((f) => f.name),
    ['Snapshot before'],
    'a link to each snapshot there is',
  );
  assert.match(JSON.stringify(slack.blocks.at(-1)), /snapshots\/a\?exp=1&sig=x\|Snapshot before/);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const request = requestFor({ kind: 'webhook', url: 'https://example.com/hook' }, change, secret);
  const verified = new Webhook(secret).verify(request.body, request.headers) as { type: string; data: { url: string } };
  assert.deepEqual([verified.type, verified.data.url], ['monitor.changed', change.url]);
  assert.throws(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(request.body, request.headers));
  // A delivery tried again is the same message: the same id, signed again, and still verified.
  const again = requestFor({ kind: 'webhook', url: 'https://example.com/hook' }, change, secret, 'msg_delivery-1');
  const later = requestFor({ kind: 'webhook', url: 'https://example.com/hook' }, change, secret, 'msg_delivery-1');
  assert.equal(again.headers['webhook-id'], 'msg_delivery-1');
  assert.equal(later.headers['webhook-id'], again.headers['webhook-id']);
  assert.doesNotThrow(() => new Webhook(secret).verify(later.body, later.headers));
});
