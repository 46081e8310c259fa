import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { sessions } from '@wap/proto';
import { verifyChain } from '../domain/chain.js';
import type { SessionRecorderDeps } from './deps.js';
import { sessionId } from './parse.js';

/** sessions.VerifyRecording: the stored chain recomputed from the stored bytes; not_found without a recording. */
export const verifyRecording =
  ({ recordings }: SessionRecorderDeps) =>
  async (req: sessions.VerifyRecordingRequest) => {
    const recording = await recordings.get(req.workspaceId, sessionId(req.sessionId));
    if (!recording) throw new ApiError('not_found');
    const check = verifyChain(recording.sessionId, await recordings.chunks(recording.sessionId), recording.head);
    return create(sessions.VerifyRecordingResponseSchema, {
      valid: check.valid,
      chunks: check.chunks,
      head: check.head,
      ...(!check.valid && { brokenAt: check.brokenAt, reason: check.reason }),
    });
  };
