// /console/api/members (docs/console.md): any member lists them; owners add
// people who have an account, set roles and remove members, never the last
// owner. A removed member's tokens and console sessions stop at once.
import { ApiError } from '@wap/errors';
import express, { type Router } from 'express';
import { z } from 'zod';
import { requireJsonBody } from '../http/input.js';
import { parsePart } from '../invoke/input.js';
import { consoleSessionOf } from './session-auth.js';
import type { ConsoleApiDeps } from './session-routes.js';

const add = z.strictObject({
  email: z.string().trim().min(1).max(320),
  role: z.enum(['owner', 'member']),
});

const lastOwner = (path: string) =>
  new ApiError('bad_request', {
    issues: [{ path, message: "is the workspace's last owner: make another member an owner first" }],
  });

export function membersRoutes(deps: ConsoleApiDeps): Router {
  const router = express.Router();
  const json = express.json({ limit: '16kb' });
  const signedIn = (req: express.Request) => consoleSessionOf(deps.identity, req, deps.publicUrl);
  /** The session of an owner of its workspace; a member who is not one gets 403. */
  const owner = async (req: express.Request) => {
    const who = await signedIn(req);
    if (who.session.role !== 'owner') throw new ApiError('tenant_scope', { role: 'owner' });
    return who.session;
  };
  const memberOf = (m: { userId: string; email: string; role: string; addedAt: Date }) => ({
    ...m,
    addedAt: m.addedAt.toISOString(),
  });

  router.get('/members', async (req, res) => {
    const { session } = await signedIn(req);
    const members = await deps.identity.listMembers(session.workspaceId);
    res.set('Cache-Control', 'no-store').json({ members: members.map(memberOf) });
  });

  router.post('/members', requireJsonBody, json, async (req, res) => {
    const session = await owner(req);
    const body = parsePart(add, req.body, 'body');
    const user = await deps.identity.oauth.userByEmail(body.email);
    if (!user) throw new ApiError('not_found', { resource: 'user' });
    const members = await deps.identity.listMembers(session.workspaceId);
    if (members.some((m) => m.userId === user.id)) {
      const changed = await deps.identity.changeMember(session.workspaceId, user.id, { role: body.role });
      if (!changed.done && changed.reason === 'last_owner') throw lastOwner('body.role');
    } else await deps.identity.addMember(session.workspaceId, user.email, body.role);
    const member = (await deps.identity.listMembers(session.workspaceId)).find((m) => m.userId === user.id);
    // Removed again in between: gone, as a member would be.
    if (!member) throw new ApiError('not_found', { resource: 'member', id: user.id });
    deps.log.info({ workspaceId: session.workspaceId, member: user.id, role: member.role }, 'console: member set');
    res.status(201).json({ member: memberOf(member) });
  });

  router.delete('/members/:userId', async (req, res) => {
    const session = await owner(req);
    const userId = String(req.params.userId);
    const notMember = new ApiError('not_found', { resource: 'member', id: userId });
    if (!z.uuid().safeParse(userId).success) throw notMember;
    const changed = await deps.identity.changeMember(session.workspaceId, userId, 'remove');
    if (!changed.done) throw changed.reason === 'last_owner' ? lastOwner('userId') : notMember;
    deps.log.info({ workspaceId: session.workspaceId, member: userId }, 'console: member removed');
    res.json({ removed: true });
  });

  return router;
}
