// A session's recording (docs/sessions.md): the check that its hash chain still
// holds, and the bundle that plays it offline. Never billed.
import { ApiError } from '@wap/errors';
import { z } from 'zod';
import { capability } from '../types.js';
import { sessionParams } from './session-object.js';

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
  request: { params: sessionParams },
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
  request: { params: sessionParams },
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
        expiresAt: new Date(replays.expires(now) * 1000).toISOString(),
      },
    };
  },
});
