// /console/api/session (docs/console.md): sign in with an email and password
// under the OAuth sign-in's throttle, read the session, move it to another
// workspace, sign out.
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { ClientAddress } from '../http/client-address.js';
import { requireJsonBody } from '../http/input.js';
import { parsePart } from '../invoke/input.js';
import type { IdentityStore } from '../oauth/identity.js';
import { signInHeld } from '../oauth/routes.js';
import { CONSOLE_LIFETIME_MS, consoleExpiry } from '../store/console-sessions.js';
import { csrfTokenOf, isOwnOrigin, SESSION_COOKIE } from './guard.js';
import { consoleSessionOf, type SignedIn } from './session-auth.js';

export interface ConsoleApiDeps {
  identity: IdentityStore;
  publicUrl: string;
  /** The address a sign-in is throttled by. */
  clientAddress: ClientAddress;
  log: Logger;
}

const signIn = z.strictObject({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(1_000),
  workspaceId: z.uuid().optional(),
});
const move = z.strictObject({ workspaceId: z.uuid() });

/** The Session object: who, where, as what, the workspaces they may move to, and the CSRF token of writes. */
export async function sessionBody(identity: IdentityStore, { session, token }: SignedIn) {
  const memberships = await identity.oauth.memberships(session.userId);
  return {
    user: { id: session.userId, email: session.email },
    workspace: { id: session.workspaceId, name: session.workspaceName, plan: session.plan },
    role: session.role,
    workspaces: memberships.map((m) => ({ id: m.workspace.id, name: m.workspace.name, role: m.role })),
    csrfToken: csrfTokenOf(token),
    expiresAt: consoleExpiry(session.createdAt, session.lastSeenAt).toISOString(),
  };
}

export function sessionRoutes(deps: ConsoleApiDeps): Router {
  const router = express.Router();
  const json = express.json({ limit: '16kb' });
  /** The cookie: sent with our own requests only (Strict), never read by a script, over TLS when we are on it. */
  const cookieScope = {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: deps.publicUrl.startsWith('https:'),
  } as const;
  const signedIn = (req: Request) => consoleSessionOf(deps.identity, req, deps.publicUrl);
  const answer = async (res: Response, who: SignedIn) => {
    res.set('Cache-Control', 'no-store').json(await sessionBody(deps.identity, who));
  };

  router.post('/session', requireJsonBody, json, async (req, res) => {
    // Another site's page posting its own account's password would sign this browser in as that account.
    const origin = req.headers.origin;
    if (origin !== undefined && !isOwnOrigin(origin, req.headers.host, deps.publicUrl))
      throw new ApiError('tenant_scope', { surface: 'console' });
    const body = parsePart(signIn, req.body, 'body');
    const attempt = await deps.identity.oauth.attemptSignIn(body.email, body.password, deps.clientAddress(req));
    if (attempt.outcome === 'held') {
      deps.log.debug({ key: attempt.take.key }, 'console: sign-in held');
      throw signInHeld(attempt.take);
    }
    if (attempt.outcome === 'refused') throw new ApiError('unauthorized', { reason: 'invalid' });
    const memberships = await deps.identity.oauth.memberships(attempt.user.id);
    const membership = body.workspaceId ? memberships.find((m) => m.workspaceId === body.workspaceId) : memberships[0];
    if (!membership) throw new ApiError('tenant_scope', { surface: 'console' });
    const token = await deps.identity.consoleSessions.create(attempt.user.id, membership.workspaceId);
    const session = await deps.identity.consoleSessions.find(token);
    // Removed between the two statements: as if never a member.
    if (!session) throw new ApiError('tenant_scope', { surface: 'console' });
    deps.log.info({ userId: session.userId, workspaceId: session.workspaceId }, 'console: signed in');
    res.cookie(SESSION_COOKIE, token, { ...cookieScope, maxAge: CONSOLE_LIFETIME_MS });
    await answer(res, { session, token });
  });

  router.get('/session', async (req, res) => {
    await answer(res, await signedIn(req));
  });

  router.put('/session/workspace', requireJsonBody, json, async (req, res) => {
    const who = await signedIn(req);
    const { workspaceId } = parsePart(move, req.body, 'body');
    if (!(await deps.identity.consoleSessions.moveTo(who.session.id, workspaceId)))
      throw new ApiError('tenant_scope', { surface: 'console' });
    const session = await deps.identity.consoleSessions.find(who.token);
    if (!session) throw new ApiError('unauthorized', { reason: 'invalid' });
    await answer(res, { session, token: who.token });
  });

  router.delete('/session', async (req, res) => {
    const { session } = await signedIn(req);
    await deps.identity.consoleSessions.end(session.id);
    res.clearCookie(SESSION_COOKIE, cookieScope).status(204).end();
  });

  return router;
}
