// Browser sessions as recorded evidence (docs/sessions.md): the session-recorder's
// reads, and the delete that ends a session's evidence early. Never billed.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { asQueryIssues, nextCursor, pageQuery } from '../paging.js';
import { capability } from '../types.js';
import { SESSION_OUTCOMES, SESSION_TASKS, sessionObject, sessionParams, toSessionJson } from './session-object.js';

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
  request: { params: sessionParams },
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
    'Deletes an ended session for good: its recording (replay links and exports stop working), its network log and every stored byte of it; then the session answers not_found. A running session is refused with bad_request: close its browser first. Sessions are also deleted on their own once `RECORDING_RETENTION` (30 days by default) has passed since they ended. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_delete',
  request: { params: sessionParams },
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
