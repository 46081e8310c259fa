// What the profile RPCs share (docs/profiles.md): the profiles, or capability_unavailable on a host without
// PROFILE_KEY, and a stored profile as the contract carries it.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { browser as proto } from '@wap/proto';
import type { Profiles } from '../profiles/profiles.js';
import { leased, type ProfileRow } from '../store/profiles.js';
import type { BrowserHostDeps } from './deps.js';

export function servedProfiles(deps: BrowserHostDeps): Profiles {
  if (!deps.profiles) throw new ApiError('capability_unavailable', { capability: 'profiles' });
  return deps.profiles;
}

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
