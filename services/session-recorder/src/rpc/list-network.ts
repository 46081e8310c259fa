import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { sessions } from '@wap/proto';
import type { Prisma } from '../generated/prisma/client.js';
import type { SessionRecorderDeps } from './deps.js';
import { sessionId } from './parse.js';

const MAX_LIMIT = 500;

/** A JSON column holding an object, or an empty one (rows stored before the column existed). */
const jsonObject = (v: Prisma.JsonValue | null): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** sessions.ListNetwork: the session's requests after a row id, oldest first, filtered; not_found for another workspace's. */
export const listNetwork =
  ({ rows, network }: SessionRecorderDeps) =>
  async (req: sessions.ListNetworkRequest) => {
    const session = await rows.get(req.workspaceId, sessionId(req.sessionId));
    if (!session) throw new ApiError('not_found');
    const found = await network.list(session.id, req, {
      afterId: req.afterId,
      limit: Math.min(Math.max(req.limit, 1), MAX_LIMIT),
      bodies: req.bodies,
    });
    return create(sessions.ListNetworkResponseSchema, {
      sessionStatus: session.status,
      lastId: found.at(-1)?.id ?? req.afterId,
      requests: found.map((r) => ({
        id: r.id,
        tab: r.tab,
        url: r.url,
        method: r.method,
        type: r.type,
        status: r.status,
        startedAt: timestampFromDate(r.startedAt),
        durationMs: r.durationMs,
        remoteAddress: r.remoteAddress,
        requestBytes: r.requestBytes,
        responseBytes: r.responseBytes,
        mimeType: r.mimeType,
        error: r.error,
        ...(req.bodies && typeof r.body === 'string' && { body: r.body }),
        bodyTruncated: r.bodyTruncated,
        protocol: r.protocol,
        initiator: jsonObject(r.initiator),
        requestHeaders: jsonObject(r.requestHeaders) as Record<string, string>,
        responseHeaders: jsonObject(r.responseHeaders) as Record<string, string>,
        timing: Object.fromEntries(Object.entries(jsonObject(r.timing)).filter((e) => typeof e[1] === 'number')),
      })),
    });
  };
