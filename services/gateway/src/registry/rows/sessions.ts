// Browser sessions as recorded evidence (docs/sessions.md): the session-recorder's
// reads. Never billed.
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import type { sessions } from '@wap/proto';
import { z } from 'zod';
import type { ReplayLinks } from '../../replay/links.js';
import { asQueryIssues, nextCursor, pageQuery } from '../paging.js';
import { capability, type HandlerContext } from '../types.js';
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

const sessionObject = z.object({
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

const listQuery = z.strictObject({
  status: z.enum(['live', 'ended']).optional().describe('Only sessions in this state.'),
  outcome: z.enum(SESSION_OUTCOMES).optional().describe('Only sessions that ended this way.'),
  task: z.enum(SESSION_TASKS).optional().describe('Only sessions that served this kind of task.'),
  since: z.iso.datetime({ offset: true }).optional().describe('Started at or after this time (ISO 8601).'),
  until: z.iso.datetime({ offset: true }).optional().describe('Started before this time (ISO 8601).'),
  ...pageQuery('Sessions', 20),
});

export const sessionsListRow = capability({
  name: 'sessions.list',
  method: 'get',
  path: '/v1/sessions',
  tag: 'Sessions',
  summary: 'Past and live browser sessions',
  description:
    "The workspace's browser sessions, newest first, a page at a time; filter by status, outcome, task and age. Never billed.",
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_list',
  request: { query: listQuery },
  response: z.object({
    success: z.literal(true),
    sessions: z.array(sessionObject),
    nextCursor,
  }),
  errors: [],
  handler: async ({ principal, upstreams, signal, replays }, { query: q }) => {
    const out = await upstreams.sessions
      .listSessions(
        {
          workspaceId: principal.workspaceId,
          status: q.status ?? '',
          outcome: q.outcome ?? '',
          kind: q.task ?? '',
          ...(q.since && { startedAfter: timestampFromDate(new Date(q.since)) }),
          ...(q.until && { startedBefore: timestampFromDate(new Date(q.until)) }),
          limit: q.limit,
          cursor: q.cursor ?? '',
        },
        { signal },
      )
      .catch(asQueryIssues);
    const now = Date.now();
    return {
      success: true as const,
      sessions: out.sessions.map((s) => toSessionJson(s, replays, now)),
      nextCursor: out.nextCursor || null,
    };
  },
});

export const sessionsGetRow = capability({
  name: 'sessions.get',
  method: 'get',
  path: '/v1/sessions/{id}',
  tag: 'Sessions',
  summary: 'One browser session',
  description:
    'Status, outcome, task, age, duration, page count, usage and replay URL of one session. Another workspace’s session is not_found. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_get',
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The session id.') }) },
  response: z.object({ success: z.literal(true), session: sessionObject }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal, replays }, { params: p }) => {
    const out = await upstreams.sessions.getSession(
      { workspaceId: principal.workspaceId, sessionId: p.id },
      { signal },
    );
    if (!out.session) throw new Error('session-recorder answered no session');
    return { success: true as const, session: toSessionJson(out.session, replays) };
  },
});

export const sessionsDeleteRow = capability({
  name: 'sessions.delete',
  method: 'delete',
  path: '/v1/sessions/{id}',
  tag: 'Sessions',
  summary: 'Delete a session and its recording',
  description:
    'Deletes an ended session for good: its recording (replay links and exports stop working), its network log and every stored byte of it; then the session answers not_found. A running session is refused with bad_request: close its browser first. Sessions are also deleted on their own once `RECORDING_RETENTION_DAYS` (30 by default) have passed since they ended. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_delete',
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The session id.') }) },
  response: z.object({
    success: z.literal(true),
    deleted: z
      .object({
        chunks: z.number().int().describe('Recording chunks deleted.'),
        bytes: z.number().int().describe('Compressed recording bytes deleted.'),
        networkRequests: z.number().int().describe('Rows of the network log deleted.'),
      })
      .describe('What went with the session.'),
  }),
  errors: ['not_found', 'bad_request'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    const out = await upstreams.sessions.deleteSession(
      { workspaceId: principal.workspaceId, sessionId: p.id },
      { signal },
    );
    return {
      success: true as const,
      deleted: { chunks: out.chunks, bytes: Number(out.bytes), networkRequests: out.networkRequests },
    };
  },
});

export const sessionsVerifyRow = capability({
  name: 'sessions.verify',
  method: 'post',
  path: '/v1/sessions/{id}/verify',
  tag: 'Sessions',
  summary: "Check a session's recording has not changed",
  description:
    'Recomputes the recording’s hash chain from the stored bytes and compares it with its head: `valid`, or the first chunk whose link breaks and why. Evidence for disputing a charge. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_verify',
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The session id.') }) },
  response: z.object({
    success: z.literal(true),
    valid: z.boolean(),
    chunks: z.number().int(),
    head: z.string().describe('The stored head (hex SHA-256).'),
    brokenAt: z.number().int().nullable().describe('The first chunk whose link breaks; null when valid.'),
    reason: z.string().nullable(),
  }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal }, { params: p }) => {
    const out = await upstreams.sessions.verifyRecording(
      { workspaceId: principal.workspaceId, sessionId: p.id },
      { signal },
    );
    return {
      success: true as const,
      valid: out.valid,
      chunks: out.chunks,
      head: out.head,
      brokenAt: out.valid ? null : out.brokenAt,
      reason: out.valid ? null : out.reason,
    };
  },
});

export const sessionsExportRow = capability({
  name: 'sessions.export',
  method: 'post',
  path: '/v1/sessions/{id}/export',
  tag: 'Sessions',
  summary: 'A portable bundle of a session that plays offline',
  description:
    'A signed, expiring link to one self-contained HTML file: the player, its styles and the recorded events inline. It plays from `file://` with networking off (its Content-Security-Policy loads nothing). The bytes of each download are recorded as `bytes_egress`, priced at zero. not_found for a session without a recording, or another workspace’s. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_export',
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The session id.') }) },
  response: z.object({
    success: z.literal(true),
    export: z.object({
      url: z.string().describe('Where to download the bundle, without the API key, until `expiresAt`.'),
      filename: z.string(),
      contentType: z.literal('text/html'),
      expiresAt: z.string().describe('ISO 8601.'),
    }),
  }),
  errors: ['not_found', 'capability_unavailable'],
  handler: async ({ principal, upstreams, signal, replays }, { params: p }) => {
    if (!replays) throw new ApiError('capability_unavailable', { capability: 'sessions.export' });
    const out = await upstreams.sessions.getSession(
      { workspaceId: principal.workspaceId, sessionId: p.id },
      { signal },
    );
    if (!out.session?.recording) throw new ApiError('not_found');
    const now = Date.now();
    return {
      success: true as const,
      export: {
        url: replays.url(principal.workspaceId, out.session.id, '/bundle', now),
        filename: `session-${out.session.id}.html`,
        contentType: 'text/html' as const,
        expiresAt: new Date(Math.floor(now / 1000) * 1000 + replays.ttlSeconds * 1000).toISOString(),
      },
    };
  },
});

/** How often the live feed looks at the session while it runs. */
export const LIVE_POLL_MS = 1_000;

export const sessionsLiveRow = capability({
  name: 'sessions.live',
  method: 'get',
  path: '/v1/sessions/{id}/live',
  tag: 'Sessions',
  summary: 'One browser session, as it changes',
  description:
    'The `live` variant of `sessions.get`: Server-Sent Events, one `data:` frame with the session at once and another each time its status, pages, recording or usage change (looked at every second), ending after the frame that says `ended`. Another workspace’s session is not_found before the stream starts. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_live',
  answer: { kind: 'sse' },
  request: { params: z.strictObject({ id: z.string().min(1).max(100).describe('The session id.') }) },
  response: z.object({ session: sessionObject }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal, replays }, { params: p }) => {
    const read = async () => {
      const out = await upstreams.sessions.getSession(
        { workspaceId: principal.workspaceId, sessionId: p.id },
        { signal },
      );
      if (!out.session) throw new Error('session-recorder answered no session');
      return out.session;
    };
    // Read once before the stream: a session that does not exist is a plain 404.
    const first = await read();
    return (async function* () {
      let session = first;
      let said = '';
      for (;;) {
        const json = toSessionJson(session, replays);
        // What changes matters; the link's expiry and the age tick on their own and are not news.
        const news = JSON.stringify({ ...json, replayUrl: !!json.replayUrl, ageSeconds: 0, durationSeconds: 0 });
        if (news !== said) {
          said = news;
          yield { session: json };
        }
        if (json.status === 'ended' || signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, LIVE_POLL_MS));
        if (signal.aborted) return;
        session = await read();
      }
    })();
  },
});

const networkRequestObject = z.object({
  id: z.string().describe('Row id, increasing in the order the rows were stored.'),
  tab: z.number().int().describe('The page it came from: 1, 2... in the order the host first saw each page.'),
  url: z.string(),
  method: z.string(),
  type: z.string().describe("Chromium's resource type: Document, Stylesheet, Script, Image, Fetch, XHR…"),
  status: z.number().int().describe('0 when no response came (failed, blocked, cancelled).'),
  startedAt: z.string().describe('ISO 8601.'),
  durationMs: z.number().int(),
  remoteAddress: z
    .string()
    .describe("ip:port the session's egress reached; empty when none was (cache, data:, refused)."),
  requestBytes: z.number().int().describe('Request body bytes.'),
  responseBytes: z.number().int().describe('Bytes on the wire, headers included.'),
  mimeType: z.string(),
  error: z.string().nullable().describe('Why it failed; null when it did not.'),
  body: z
    .string()
    .nullable()
    .optional()
    .describe('With `bodies=true`: the stored text body (only for sessions connected with `networkBodies=true`).'),
  bodyTruncated: z.boolean().optional().describe('The stored body was cut at 64 KB.'),
  protocol: z.string().describe('What the response came over: `http/1.1`, `h2`, `h3`, `data`…; empty without one.'),
  initiator: z
    .object({
      type: z.string().describe('`parser`, `script`, `preload`, `preflight`, `other`…'),
      url: z.string().nullable().describe('The document or script that asked; null when unknown.'),
      line: z.number().int().nullable().describe('Its line (1-based); null when unknown.'),
    })
    .describe('What asked for the request.'),
  requestHeaders: z
    .record(z.string(), z.string())
    .describe(
      'As Chromium sent them, names lower-cased; `authorization`, `proxy-authorization` and `cookie` read `[redacted]`.',
    ),
  responseHeaders: z.record(z.string(), z.string()).describe('As received; `set-cookie` reads `[redacted]`.'),
  timing: z
    .object({
      blockedMs: z.number().nullable(),
      dnsMs: z.number().nullable(),
      connectMs: z.number().nullable(),
      sslMs: z.number().nullable(),
      sendMs: z.number().nullable(),
      waitMs: z.number().nullable(),
      receiveMs: z.number().nullable(),
    })
    .describe(
      "Where its time went, in milliseconds, as HAR splits it; null for a part that did not happen (a reused connection's dns and connect). Chromium reaches the session's egress proxy, so dns and connect are those of the proxy hop.",
    ),
});

const networkQuery = z.strictObject({
  url: z.string().min(1).max(2_048).optional().describe('Only requests whose URL contains this.'),
  method: z
    .string()
    .regex(/^[A-Za-z]{1,16}$/)
    .optional()
    .describe('Only this method (GET, POST…).'),
  status: z
    .string()
    .regex(/^([1-5]\d\d|[1-5]xx|0)$/, 'a status code (404), a class (4xx), or 0 for no response')
    .optional()
    .describe('A status code (`404`), a class (`4xx`), or `0` for requests with no response.'),
  type: z.string().min(1).max(32).optional().describe('Only this resource type (Document, XHR, Fetch…).'),
  tab: z.coerce.number().int().min(1).max(10_000).optional().describe('Only requests of this page.'),
  minDurationMs: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .optional()
    .describe('Only requests this slow or slower.'),
  bodies: z.stringbool().optional().describe('Include stored bodies (default false).'),
  follow: z
    .stringbool()
    .optional()
    .describe('On a live session, keep the stream open and send new requests as they are stored, until it ends.'),
});

const networkFrame = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('header'),
    sessionId: z.string(),
    status: z.enum(['live', 'ended']).describe("The session's status when the stream began."),
    follow: z.boolean().describe('Whether the stream stays open for new requests.'),
  }),
  z.object({ type: z.literal('request'), request: networkRequestObject }),
]);

/** How often a followed network log looks for new rows: a new request reaches the client within a second. */
export const NETWORK_FOLLOW_MS = 250;

/**
 * Why a session can no longer be followed, when the platform cut it off rather than it ending as
 * asked (docs/sessions.md): its credits ran out (quota_exceeded: what its own client met), or its
 * browser was lost (page_lost). Undefined for every other ending.
 */
async function cutOff(ctx: HandlerContext, sessionId: string): Promise<ApiError | undefined> {
  const { principal, upstreams, signal } = ctx;
  const out = await upstreams.sessions.getSession({ workspaceId: principal.workspaceId, sessionId }, { signal });
  switch (out.session?.outcome) {
    case 'credits_exhausted': {
      const balance = upstreams.configured('billing-ledger')
        ? await upstreams.ledger.credits({ workspaceId: principal.workspaceId }, { signal })
        : undefined;
      const available = Math.max(0, Math.floor(credits(balance?.availableMillicredits ?? 0n)));
      // A minute of browser time, the least the session needed to go on.
      return new ApiError('quota_exceeded', { needed: 1, available });
    }
    case 'crashed':
    case 'host_lost':
      return new ApiError('page_lost', { reason: 'crashed' });
    default:
      return undefined;
  }
}

function toNetworkJson(r: sessions.NetworkRequest) {
  return {
    id: String(r.id),
    tab: r.tab,
    url: r.url,
    method: r.method,
    type: r.type,
    status: r.status,
    startedAt: isoTime(r.startedAt) ?? new Date(0).toISOString(),
    durationMs: r.durationMs,
    remoteAddress: r.remoteAddress,
    requestBytes: Number(r.requestBytes),
    responseBytes: Number(r.responseBytes),
    mimeType: r.mimeType,
    error: r.error || null,
    ...(r.body !== undefined && { body: r.body, bodyTruncated: r.bodyTruncated }),
    protocol: r.protocol,
    initiator: { type: r.initiator?.type || 'other', url: r.initiator?.url || null, line: r.initiator?.line || null },
    requestHeaders: r.requestHeaders,
    responseHeaders: r.responseHeaders,
    timing: {
      blockedMs: r.timing?.blockedMs ?? null,
      dnsMs: r.timing?.dnsMs ?? null,
      connectMs: r.timing?.connectMs ?? null,
      sslMs: r.timing?.sslMs ?? null,
      sendMs: r.timing?.sendMs ?? null,
      waitMs: r.timing?.waitMs ?? null,
      receiveMs: r.timing?.receiveMs ?? null,
    },
  };
}

export const sessionsNetworkRow = capability({
  name: 'sessions.network',
  method: 'get',
  path: '/v1/sessions/{id}/network',
  tag: 'Sessions',
  summary: "A session's network log",
  description:
    'Newline-delimited JSON: a `header` frame first, then one `request` frame per request, oldest first: method, URL, type, status, headers, timing, protocol, remote address, initiator and sizes. Filters narrow the rows; `bodies` adds stored bodies; `follow` keeps the stream open on a live session and sends new requests as they are stored (within a second), ending when the session ends. A followed session the platform cut off ends its stream with the Error object as its last line, and `follow=true` asked after that answers it as the status: quota_exceeded when its credits ran out, page_lost when its browser crashed or its host was lost. Another workspace’s session is not_found. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_network',
  answer: { kind: 'ndjson' },
  request: {
    params: z.strictObject({ id: z.string().min(1).max(100).describe('The session id.') }),
    query: networkQuery,
  },
  response: networkFrame,
  errors: ['not_found', 'quota_exceeded', 'page_lost'],
  handler: async (ctx, { params: p, query: q }) => {
    const { principal, upstreams, signal } = ctx;
    const statusCode = q.status && !q.status.endsWith('xx') ? Number(q.status) : 0;
    const page = (afterId: bigint) =>
      upstreams.sessions.listNetwork(
        {
          workspaceId: principal.workspaceId,
          sessionId: p.id,
          afterId,
          limit: 500,
          urlContains: q.url ?? '',
          method: q.method ?? '',
          status: statusCode,
          statusClass: q.status?.endsWith('xx') ? Number(q.status[0]) : 0,
          type: q.type ?? '',
          tab: q.tab ?? 0,
          minDurationMs: q.minDurationMs ?? 0,
          bodies: q.bodies ?? false,
        },
        { signal },
      );
    // Read once before the stream: a session that does not exist is a plain 404.
    const first = await page(0n);
    const follow = (q.follow ?? false) && first.sessionStatus === 'live';
    if (q.follow && !follow) {
      const cut = await cutOff(ctx, p.id);
      if (cut) throw cut;
    }
    // Status 0 asks for "no response": the recorder's 0 means "any", so those rows are picked here.
    const keep = (r: sessions.NetworkRequest) => q.status !== '0' || r.status === 0;
    return (async function* () {
      yield {
        type: 'header' as const,
        sessionId: p.id.toLowerCase(),
        status: first.sessionStatus === 'ended' ? ('ended' as const) : ('live' as const),
        follow,
      };
      let answer = first;
      // A session's end may be stored a moment before its last requests (two streams): a followed log
      // looks once more, a second after it sees the end, before it ends too.
      let lastLook = false;
      for (;;) {
        for (const r of answer.requests) if (keep(r)) yield { type: 'request' as const, request: toNetworkJson(r) };
        if (signal.aborted) return;
        // A full page: read on at once. Otherwise, done, or (following a live session) look again shortly.
        if (answer.requests.length < 500) {
          if (!follow) return;
          if (lastLook) {
            const cut = await cutOff(ctx, p.id);
            if (cut) throw cut;
            return;
          }
          if (answer.sessionStatus !== 'live') lastLook = true;
          await new Promise((resolve) => setTimeout(resolve, lastLook ? 1_000 : NETWORK_FOLLOW_MS));
          if (signal.aborted) return;
        }
        answer = await page(answer.lastId);
      }
    })();
  },
});
