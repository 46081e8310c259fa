import { ApiError } from '@wap/errors';
import type { RequestHandler } from 'express';
import { SESSION_COOKIE } from '../console-server/guard.js';
import { consolePrincipal, consoleSessionOf } from '../console-server/session-auth.js';
import { bearerFrom, cookieFrom, parseCredential, type Surface, secretMatches } from '../domain/credentials.js';
import type { IdentityStore, Principal } from '../oauth/identity.js';

/** The realm named in every challenge: one protection space, the whole API. */
export const REALM = 'api';

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 section 3), by the
 * `details.reason` of `unauthorized`. No credential: the bare challenge, with
 * no error code (section 3.1). A header that is not one `Bearer <credential>`:
 * `invalid_request`. A credential that is not valid (unknown, wrong secret,
 * expired, revoked): `invalid_token`. The status stays 401 for all three, as
 * docs/errors.md has it; clients branch on the body's `code`.
 */
export function bearerChallenge(reason: unknown, resourceMetadata?: string): string {
  // Where an OAuth client finds how to get a token for this resource (RFC 9728 section 5.1).
  const realm = `Bearer realm="${REALM}"${resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : ''}`;
  switch (reason) {
    case 'missing':
      return realm;
    case 'malformed':
    case 'multiple':
      return `${realm}, error="invalid_request", error_description="send exactly one Authorization: Bearer <credential>"`;
    default:
      return `${realm}, error="invalid_token", error_description="the credential is unknown, expired or revoked"`;
  }
}

/** The principal of a request's one bearer credential on `surface`; throws unauthorized or tenant_scope. */
export async function principalOf(identity: IdentityStore, rawHeaders: string[], surface: Surface): Promise<Principal> {
  const bearer = bearerFrom(rawHeaders);
  if ('problem' in bearer) throw new ApiError('unauthorized', { reason: bearer.problem });
  const parsed = parseCredential(bearer.credential);
  if (!parsed) throw new ApiError('unauthorized', { reason: 'malformed' });
  if (parsed.kind === 'oauth_token') {
    // Read on every request: a token revoked, expired or whose user left the workspace stops at once, everywhere.
    const token = await identity.oauth.principal(parsed.token);
    if (!token) throw new ApiError('unauthorized', { reason: 'invalid' });
    // A token is valid on the one surface its resource named (RFC 8707).
    if (token.surface !== surface) throw new ApiError('tenant_scope', { surface });
    return {
      workspaceId: token.workspaceId,
      plan: token.plan,
      credential: { kind: 'oauth_token', tokenId: token.tokenId },
      surfaces: new Set([token.surface]),
    };
  }
  const key = await identity.apiKey(parsed.keyId);
  if (!key || !secretMatches(parsed.secret, key.secretHash)) {
    throw new ApiError('unauthorized', { reason: 'invalid' });
  }
  if (key.revoked) throw new ApiError('unauthorized', { reason: 'revoked' });
  identity.keyUsed(parsed.keyId);
  const principal: Principal = {
    workspaceId: key.workspaceId,
    plan: key.plan,
    credential: { kind: 'api_key', keyId: parsed.keyId },
    surfaces: key.surfaces,
  };
  if (!principal.surfaces.has(surface)) throw new ApiError('tenant_scope', { surface });
  return principal;
}

/** Whether the request carries an Authorization header at all (which then always wins over a cookie). */
const hasAuthorization = (rawHeaders: string[]) => {
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'authorization') return true;
  return false;
};

/**
 * Resolves the request's one bearer credential to a principal, or answers 401.
 * A credential valid elsewhere but not on this surface answers 403 tenant_scope.
 * With `consoleCookie` (the REST surface: never /mcp or /connect), a request
 * without Authorization may instead be signed in by the console's cookie
 * (docs/console.md), a write then also needing the CSRF token and our Origin.
 */
export function authenticate(
  identity: IdentityStore,
  surface: Surface,
  consoleCookie?: { publicUrl: string },
): RequestHandler {
  return async (req, res, next) => {
    try {
      res.locals.principal =
        consoleCookie &&
        !hasAuthorization(req.rawHeaders) &&
        cookieFrom(req.headers.cookie, SESSION_COOKIE) !== undefined
          ? consolePrincipal(await consoleSessionOf(identity, req, consoleCookie.publicUrl))
          : await principalOf(identity, req.rawHeaders, surface);
      next();
    } catch (err) {
      next(err);
    }
  };
}
