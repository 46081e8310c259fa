// /console/api/keys (docs/console.md): any member lists, makes and revokes
// the workspace's API keys. A key's id is its public `keyId`, the part of the
// credential before the dot.
import { ApiError } from '@wap/errors';
import express, { type Router } from 'express';
import { z } from 'zod';
import { SURFACES } from '../domain/credentials.js';
import { requireJsonBody } from '../http/input.js';
import { parsePart } from '../invoke/input.js';
import { consoleSessionOf } from './session-auth.js';
import type { ConsoleApiDeps } from './session-routes.js';

const create = z.strictObject({
  name: z.string().trim().min(1).max(100),
  surfaces: z
    .array(z.enum(SURFACES))
    .min(1)
    .max(SURFACES.length)
    .refine((s) => new Set(s).size === s.length, 'names a surface twice'),
});

interface KeyRow {
  keyId: string;
  name: string;
  surfaces: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const keyOf = (k: KeyRow) => ({
  id: k.keyId,
  name: k.name,
  surfaces: k.surfaces,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

export function keysRoutes(deps: ConsoleApiDeps): Router {
  const router = express.Router();
  const json = express.json({ limit: '16kb' });
  const signedIn = (req: express.Request) => consoleSessionOf(deps.identity, req, deps.publicUrl);

  router.get('/keys', async (req, res) => {
    const { session } = await signedIn(req);
    const keys = await deps.identity.listApiKeys(session.workspaceId);
    res.set('Cache-Control', 'no-store').json({ keys: keys.reverse().map(keyOf) });
  });

  router.post('/keys', requireJsonBody, json, async (req, res) => {
    const { session } = await signedIn(req);
    const body = parsePart(create, req.body, 'body');
    const made = await deps.identity.createApiKey(session.workspaceId, body.name, body.surfaces);
    deps.log.info({ workspaceId: session.workspaceId, keyId: made.keyId, userId: session.userId }, 'console: key made');
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json({ key: keyOf({ ...made, lastUsedAt: null, revokedAt: null }), credential: made.credential });
  });

  router.delete('/keys/:id', async (req, res) => {
    const { session } = await signedIn(req);
    const id = String(req.params.id);
    // Another workspace's key answers as an unknown one: ids cannot be probed.
    if (!(await deps.identity.findApiKey(session.workspaceId, id)))
      throw new ApiError('not_found', { resource: 'key', id });
    // Returns once every gateway replica dropped it: the next request with it is refused wherever it lands.
    const { gateways, acknowledged } = await deps.identity.revokeApiKey(id);
    deps.log.info({ workspaceId: session.workspaceId, keyId: id, userId: session.userId }, 'console: key revoked');
    res.json({ revoked: true, gateways, acknowledged });
  });

  return router;
}
