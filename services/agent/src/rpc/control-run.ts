import { ApiError } from '@wap/errors';
import type { agent } from '@wap/proto';
import { siteOf } from '../domain/site.js';
import { toRun } from '../views/run.js';
import type { AgentRpcDeps } from './deps.js';
import { runRef } from './parse.js';

/**
 * agent.ControlRun: take pauses a live run for a person (its browser stays
 * open); hand back resumes it on the page the person left. A run that has no
 * browser (queued) or has ended is replay_control_denied `not_live`; handing
 * back a run nobody took is bad_request.
 */
export function controlRun({ store, pauses, wake }: AgentRpcDeps) {
  return async (req: agent.ControlRunRequest): Promise<agent.ControlRunResponse> => {
    const ref = runRef(req);
    const out = await pauses.control(ref.workspaceId, ref.runId, req.take);
    if ('refused' in out) {
      if (out.refused === 'not_found') throw new ApiError('not_found');
      if (out.refused === 'not_live') {
        const row = await store.get(ref.workspaceId, ref.runId);
        throw new ApiError('replay_control_denied', { sessionId: row?.sessionId ?? '', reason: 'not_live' });
      }
      throw new ApiError('bad_request', { issues: [{ path: 'action', message: 'the run is not taken over' }] });
    }
    wake(out.row.id);
    return {
      $typeName: 'wap.agent.v1.ControlRunResponse',
      run: toRun(out.row, await store.files(out.row.id)),
      // Before its first look at a page, the run is on its start page's site.
      site: out.row.site ?? (out.row.startUrl ? siteOf(out.row.startUrl) : null) ?? '',
    };
  };
}
