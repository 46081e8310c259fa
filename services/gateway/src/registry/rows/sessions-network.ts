// A session's network log (docs/sessions.md): the requests the session-recorder
// stored, filtered, and followed while the session runs. Never billed.
import { ApiError } from '@wap/errors';
import type { sessions } from '@wap/proto';
import { z } from 'zod';
import { capability, type HandlerContext } from '../types.js';
import { credits, isoTime } from '../usage-shape.js';
import { sessionParams } from './session-object.js';

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
    params: sessionParams,
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
