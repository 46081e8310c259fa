// A stored profile as the contract carries it (docs/profiles.md).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { browser as proto } from '@wap/proto';
import { leased, type ProfileRow } from '../store/profiles.js';

export const toProfile = (row: ProfileRow, now = Date.now()): proto.Profile =>
  create(proto.ProfileSchema, {
    id: row.id,
    workspaceId: row.workspaceId,
    label: row.label,
    exitId: row.exitId,
    exitKind: row.exitKind,
    exitRegion: row.exitRegion,
    createdAt: timestampFromDate(row.createdAt),
    ...(row.lastUsedAt && { lastUsedAt: timestampFromDate(row.lastUsedAt) }),
    sizeBytes: BigInt(row.sizeBytes),
    inUse: leased(row, now),
  });
