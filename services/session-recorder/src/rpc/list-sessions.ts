import { create } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { sessions } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf } from '@wap/rpc';
import { toSession } from '../views/session.js';
import type { SessionRecorderDeps } from './deps.js';

/** sessions.ListSessions: the workspace's sessions, newest first, a page at a time. */
export const listSessions =
  ({ rows, recordings }: SessionRecorderDeps) =>
  async (req: sessions.ListSessionsRequest) => {
    const limit = pageLimit(req.limit);
    const after = req.cursor ? decodeCursor(req.cursor) : undefined;
    const found = await rows.list({
      workspaceId: req.workspaceId,
      status: req.status || undefined,
      outcome: req.outcome || undefined,
      kind: req.kind || undefined,
      startedAfter: req.startedAfter && timestampDate(req.startedAfter),
      startedBefore: req.startedBefore && timestampDate(req.startedBefore),
      after: after && { startedAt: after.at, id: after.id },
      limit,
    });
    const { page, nextCursor } = pageOf(found, limit, (s) => ({ at: s.startedAt, id: s.id }));
    const recorded = await recordings.of(page.map((s) => s.id));
    return create(sessions.ListSessionsResponseSchema, {
      sessions: page.map((s) => toSession(s, recorded.get(s.id))),
      nextCursor,
    });
  };
