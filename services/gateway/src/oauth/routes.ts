// The gateway as the OAuth authorization server of its own API
// (docs/oauth.md), as the MCP authorization specification asks:
// - GET  /.well-known/oauth-protected-resource[/mcp|/v1]   RFC 9728
// - GET  /.well-known/oauth-authorization-server            RFC 8414
// - POST /oauth/register                                    RFC 7591, public clients only
// - GET  /oauth/authorize, POST /oauth/authorize            sign in, pick a workspace, consent
// - POST /oauth/token                                       code (PKCE S256 only) and refresh grants
// - POST /oauth/revoke                                      RFC 7009
// Each token is bound (RFC 8707) to the surface its resource names: `/mcp`
// or `/v1`. The state between the sign-in steps travels in the page as a JWT
// (jose, HS256 under OAUTH_KEY, ten minutes), so no server session is kept;
// the consent page's is bound to the browser by a cookie and good once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { jwtVerify, SignJWT } from 'jose';
import { cookieFrom, type Surface } from '../domain/credentials.js';
import type { ClientAddress } from '../http/client-address.js';
import { textFields } from '../http/input.js';
import { consentPage, errorPage, pagePolicy, signInPage } from './pages.js';
import { CONSENT_TTL_MS, type IssuedTokens, type OAuthStore, type SignInTake } from './store.js';

export const SCOPE = 'api';
const STEP_TTL = '10m';

export interface OAuthDeps {
  store: OAuthStore;
  /** The gateway's public URL: the issuer, and the base of the resources. */
  publicUrl: string;
  key: string;
  /** The address a sign-in is throttled by. */
  clientAddress: ClientAddress;
  log: Logger;
}

/** The resources tokens can be issued for, and the surface each is valid on. */
export function resources(publicUrl: string): Record<string, Surface> {
  const base = publicUrl.replace(/\/+$/, '');
  return { [`${base}/mcp`]: 'mcp', [`${base}/v1`]: 'rest' };
}

/** Where a protected resource's metadata is: what a 401 on it points to (RFC 9728 section 5.1). */
export const resourceMetadataUrl = (publicUrl: string, surface: Surface) =>
  `${publicUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/${surface === 'mcp' ? 'mcp' : 'v1'}`;

/** A redirect URI a public client may register: https, or http on a loopback address (RFC 8252 section 7.3). */
function acceptableRedirect(uri: unknown): boolean {
  // A NUL is no part of a URL a browser is sent to, and no store keeps one.
  if (typeof uri !== 'string' || uri.length > 2_000 || uri.includes('\u0000')) return false;
  try {
    const u = new URL(uri);
    if (u.hash) return false;
    if (u.protocol === 'https:') return true;
    return u.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname);
  } catch {
    return false;
  }
}

/** The authorization request as validated at GET /oauth/authorize, carried through the pages. */
interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string;
  resource: string;
  scope: string;
  /** Set once the user has signed in. */
  userId?: string;
  /** The consent page's nonce: its oauth_consents row, spent by the one answer it gets. */
  nonce?: string;
  /** SHA-256 of the consent cookie's value: the browser the page was shown to. */
  browser?: string;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
/** The consent cookie of one page (several sign-ins may be under way in one browser). */
const consentCookie = (nonce: string) => `wap_consent_${nonce}`;
/** A sign-in the throttle held, as the Error object (the console's, and the sign-in page's to a script). */
export const signInHeld = (take: Extract<SignInTake, { allowed: false }>) =>
  new ApiError('concurrency_limit', {
    kind: 'sign_in',
    limit: take.limit,
    active: take.failures,
    retryAfterSeconds: take.retryAfterSeconds,
  });
const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function oauthRouter(deps: OAuthDeps): Router {
  const router = express.Router();
  const base = deps.publicUrl.replace(/\/+$/, '');
  const secret = new TextEncoder().encode(deps.key);
  const known = resources(base);
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const json = express.json({ limit: '16kb' });
  /** The consent cookie: for the form's post alone, never sent by another site's page, never read by a script. */
  const cookieScope = {
    path: '/oauth/authorize',
    httpOnly: true,
    sameSite: 'strict',
    secure: base.startsWith('https:'),
  } as const;

  const sign = (request: AuthorizeRequest) =>
    new SignJWT({ ...request })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime(STEP_TTL)
      .sign(secret);
  const verify = async (token: unknown): Promise<AuthorizeRequest | undefined> => {
    if (typeof token !== 'string') return undefined;
    try {
      const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'] });
      return payload as unknown as AuthorizeRequest;
    } catch {
      return undefined;
    }
  };
  const html = (res: Response, status: number, body: string, formTarget?: string) => {
    res
      .status(status)
      .type('html')
      .set({
        'Cache-Control': 'no-store',
        'Content-Security-Policy': pagePolicy(formTarget),
        'X-Frame-Options': 'DENY',
        'Referrer-Policy': 'no-referrer',
      });
    res.send(body);
  };
  /** An error sent back to the client at its redirect URI (RFC 6749 section 4.1.2.1). */
  const back = (
    res: Response,
    request: Pick<AuthorizeRequest, 'redirectUri' | 'state'>,
    params: Record<string, string>,
  ) => {
    const u = new URL(request.redirectUri);
    for (const [k, v] of Object.entries({ ...params, ...(request.state && { state: request.state }), iss: base }))
      u.searchParams.set(k, v);
    res.redirect(302, u.href);
  };

  const protectedResource = (resource: string) => ({
    resource,
    authorization_servers: [base],
    scopes_supported: [SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Web access',
  });
  router.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => {
    res.json(protectedResource(`${base}/mcp`));
  });
  router.get('/.well-known/oauth-protected-resource/v1', (_req, res) => {
    res.json(protectedResource(`${base}/v1`));
  });
  router.get('/.well-known/oauth-protected-resource', (_req, res) => {
    res.json(protectedResource(`${base}/mcp`));
  });
  router.get('/.well-known/oauth-authorization-server', (_req, res) => {
    res.json({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [SCOPE],
      authorization_response_iss_parameter_supported: true,
    });
  });

  router.post('/oauth/register', json, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const uris = body.redirect_uris;
    const refuse = (description: string, error = 'invalid_client_metadata') =>
      res.status(400).json({ error, error_description: description });
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10)
      return void refuse('redirect_uris: one to ten URIs', 'invalid_redirect_uri');
    if (!uris.every(acceptableRedirect))
      return void refuse(
        'redirect_uris: https, or http on a loopback address, without a fragment',
        'invalid_redirect_uri',
      );
    const method = body.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') return void refuse('token_endpoint_auth_method: none (a public client with PKCE)');
    const grants = (body.grant_types as unknown[] | undefined) ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
      return void refuse('grant_types: authorization_code and refresh_token');
    const given = typeof body.client_name === 'string' ? body.client_name.replaceAll('\u0000', '').trim() : '';
    const name = given ? given.slice(0, 100) : 'An MCP client';
    const client = await deps.store.registerClient(name, uris as string[]);
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json({
        client_id: client.id,
        client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
        client_name: client.name,
        redirect_uris: client.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
  });

  router.get('/oauth/authorize', async (req, res) => {
    const q = textFields(req.query);
    const client = q.client_id ? await deps.store.client(q.client_id) : null;
    // Without a known client and one of its redirect URIs, nothing is sent anywhere (section 4.1.2.1).
    if (!client) return void html(res, 400, errorPage('This application is not registered here.'));
    if (!q.redirect_uri || !client.redirectUris.includes(q.redirect_uri))
      return void html(
        res,
        400,
        errorPage('This application asked to be sent back to an address it did not register.'),
      );
    const request: AuthorizeRequest = {
      clientId: client.id,
      redirectUri: q.redirect_uri,
      codeChallenge: q.code_challenge ?? '',
      state: q.state ?? '',
      resource: q.resource ?? '',
      scope: q.scope || SCOPE,
    };
    if (q.response_type !== 'code') return void back(res, request, { error: 'unsupported_response_type' });
    if (q.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(request.codeChallenge))
      return void back(res, request, { error: 'invalid_request', error_description: 'PKCE with S256 is required' });
    if (!known[request.resource])
      return void back(res, request, {
        error: 'invalid_target',
        error_description: `resource: ${Object.keys(known).join(' or ')}`,
      });
    if (request.scope.split(' ').some((s) => s !== SCOPE))
      return void back(res, request, { error: 'invalid_scope', error_description: `scope: ${SCOPE}` });
    html(res, 200, signInPage({ client: client.name, request: await sign(request) }));
  });

  /** Whether the page's poster asked for JSON (a script) rather than a page: it gets the Error object. */
  const wantsJson = (req: Request) => req.accepts(['html', 'json']) === 'json';

  router.post('/oauth/authorize', form, async (req, res, next: NextFunction) => {
    const body = textFields(req.body);
    const request = await verify(body.request);
    if (!request) return void html(res, 400, errorPage('This sign-in has expired. Start again from the application.'));
    const client = await deps.store.client(request.clientId);
    if (!client) return void html(res, 400, errorPage('This application is not registered here.'));
    if (body.step === 'sign-in') {
      const email = body.email ?? '';
      const attempt = await deps.store.attemptSignIn(email, body.password ?? '', deps.clientAddress(req));
      if (attempt.outcome === 'held') {
        const { take } = attempt;
        deps.log.debug({ key: take.key, retryAfterSeconds: take.retryAfterSeconds }, 'oauth: sign-in held');
        const wait = take.retryAfterSeconds;
        if (wantsJson(req)) return void next(signInHeld(take));
        res.set('Retry-After', String(wait));
        return void html(
          res,
          429,
          signInPage({ client: client.name, request: body.request as string, email, waitSeconds: wait }),
        );
      }
      if (attempt.outcome === 'refused')
        return void html(
          res,
          401,
          signInPage({ client: client.name, request: body.request as string, failed: true, email }),
        );
      const { user } = attempt;
      const workspaces = (await deps.store.memberships(user.id)).map((m) => m.workspace);
      if (workspaces.length === 0)
        return void html(res, 403, errorPage('Your account is not a member of any workspace.'));
      // The consent page answers once (its nonce, spent in Postgres), from this browser (its cookie).
      const nonce = randomBytes(16).toString('base64url');
      const cookie = randomBytes(32).toString('base64url');
      await deps.store.createConsent(nonce);
      const signed = await sign({ ...request, userId: user.id, nonce, browser: sha256(cookie) });
      res.cookie(consentCookie(nonce), cookie, { ...cookieScope, maxAge: CONSENT_TTL_MS });
      const target = new URL(request.redirectUri).origin;
      return void html(
        res,
        200,
        consentPage({
          client: client.name,
          surface: known[request.resource] === 'mcp' ? 'the MCP server (AI agents)' : 'the REST API (the CLI)',
          redirect: target,
          workspaces,
          request: signed,
        }),
        target,
      );
    }
    if (body.step === 'consent' && request.userId && request.nonce && request.browser) {
      const refuse = (page: string, issue: string) =>
        wantsJson(req)
          ? next(new ApiError('bad_request', { issues: [{ path: 'request', message: issue }] }))
          : html(res, 400, errorPage(page));
      const cookie = cookieFrom(req.headers.cookie, consentCookie(request.nonce));
      // Posted by another browser, or by another site's page (SameSite keeps the cookie from it).
      if (!cookie || !sameText(sha256(cookie), request.browser))
        return void refuse(
          'This page was not opened in this browser. Start again from the application.',
          'was not shown to this browser',
        );
      if (!(await deps.store.spendConsent(request.nonce)))
        return void refuse('This page was answered already. Start again from the application.', 'was answered already');
      res.clearCookie(consentCookie(request.nonce), cookieScope);
      if (body.decision !== 'allow') return void back(res, request, { error: 'access_denied' });
      const memberships = await deps.store.memberships(request.userId);
      const workspace = memberships.find((m) => m.workspaceId === body.workspace);
      if (!workspace) return void html(res, 403, errorPage('You are not a member of that workspace.'));
      const code = await deps.store.createCode({
        clientId: request.clientId,
        userId: request.userId,
        workspaceId: workspace.workspaceId,
        surface: known[request.resource] as Surface,
        scope: request.scope,
        resource: request.resource,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
      });
      deps.log.info({ clientId: request.clientId, workspaceId: workspace.workspaceId }, 'oauth: code issued');
      return void back(res, request, { code });
    }
    html(res, 400, errorPage('This sign-in could not be understood. Start again from the application.'));
  });

  const tokenError = (res: Response, status: number, error: string, description?: string) =>
    res
      .status(status)
      .set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' })
      .json({ error, ...(description && { error_description: description }) });
  const tokens = (res: Response, issued: IssuedTokens) =>
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json({
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresIn,
      refresh_token: issued.refreshToken,
      scope: issued.scope,
    });
  const params = (req: Request) => textFields(req.body);

  router.post('/oauth/token', form, json, async (req, res) => {
    const p = params(req);
    const client = p.client_id ? await deps.store.client(p.client_id) : null;
    if (!client) return void tokenError(res, 401, 'invalid_client', 'unknown client_id');
    if (p.grant_type === 'authorization_code') {
      if (!p.code || !p.code_verifier || !p.redirect_uri)
        return void tokenError(res, 400, 'invalid_request', 'code, code_verifier and redirect_uri are required');
      if (!/^[A-Za-z0-9._~-]{43,128}$/.test(p.code_verifier))
        return void tokenError(res, 400, 'invalid_request', 'code_verifier: 43 to 128 unreserved characters');
      const grant = await deps.store.redeemCode(p.code);
      if (!grant) return void tokenError(res, 400, 'invalid_grant', 'the code is unknown, expired or used');
      const challenge = sha256(p.code_verifier);
      if (grant.clientId !== client.id)
        return void tokenError(res, 400, 'invalid_grant', 'the code was issued to another client');
      if (grant.redirectUri !== p.redirect_uri)
        return void tokenError(res, 400, 'invalid_grant', 'redirect_uri differs');
      if (grant.codeChallenge !== challenge)
        return void tokenError(res, 400, 'invalid_grant', 'the PKCE verifier does not match');
      if (p.resource && p.resource !== grant.resource)
        return void tokenError(res, 400, 'invalid_target', 'the code was issued for another resource');
      const { clientId, userId, workspaceId, surface, scope, resource, familyId } = grant;
      return void tokens(
        res,
        await deps.store.issue({ clientId, userId, workspaceId, surface, scope, resource }, familyId),
      );
    }
    if (p.grant_type === 'refresh_token') {
      if (!p.refresh_token) return void tokenError(res, 400, 'invalid_request', 'refresh_token is required');
      const issued = await deps.store.refresh(p.refresh_token, client.id);
      if (!issued)
        return void tokenError(res, 400, 'invalid_grant', 'the refresh token is unknown, expired, revoked or used');
      return void tokens(res, issued);
    }
    tokenError(res, 400, 'unsupported_grant_type', 'authorization_code or refresh_token');
  });

  router.post('/oauth/revoke', form, json, async (req, res) => {
    const p = params(req);
    if (p.token) await deps.store.revoke(p.token);
    res.set('Cache-Control', 'no-store').status(200).end();
  });

  return router;
}
