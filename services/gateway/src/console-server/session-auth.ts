// A request signed in by the console's cookie: its session read joined to
// the membership (store/console-sessions.ts), and its write checked for the
// CSRF token and Origin (guard.ts). Used by /console/api and by /v1.
import { ApiError } from '@wap/errors';
import type { Request } from 'express';
import { cookieFrom } from '../domain/credentials.js';
import type { IdentityStore, Principal } from '../oauth/identity.js';
import type { ConsoleSession } from '../store/console-sessions.js';
import { SESSION_COOKIE, writeAllowed } from './guard.js';

export interface SignedIn {
  session: ConsoleSession;
  /** The cookie's value: the CSRF token derives from it. */
  token: string;
}

/** The request's console session; 401 without a valid one, 403 tenant_scope for a write that fails the CSRF rule. */
export async function consoleSessionOf(identity: IdentityStore, req: Request, publicUrl: string): Promise<SignedIn> {
  const token = cookieFrom(req.headers.cookie, SESSION_COOKIE);
  if (!token) throw new ApiError('unauthorized', { reason: 'missing' });
  // A value no token of ours could be is not worth a query.
  const session = /^[A-Za-z0-9_-]{43}$/.test(token) ? await identity.consoleSessions.find(token) : undefined;
  if (!session) throw new ApiError('unauthorized', { reason: 'invalid' });
  const check = {
    method: req.method,
    origin: req.headers.origin,
    host: req.headers.host,
    csrfToken: req.header('x-csrf-token'),
    sessionToken: token,
  };
  if (!writeAllowed(check, publicUrl)) throw new ApiError('tenant_scope', { surface: 'console' });
  return { session, token };
}

/** The principal a console session acts as on /v1: its workspace, on the REST surface only. */
export const consolePrincipal = ({ session }: SignedIn): Principal => ({
  workspaceId: session.workspaceId,
  plan: session.plan,
  credential: { kind: 'console_session', sessionId: session.id, userId: session.userId, role: session.role },
  surfaces: new Set(['rest']),
});
