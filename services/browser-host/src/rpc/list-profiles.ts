import { create } from '@bufbuild/protobuf';
import { browser as proto } from '@wap/proto';
import { decodeCursor, pageLimit, pageOf } from '@wap/rpc';
import { toProfile } from '../views/profile.js';
import { type BrowserHostDeps, servedProfiles } from './deps.js';

/** The workspace's profiles, newest first, those whose label matches the glob when one is given. */
export const listProfiles = (deps: BrowserHostDeps) => async (req: proto.ListProfilesRequest) => {
  const limit = pageLimit(req.limit);
  const after = req.cursor ? decodeCursor(req.cursor) : undefined;
  const rows = await servedProfiles(deps).list({
    workspaceId: req.workspaceId,
    ...(req.labelGlob !== undefined && { labelGlob: req.labelGlob }),
    ...(after && { after: { createdAt: after.at, id: after.id } }),
    limit,
  });
  const { page, nextCursor } = pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }));
  const now = Date.now();
  return create(proto.ListProfilesResponseSchema, { profiles: page.map((r) => toProfile(r, now)), nextCursor });
};
