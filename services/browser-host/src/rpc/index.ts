// The BrowserService implementation: one handler per RPC, each in its own file.
import type { browser } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import { createProfile } from './create-profile.js';
import { deleteProfile } from './delete-profile.js';
import type { BrowserHostDeps } from './deps.js';
import { getProfile } from './get-profile.js';
import { listProfiles } from './list-profiles.js';
import { openSession } from './open-session.js';
import { renderPage } from './render.js';

export type { BrowserHostDeps } from './deps.js';

export function browserService(deps: BrowserHostDeps): ServiceImpl<(typeof browser.BrowserService)['method']> {
  return {
    render: renderPage(deps),
    openSession: openSession(deps),
    createProfile: createProfile(deps),
    listProfiles: listProfiles(deps),
    getProfile: getProfile(deps),
    deleteProfile: deleteProfile(deps),
  };
}
