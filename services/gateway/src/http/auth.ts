import { ApiError } from '@wap/errors';
import type { RequestHandler } from 'express';
import { bearerFrom, parseCredential, type Surface, secretMatches } from '../identity/credentials.js';
import type { IdentityStore, Principal } from '../identity/store.js';

/**
 * Resolves the request's one bearer credential to a principal, or answers 401.
 * A credential valid elsewhere but not on this surface answers 403 tenant_scope.
 */
export function authenticate(identity: IdentityStore, surface: Surface): RequestHandler {
  return async (req, res, next) => {
    try {
      const bearer = bearerFrom(req.rawHeaders);
      if ('problem' in bearer) throw new ApiError('unauthorized', { reason: bearer.problem });
      const parsed = parseCredential(bearer.credential);
      if (!parsed) throw new ApiError('unauthorized', { reason: 'malformed' });
      // OAuth tokens arrive with the CLI and MCP sign-in; until then none is valid.
      if (parsed.kind === 'oauth_token') throw new ApiError('unauthorized', { reason: 'invalid' });
      const key = await identity.apiKey(parsed.keyId);
      if (!key || !secretMatches(parsed.secret, key.secretHash)) {
        throw new ApiError('unauthorized', { reason: 'invalid' });
      }
      if (key.revoked) throw new ApiError('unauthorized', { reason: 'revoked' });
      const principal: Principal = {
        workspaceId: key.workspaceId,
        plan: key.plan,
        credential: { kind: 'api_key', keyId: parsed.keyId },
        surfaces: key.surfaces,
      };
      if (!principal.surfaces.has(surface)) throw new ApiError('tenant_scope', { surface });
      res.locals.principal = principal;
      next();
    } catch (err) {
      next(err);
    }
  };
}
