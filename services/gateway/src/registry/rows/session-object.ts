// A browser session as every session row answers it (docs/sessions.md): what it
// served, how it ended, what it cost, and its recording.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { sessions } from '@wap/proto';
import { z } from 'zod';
import type { ReplayLinks } from '../../replay/links.js';
import { credits, isoTime, usageObject } from '../usage-shape.js';

export const SESSION_OUTCOMES = [
  'closed',
  'idle_timeout',
  'lifetime',
  'crashed',
  'credits_exhausted',
  'host_stopped',
  'host_lost',
] as const;

/** What a session can serve (its `task.kind`). */
export const SESSION_TASKS = ['connect', 'agent', 'scrape'] as const;

/** The `{id}` of every `/v1/sessions/{id}` path. */
export const sessionParams = z.strictObject({ id: z.string().min(1).max(100).describe('The session id.') });

export const sessionObject = z.object({
  id: z.string().describe('The session id, as in its CDP URL.'),
  status: z.enum(['live', 'ended']),
  outcome: z.enum(SESSION_OUTCOMES).nullable().describe('How it ended; null while live.'),
  task: z
    .object({
      kind: z
        .enum(SESSION_TASKS)
        .describe(
          '`connect`: a CDP client drove it (GET /connect); `agent`: a browser agent run (POST /v1/agent); `scrape`: a page rendered in a browser for a scrape, crawl or search (its answer names the session as `metadata.sessionId`).',
        ),
      run: z.string().optional().describe('For `agent`: the run id (GET /v1/agent/{run}).'),
      request: z
        .string()
        .optional()
        .describe(
          'For `scrape`: what the scrape, search or crawl whose page it rendered is billed under (GET /v1/usage/calls: a scrape’s or search’s request id, a crawl’s id); billed there, not here.',
        ),
    })
    .describe('What the session served.'),
  startedAt: z.string().describe('ISO 8601.'),
  endedAt: z.string().nullable().describe('ISO 8601; null while live.'),
  ageSeconds: z.number().int().describe('Seconds since it started.'),
  durationSeconds: z.number().int().describe('Seconds from its start to its end, or to now while live.'),
  pageCount: z.number().int().describe('Documents recorded: top-level navigations of every tab.'),
  usage: usageObject,
  replayUrl: z
    .string()
    .nullable()
    .describe('A signed, expiring link to the replay page; null until the session has a recording.'),
  recording: z
    .object({
      chunks: z.number().int().describe('Chunks stored, each a link of the hash chain.'),
      bytes: z.number().int().describe('Compressed bytes stored.'),
      head: z.string().describe('Hex SHA-256 of the last link: what `POST /v1/sessions/{id}/verify` checks.'),
    })
    .nullable()
    .describe('The tamper-evident recording: null while nothing is recorded.'),
});

/** What a session served: a CDP client, an agent run (its id), or a scrape's render (its request). */
const taskOf = (s: sessions.Session) => {
  if (s.kind === 'agent') return { kind: 'agent' as const, run: s.runId };
  if (s.kind === 'scrape') return { kind: 'scrape' as const, request: s.requestId };
  return { kind: 'connect' as const };
};

export function toSessionJson(s: sessions.Session, replays: ReplayLinks | undefined, now = Date.now()) {
  const started = s.startedAt ? timestampDate(s.startedAt).getTime() : now;
  const ended = s.endedAt ? timestampDate(s.endedAt).getTime() : undefined;
  const meters: Record<string, number> = { context_seconds: Number(s.usage?.contextSeconds ?? 0n) };
  if (s.usage?.proxyBytes) meters.proxy_bytes = Number(s.usage.proxyBytes);
  return {
    id: s.id,
    status: s.status === 'ended' ? ('ended' as const) : ('live' as const),
    outcome: (SESSION_OUTCOMES as readonly string[]).includes(s.outcome)
      ? (s.outcome as (typeof SESSION_OUTCOMES)[number])
      : null,
    task: taskOf(s),
    startedAt: isoTime(s.startedAt) ?? new Date(started).toISOString(),
    endedAt: isoTime(s.endedAt),
    ageSeconds: Math.max(0, Math.floor((now - started) / 1000)),
    durationSeconds: Math.max(0, Math.floor(((ended ?? now) - started) / 1000)),
    pageCount: s.pageCount,
    usage: { credits: credits(s.usage?.chargedMillicredits ?? 0n), meters },
    replayUrl: replays && s.recording ? replays.url(s.workspaceId, s.id, '', now) : null,
    recording: s.recording
      ? { chunks: s.recording.chunks, bytes: Number(s.recording.bytes), head: s.recording.head }
      : null,
  };
}
