// The BrowserService implementation: one handler per RPC, each in its own file.
import type { browser } from '@wap/proto';
import type { ServiceImpl } from '@wap/rpc';
import type { BrowserHostDeps } from './deps.js';
import { openSession } from './open-session.js';
import { profileService } from './profiles.js';
import { renderPage } from './render.js';

export type { BrowserHostDeps } from './deps.js';

export function browserService(deps: BrowserHostDeps): ServiceImpl<(typeof browser.BrowserService)['method']> {
  return { render: renderPage(deps), openSession: openSession(deps), ...profileService(deps.profiles) };
}
