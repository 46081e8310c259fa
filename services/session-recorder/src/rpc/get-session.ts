import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { sessions } from '@wap/proto';
import { toSession } from '../views/session.js';
import type { SessionRecorderDeps } from './deps.js';
import { sessionId } from './parse.js';

/** sessions.GetSession: one session of the caller's workspace; not_found for any other. */
export const getSession =
  ({ rows, recordings }: SessionRecorderDeps) =>
  async (req: sessions.GetSessionRequest) => {
    const row = await rows.get(req.workspaceId, sessionId(req.sessionId));
    if (!row) throw new ApiError('not_found');
    const recording = await recordings.get(row.workspaceId, row.id);
    return create(sessions.GetSessionResponseSchema, { session: toSession(row, recording) });
  };
