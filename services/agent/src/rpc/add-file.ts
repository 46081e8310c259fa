import { ApiError } from '@wap/errors';
import type { agent } from '@wap/proto';
import { newFileHandle, sealFile } from '../domain/files.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid, MAX_FILES, parseFile, runRef } from './parse.js';

/** agent.AddFile: a file for a run that has not ended, sealed under the run; a handle back. */
export function addFile({ store, config }: AgentRpcDeps) {
  return async (req: agent.AddFileRequest): Promise<agent.AddFileResponse> => {
    const ref = runRef(req);
    const file = parseFile(req.file, 'file');
    const key = config.AGENT_FILES_KEY;
    if (!key) throw new ApiError('capability_unavailable', { capability: 'agent.files' });
    if ((await store.files(ref.runId)).length >= MAX_FILES) invalid('file', `a run holds at most ${MAX_FILES} files`);
    const handle = newFileHandle();
    const out = await store.addFile(ref.workspaceId, ref.runId, {
      handle,
      name: file.name,
      mimeType: file.mimeType,
      size: file.data.length,
      sealed: sealFile(key, ref.runId, file.data),
    });
    if (out === 'not_found') throw new ApiError('not_found');
    if (out === 'ended') invalid('id', 'the run has ended; its files are destroyed');
    return {
      $typeName: 'wap.agent.v1.AddFileResponse',
      file: {
        $typeName: 'wap.agent.v1.AgentFile',
        handle,
        name: file.name,
        mimeType: file.mimeType,
        size: BigInt(file.data.length),
      },
    };
  };
}
