// GET /connect: the CDP surface (docs/connect.md). The gateway authenticates,
// validates the session options, has a browser host open the session (slot,
// hold, browser, single-use ticket), and points the client at that host:
//
// - GET /connect/json/version[/]  200, the version JSON with an absolute
//   webSocketDebuggerUrl carrying the ticket (Playwright's connectOverCDP with
//   an http URL, Puppeteer's browserURL). Never a redirect: Playwright follows
//   HTTP redirects and would re-send Authorization to any host.
// - WebSocket upgrade on GET /connect   302 to the ws(s):// URL with the ticket
//   (Playwright's ws URL form, Puppeteer's browserWSEndpoint).
// - plain GET /connect   302 to the host's own json/version with the ticket.
//
// Failures answer before any upgrade, as the Error object (docs/errors.md).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { create } from '@bufbuild/protobuf';
import { type BrowserHosts, openOnHosts } from '@wap/browser-hosts';
import { knownTimezone, validLocale } from '@wap/config';
import { ApiError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import { browser } from '@wap/proto';
import { Router } from 'express';
import { z } from 'zod';
import type { Upstreams } from '../clients/upstreams.js';
import type { IdentityStore } from '../oauth/identity.js';
import { newOperationId } from '../store/idempotency.js';
import { principalOf } from './auth.js';

const seconds = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The session options a connect URL may carry; the same bounds as browser-host's defaults (docs/connect.md). */

export const connectQuery = z.strictObject({
  idleTimeout: seconds(0, 3_600)
    .optional()
    .describe('Seconds a session waits, after its client disconnects, for a reconnect with `session` (default 0).'),
  maxLifetime: seconds(30, 6 * 3_600)
    .optional()
    .describe('Seconds before the session ends in any case (default 3600).'),
  viewportWidth: seconds(100, 7_680).optional().describe("The window's viewport, CSS pixels (default 1280)."),
  viewportHeight: seconds(100, 7_680).optional().describe('Default 800.'),
  locale: z
    .string()
    .max(35)
    .refine(validLocale, 'a BCP 47 language tag, e.g. de-DE')
    .optional()
    .describe('BCP 47, e.g. de-DE: navigator.languages, Accept-Language and Intl (default en-US).'),
  timezone: z
    .string()
    .max(64)
    .refine(knownTimezone, 'an IANA time zone, e.g. Europe/Berlin')
    .optional()
    .describe("IANA, e.g. Europe/Berlin (default: the host's, UTC in the chart)."),
  stealth: z
    .stringbool()
    .optional()
    .describe(
      "Chrome's face: its user agent, no navigator.webdriver, no automation flag (default true). false: headless Chromium's own.",
    ),
  networkBodies: z
    .stringbool()
    .optional()
    .describe("The session's network log keeps text and JSON response bodies, 64 KB each at most (default false)."),
  session: z.uuid().optional().describe('A live session of this workspace to reconnect to.'),
  profile: z
    .uuid()
    .optional()
    .describe(
      'A profile of this workspace (POST /v1/profiles) to attach: its stored cookies and site data restored, its traffic through its pinned exit, saved again when the session ends. One live session per profile: a second attach is profile_in_use; an unknown id is profile_not_found; an exit that does not answer is exit_unavailable.',
    ),
});

interface ConnectDeps {
  identity: IdentityStore;
  upstreams: Upstreams;
  /** Where sessions go; absent when no browser host is configured. */
  hosts: BrowserHosts | undefined;
  log: Logger;
}

/** Authenticates, validates and opens (or reconnects to) a session; answers the host's URLs. */
async function open(deps: ConnectDeps, req: IncomingMessage): Promise<browser.OpenSessionResponse> {
  const principal = await principalOf(deps.identity, req.rawHeaders, 'rest');
  const url = new URL(req.url ?? '/', 'http://gateway');
  const parsed = connectQuery.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) {
    throw new ApiError('bad_request', {
      issues: parsed.error.issues.map((i) => ({ path: ['query', ...i.path].join('.'), message: i.message })),
    });
  }
  if (!deps.hosts) throw new ApiError('capability_unavailable', { capability: 'connect' });
  const q = parsed.data;
  const request = {
    workspaceId: principal.workspaceId,
    requestId: newOperationId(),
    sessionId: q.session ?? '',
    options: create(browser.SessionOptionsSchema, {
      idleTimeoutSeconds: q.idleTimeout ?? 0,
      maxLifetimeSeconds: q.maxLifetime ?? 0,
      viewportWidth: q.viewportWidth ?? 0,
      viewportHeight: q.viewportHeight ?? 0,
      locale: q.locale ?? '',
      timezone: q.timezone ?? '',
      ...(q.stealth !== undefined && { stealth: q.stealth }),
      networkBodies: q.networkBodies ?? false,
      profileId: q.profile ?? '',
    }),
  };
  return openOnHosts(deps.hosts, request);
}

const versionJson = (opened: browser.OpenSessionResponse) => ({
  Browser: opened.browser,
  'Protocol-Version': opened.protocolVersion,
  'User-Agent': opened.userAgent,
  webSocketDebuggerUrl: opened.webSocketUrl,
});

export function connectRouter(deps: ConnectDeps): Router {
  const router = Router();
  router.get(['/connect/json/version', '/connect/json/version/'], async (req, res, next) => {
    try {
      const opened = await open(deps, req);
      res.setHeader('Cache-Control', 'no-store');
      res.json(versionJson(opened));
    } catch (err) {
      next(err);
    }
  });
  router.get('/connect', async (req, res, next) => {
    try {
      const opened = await open(deps, req);
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, opened.versionUrl);
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** The Error object as a raw HTTP answer on a socket that asked to upgrade. */
export function refuseUpgrade(socket: Duplex, err: ApiError, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(toErrorBody(err));
  const retryAfter = err.details?.retryAfterSeconds;
  const extra = {
    ...headers,
    ...(typeof retryAfter === 'number' ? { 'Retry-After': String(Math.max(1, Math.ceil(retryAfter))) } : {}),
  };
  socket.end(
    `HTTP/1.1 ${err.status} ${err.status === 401 ? 'Unauthorized' : 'Error'}\r\n` +
      Object.entries(extra)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') +
      'Content-Type: application/json\r\nCache-Control: no-store\r\nConnection: close\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * A WebSocket upgrade on /connect: 302 to the host's ws(s):// URL with the
 * ticket, before any upgrade here. Anything else that asks to upgrade is 404.
 */
export function connectUpgrade(deps: ConnectDeps, challenge: (reason: unknown) => string) {
  return (req: IncomingMessage, socket: Duplex): void => {
    socket.on('error', () => socket.destroy());
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path !== '/connect' && path !== '/connect/') {
      refuseUpgrade(socket, new ApiError('not_found'));
      return;
    }
    open(deps, req).then(
      (opened) => {
        socket.end(
          `HTTP/1.1 302 Found\r\nLocation: ${opened.webSocketUrl}\r\nCache-Control: no-store\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
      },
      (err: unknown) => {
        if (!(err instanceof ApiError)) deps.log.error({ err }, 'connect failed');
        const error = err instanceof ApiError ? err : new ApiError('internal');
        refuseUpgrade(
          socket,
          error,
          error.code === 'unauthorized' ? { 'WWW-Authenticate': challenge(error.details?.reason) } : {},
        );
      },
    );
  };
}
