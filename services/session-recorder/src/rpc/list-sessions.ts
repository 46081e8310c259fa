import { create } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { sessions } from '@wap/proto';
import type { RecordingStore } from '../store/recordings.js';
import type { SessionRows } from '../store/sessions.js';
import { toSession } from './session-view.js';

export const MAX_LIST_LIMIT = 100;

const invalid = (path: string, message: string): never => {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
};

/** The cursor names the last session of a page: (started_at, id), opaque to clients. */
const encodeCursor = (row: { startedAt: Date; id: string }) =>
  Buffer.from(JSON.stringify([row.startedAt.toISOString(), row.id])).toString('base64url');

function decodeCursor(cursor: string): { startedAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const startedAt = new Date(at);
    if (typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id) && !Number.isNaN(startedAt.getTime()))
      return { startedAt, id };
  } catch {}
  return invalid('cursor', 'not a cursor this listing gave');
}

/** sessions.ListSessions: the workspace's sessions, newest first, a page at a time. */
export const listSessions =
  (rows: SessionRows, recordings: RecordingStore) => async (req: sessions.ListSessionsRequest) => {
    const limit = req.limit === 0 ? 20 : req.limit;
    if (limit < 1 || limit > MAX_LIST_LIMIT) invalid('limit', `between 1 and ${MAX_LIST_LIMIT}`);
    const found = await rows.list({
      workspaceId: req.workspaceId,
      status: req.status || undefined,
      outcome: req.outcome || undefined,
      kind: req.kind || undefined,
      startedAfter: req.startedAfter && timestampDate(req.startedAfter),
      startedBefore: req.startedBefore && timestampDate(req.startedBefore),
      after: req.cursor ? decodeCursor(req.cursor) : undefined,
      limit,
    });
    const page = found.slice(0, limit);
    const last = page.at(-1);
    const recorded = await recordings.of(page.map((s) => s.id));
    return create(sessions.ListSessionsResponseSchema, {
      sessions: page.map((s) => toSession(s, recorded.get(s.id))),
      nextCursor: found.length > limit && last ? encodeCursor(last) : '',
    });
  };
