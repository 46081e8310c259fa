import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { sessions } from '@wap/proto';
import type { SessionRecorderDeps } from './deps.js';
import { sessionId } from './parse.js';

/**
 * sessions.DeleteSession: an ended session's recording, network log and
 * stream chunks deleted; not_found for another workspace's or a deleted one;
 * bad_request while it runs (its browser must close first).
 */
export const deleteSession =
  ({ purge, purgeChunks, log }: SessionRecorderDeps) =>
  async (req: sessions.DeleteSessionRequest) => {
    const id = sessionId(req.sessionId);
    const removed = await purge.deleteOne(req.workspaceId, id);
    if (removed === 'not_found') throw new ApiError('not_found');
    if (removed === 'live')
      throw new ApiError('bad_request', {
        issues: [{ path: 'id', message: 'the session is still running: close its browser, then delete it' }],
      });
    // The rows are gone; the stream's copies go now, or when the sweep removes the tombstone, or with the stream's age limit.
    await purgeChunks(id).catch((err: unknown) =>
      log.warn({ err, sessionId: id }, 'deleted session: its chunks could not be purged from the stream yet'),
    );
    return create(sessions.DeleteSessionResponseSchema, {
      chunks: removed.chunks,
      bytes: removed.bytes,
      networkRequests: removed.networkRequests,
    });
  };
