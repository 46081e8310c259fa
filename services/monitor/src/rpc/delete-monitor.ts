// DeleteMonitor: the monitor with its snapshots, deliveries and checks; another workspace's is not found.
import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { monitor as proto } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import type { MonitorDeps } from './deps.js';

export const deleteMonitor =
  ({ store }: MonitorDeps) =>
  async (req: proto.DeleteMonitorRequest): Promise<proto.DeleteMonitorResponse> => {
    if (!(await store.delete(req.workspaceId, resourceId(req.monitorId)))) throw new ApiError('not_found');
    return create(proto.DeleteMonitorResponseSchema, {});
  };
