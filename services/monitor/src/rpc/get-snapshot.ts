// GetSnapshot: what a notification's signed link opens, with its diff and a link to the snapshot before it.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { monitor as proto } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import { storedDiff } from '../domain/diff.js';
import type { MonitorDeps } from './deps.js';

export const getSnapshot =
  ({ store, settings }: MonitorDeps) =>
  async (req: proto.GetSnapshotRequest): Promise<proto.GetSnapshotResponse> => {
    const id = resourceId(req.snapshotId);
    if (!settings.links?.opens(id, Number(req.expires), req.signature)) throw new ApiError('not_found');
    const found = await store.snapshot(id);
    if (!found) throw new ApiError('not_found');
    const { snapshot, monitor } = found;
    const previous = await store.snapshotBefore(monitor.id, snapshot.takenAt);
    const diff = storedDiff(snapshot.diff);
    return create(proto.GetSnapshotResponseSchema, {
      snapshotId: snapshot.id,
      monitorId: monitor.id,
      url: monitor.url,
      takenAt: timestampFromDate(snapshot.takenAt),
      text: snapshot.text,
      added: diff.added,
      removed: diff.removed,
      previousUrl: previous ? settings.links.url(previous) : '',
    });
  };
