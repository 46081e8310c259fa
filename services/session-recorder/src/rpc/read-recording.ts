import { ApiError } from '@wap/errors';
import type { sessions } from '@wap/proto';
import type { SessionRecorderDeps } from './deps.js';
import { sessionId } from './parse.js';

/** sessions.ReadRecording: the stored chunks, in order, as stored; not_found without a recording of the workspace's. */
export const readRecording = ({ recordings }: SessionRecorderDeps) =>
  async function* (req: sessions.ReadRecordingRequest) {
    const recording = await recordings.get(req.workspaceId, sessionId(req.sessionId));
    if (!recording) throw new ApiError('not_found');
    for await (const page of recordings.pages(recording.sessionId))
      for (const chunk of page) yield { seq: chunk.seq, kind: chunk.kind, body: chunk.body };
  };
