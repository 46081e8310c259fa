import { create } from '@bufbuild/protobuf';
import { browser as proto } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import { toProfile } from '../views/profile.js';
import { type BrowserHostDeps, servedProfiles } from './deps.js';

export const getProfile = (deps: BrowserHostDeps) => async (req: proto.GetProfileRequest) => {
  const row = await servedProfiles(deps).get(req.workspaceId, resourceId(req.profileId, 'profile_not_found'));
  return create(proto.GetProfileResponseSchema, { profile: toProfile(row) });
};
