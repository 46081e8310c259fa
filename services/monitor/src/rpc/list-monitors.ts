// ListMonitors: the workspace's monitors newest first, each with its recent deliveries.
import { create } from '@bufbuild/protobuf';
import { monitor as proto } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf } from '@wap/rpc';
import { toMonitor } from '../views/monitor.js';
import type { MonitorDeps } from './deps.js';

/** How many deliveries the list shows per monitor, newest first. */
const DELIVERIES_SHOWN = 10;

export const listMonitors =
  ({ store }: MonitorDeps) =>
  async (req: proto.ListMonitorsRequest): Promise<proto.ListMonitorsResponse> => {
    const limit = pageLimit(req.limit);
    const after = req.cursor ? decodeCursor(req.cursor) : undefined;
    const rows = await store.list(req.workspaceId, limit + 1, after);
    const { page, nextCursor } = pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }));
    const deliveries = await store.recentDeliveries(
      page.map((m) => m.id),
      DELIVERIES_SHOWN,
    );
    return create(proto.ListMonitorsResponseSchema, {
      monitors: page.map((m) => toMonitor(m, deliveries.get(m.id))),
      nextCursor,
    });
  };
