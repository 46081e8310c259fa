// The profile RPCs (docs/profiles.md): create, list by label glob, get, delete.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { browser as proto } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf, resourceId } from '@wap/rpc';
import { EXIT_KINDS, type ExitKind } from '../domain/exits.js';
import type { Profiles } from '../profiles/profiles.js';
import { leased, type ProfileRow } from '../store/profiles.js';

const toProfile = (row: ProfileRow, now = Date.now()): proto.Profile =>
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

/** The profile capabilities: capability_unavailable on a host without PROFILE_KEY. */
export function profileService(profiles: Profiles | undefined) {
  const served = (): Profiles => {
    if (!profiles) throw new ApiError('capability_unavailable', { capability: 'profiles' });
    return profiles;
  };
  return {
    createProfile: async (req: proto.CreateProfileRequest) => {
      const kind = req.exit?.kind ?? '';
      if (kind && !(EXIT_KINDS as readonly string[]).includes(kind))
        throw new ApiError('bad_request', { issues: [{ path: 'exit.kind', message: EXIT_KINDS.join(' or ') }] });
      const row = await served().create(req.workspaceId, req.label, {
        ...(req.exit?.id && { id: req.exit.id }),
        ...(req.exit?.region && { region: req.exit.region }),
        ...(kind && { kind: kind as ExitKind }),
      });
      return create(proto.CreateProfileResponseSchema, { profile: toProfile(row) });
    },
    listProfiles: async (req: proto.ListProfilesRequest) => {
      const limit = pageLimit(req.limit);
      const after = req.cursor ? decodeCursor(req.cursor) : undefined;
      const rows = await served().list({
        workspaceId: req.workspaceId,
        ...(req.labelGlob !== undefined && { labelGlob: req.labelGlob }),
        ...(after && { after: { createdAt: after.at, id: after.id } }),
        limit,
      });
      const { page, nextCursor } = pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }));
      const now = Date.now();
      return create(proto.ListProfilesResponseSchema, { profiles: page.map((r) => toProfile(r, now)), nextCursor });
    },
    getProfile: async (req: proto.GetProfileRequest) => {
      const row = await served().get(req.workspaceId, resourceId(req.profileId, 'profile_not_found'));
      return create(proto.GetProfileResponseSchema, { profile: toProfile(row) });
    },
    deleteProfile: async (req: proto.DeleteProfileRequest) => {
      await served().delete(req.workspaceId, resourceId(req.profileId, 'profile_not_found'));
      return create(proto.DeleteProfileResponseSchema, {});
    },
  };
}
