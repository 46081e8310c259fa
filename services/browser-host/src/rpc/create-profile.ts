import { create } from '@bufbuild/protobuf';
import { ApiError } from '@wap/errors';
import { browser as proto } from '@wap/proto';
import { EXIT_KINDS, type ExitKind } from '../domain/exits.js';
import { toProfile } from '../views/profile.js';
import { type BrowserHostDeps, servedProfiles } from './deps.js';

/** A new profile for the workspace, on the exit it names (any exit when none). */
export const createProfile = (deps: BrowserHostDeps) => async (req: proto.CreateProfileRequest) => {
  const kind = req.exit?.kind ?? '';
  if (kind && !(EXIT_KINDS as readonly string[]).includes(kind))
    throw new ApiError('bad_request', { issues: [{ path: 'exit.kind', message: EXIT_KINDS.join(' or ') }] });
  const row = await servedProfiles(deps).create(req.workspaceId, req.label, {
    ...(req.exit?.id && { id: req.exit.id }),
    ...(req.exit?.region && { region: req.exit.region }),
    ...(kind && { kind: kind as ExitKind }),
  });
  return create(proto.CreateProfileResponseSchema, { profile: toProfile(row) });
};
