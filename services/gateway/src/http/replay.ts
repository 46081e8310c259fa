// The replay surface (docs/sessions.md, "Serving"), reachable without the API
// key through a signed, expiring link (replay/links.ts):
//
// - GET /replay/{id}?w&exp&sig            the replay page (HTML)
// - GET /replay/{id}/events?w&exp&sig     its events, per tab (JSON)
// - GET /replay/{id}/bundle?w&exp&sig     the exported bundle: one HTML file that plays offline
// - GET /replay/{id}/live?w&exp&sig       a running session's screencast (Server-Sent Events)
// - GET /replay/assets/player.js|css      rrweb-player, from our own files
//
// The control page, a link of its own, is control.ts beside this file.
//
// A link that is forged, changed, expired or for another session answers
// 403 replay_access_denied; a session without a recording, 404.
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { ledger } from '@wap/proto';
import { type Request, type Response, Router } from 'express';
import type { Upstreams } from '../clients/upstreams.js';
import type { ReplayAccess, ReplayLinks } from '../replay/links.js';
import type { LiveFrames } from '../replay/live.js';
import { playerAssets, replayHtml, replayPagePolicy } from '../replay/page.js';
import { readReplay } from '../replay/recording.js';

/** How often the live view looks at whether its session still runs. */
export const LIVE_STATUS_MS = 2_000;
/** How often an open live view tells the session's host it still watches (the host holds on for 30 s). */
const LIVE_WATCH_MS = 10_000;

/** The signature a link carries, as a query, for the URLs the page it opens asks. */
export const linkQuery = (req: Request): string => new URL(req.originalUrl, 'http://gateway').search;

/**
 * A page a signed link opens: scripts allowed by a nonce of its own, kept out of caches and
 * referrers, and framed by the console alone (X-Frame-Options for browsers that predate the
 * policy's frame-ancestors).
 */
export function sendLinkedPage(res: Response, page: (nonce: string) => { policy: string; html: string }): void {
  const { policy, html } = page(randomBytes(16).toString('base64'));
  res
    .type('html')
    .set({
      'Cache-Control': 'private, no-store',
      'Content-Security-Policy': policy,
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'SAMEORIGIN',
    })
    .send(html);
}

export function replayRouter(deps: {
  links: ReplayLinks;
  upstreams: Upstreams;
  live?: LiveFrames | undefined;
  log: Logger;
}): Router {
  const router = Router();
  router.get('/replay/assets/player.js', (_req, res) => {
    res.type('application/javascript').set('Cache-Control', 'public, max-age=86400').send(playerAssets().script);
  });
  router.get('/replay/assets/player.css', (_req, res) => {
    res.type('text/css').set('Cache-Control', 'public, max-age=86400').send(playerAssets().style);
  });
  router.get('/replay/:id', (req, res, next) => {
    try {
      const access = deps.links.check(String(req.params.id).toLowerCase(), req.query);
      const query = linkQuery(req);
      sendLinkedPage(res, (nonce) => ({
        policy: replayPagePolicy(nonce),
        html: replayHtml({
          sessionId: access.sessionId,
          mode: {
            kind: 'linked',
            eventsUrl: `/replay/${access.sessionId}/events${query}`,
            ...(deps.live && { liveUrl: `/replay/${access.sessionId}/live${query}` }),
            assetsBase: '/replay/assets',
            nonce,
          },
        }),
      }));
    } catch (err) {
      next(err);
    }
  });
  /** The link's access and the recording it opens. */
  const recorded = async (req: Request) => {
    const access = deps.links.check(String(req.params.id).toLowerCase(), req.query);
    return { access, data: await readReplay(deps.upstreams, access.workspaceId, access.sessionId) };
  };
  router.get('/replay/:id/events', async (req, res, next) => {
    try {
      const { data } = await recorded(req);
      res.set('Cache-Control', 'private, no-store').json(data);
    } catch (err) {
      next(err);
    }
  });
  // The live view: `status` first (`live` or `ended`), then a `frame` per screencast frame (the latest of each
  // tab at once), and `status` `ended` when the session ends, after which the stream closes.
  router.get('/replay/:id/live', async (req, res, next) => {
    try {
      if (!deps.live) throw new ApiError('not_found');
      const access = deps.links.check(String(req.params.id).toLowerCase(), req.query);
      await serveLive({ upstreams: deps.upstreams, live: deps.live }, access, req, res);
    } catch (err) {
      next(err);
    }
  });
  router.get('/replay/:id/bundle', async (req, res, next) => {
    try {
      const { access, data } = await recorded(req);
      const bundle = Buffer.from(replayHtml({ sessionId: access.sessionId, mode: { kind: 'inline', data } }));
      // The bytes of an export are recorded against the workspace, priced at zero (docs/billing.md).
      if (deps.upstreams.configured('billing-ledger'))
        await deps.upstreams.ledger
          .charge({
            workspaceId: access.workspaceId,
            idempotencyKey: `export:${randomUUID()}`,
            capability: 'sessions.export',
            reference: access.sessionId,
            meters: [{ meter: ledger.Meter.BYTES_EGRESS, quantity: BigInt(bundle.length) }],
          })
          .catch((err) => deps.log.warn({ err, sessionId: access.sessionId }, 'export bytes not recorded'));
      res
        .type('html')
        .set({
          'Cache-Control': 'private, no-store',
          'Content-Disposition': `attachment; filename="session-${access.sessionId}.html"`,
        })
        .send(bundle);
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/**
 * A running session's screencast as Server-Sent Events (the live view, and the control page's screen):
 * `status` first, a `frame` per frame, and a last `status` when the session ends, or when `still` (looked at
 * with the session's status) answers another status than `live`.
 */
export async function serveLive(
  deps: { upstreams: Upstreams; live: LiveFrames },
  access: ReplayAccess,
  req: Request,
  res: Response,
  still?: () => Promise<'live' | 'released'>,
): Promise<void> {
  const status = async () => {
    const out = await deps.upstreams.sessions.getSession({
      workspaceId: access.workspaceId,
      sessionId: access.sessionId,
    });
    if (out.session?.status !== 'live') return 'ended';
    return (await still?.()) ?? 'live';
  };
  const first = await status();
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'private, no-store',
    'X-Accel-Buffering': 'no',
  });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('status', { status: first });
  if (first !== 'live') return void res.end();
  const stop = deps.live.watch(access.sessionId, (frame) => send('frame', frame));
  for (const frame of await deps.live.latest(access.sessionId)) send('frame', frame);
  // The host keeps the pages' screencast running for 30 s after each ask; say so well within it.
  const watching = setInterval(() => deps.live.stillWatching(access.sessionId), LIVE_WATCH_MS);
  const timer = setInterval(() => {
    status()
      .then((now) => {
        if (now === 'live') return;
        send('status', { status: now });
        done();
      })
      .catch(() => undefined);
  }, LIVE_STATUS_MS);
  const done = () => {
    clearInterval(timer);
    clearInterval(watching);
    stop();
    res.end();
  };
  req.on('close', done);
}
