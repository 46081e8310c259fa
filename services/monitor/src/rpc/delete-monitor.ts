// DeleteMonitor: the monitor with its snapshots, deliveries and checks; another workspace's is not found.
// The room it leaves may resume a monitor paused past the workspace plan's cap.
import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { monitor as proto } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import type { MonitorDeps } from './deps.js';

export const deleteMonitor =
  ({ store, deleted }: MonitorDeps) =>
  async (req: proto.DeleteMonitorRequest): Promise<proto.DeleteMonitorResponse> => {
    if (!(await store.delete(req.workspaceId, resourceId(req.monitorId)))) throw new ApiError('not_found');
    deleted?.(req.workspaceId);
    return create(proto.DeleteMonitorResponseSchema, {});
  };
