import { create } from '@bufbuild/protobuf';
import { browser as proto } from '@wap/proto';
import { resourceId } from '@wap/rpc';
import { type BrowserHostDeps, servedProfiles } from './deps.js';

export const deleteProfile = (deps: BrowserHostDeps) => async (req: proto.DeleteProfileRequest) => {
  await servedProfiles(deps).delete(req.workspaceId, resourceId(req.profileId, 'profile_not_found'));
  return create(proto.DeleteProfileResponseSchema, {});
};
