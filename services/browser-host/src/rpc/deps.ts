// What the BrowserService handlers share: built once by the composition root (browser-host.ts).
import { ApiError } from '@wap/errors';
import type { AllowList } from '@wap/netguard';
import type { SolverProvider } from '../captcha/provider.js';
import type { EgressProxy } from '../egress/proxy.js';
import type { BrowserPool } from '../pool/pool.js';
import type { Profiles } from '../profiles/profiles.js';
import type { CdpServer } from '../sessions/cdp-server.js';
import type { SessionManager } from '../sessions/manager.js';

export interface BrowserHostDeps {
  pool: BrowserPool;
  egress: EgressProxy;
  /** What the egress guard lets through besides public addresses: empty in production. */
  allow: AllowList;
  sessions: SessionManager;
  cdp: CdpServer;
  /** Unset without PROFILE_KEY: the profile capabilities are unavailable. */
  profiles: Profiles | undefined;
  /** The operator's captcha solver (CAPTCHA_SOLVER_URL and _KEY); unset, token widgets are not solved. */
  captchaSolver: SolverProvider | undefined;
}

/** The profiles, or capability_unavailable on a host without PROFILE_KEY (docs/profiles.md). */
export function servedProfiles(deps: BrowserHostDeps): Profiles {
  if (!deps.profiles) throw new ApiError('capability_unavailable', { capability: 'profiles' });
  return deps.profiles;
}
