// Human control of a running session (docs/sessions.md, "Human control"),
// reachable through a signed control link (replay/links.ts, `controlLink`):
//
// - GET  /replay/{id}/control?w&exp&site&sig          the control page (HTML)
// - GET  /replay/{id}/control/live?w&exp&site&sig     its screen: the live view's Server-Sent Events
// - POST /replay/{id}/control/input?w&exp&site&sig    a batch of the person's input (JSON)
//
// Every batch is checked: the link (403 replay_access_denied, as any replay
// link), the control gate (403 replay_control_denied), the batch itself
// (400), and each navigation's site (403 replay_control_cross_site, never
// forwarded); then it goes to the session's host, which checks it again.
import { ApiError } from '@wap/errors';
import { controlBatch, MAX_INSERT_CHARS, refusedHost, sameSite } from '@wap/events';
import express, { type Request, Router } from 'express';
import type { Upstreams } from '../clients/upstreams.js';
import { parsePart } from '../invoke/input.js';
import type { HumanControl } from '../replay/control.js';
import { controlHtml, controlPagePolicy } from '../replay/control-page.js';
import type { ControlAccess, ReplayLinks } from '../replay/links.js';
import type { LiveFrames } from '../replay/live.js';
import { JSON_BODY_TYPES, requireJsonBody } from './input.js';
import { linkQuery, sendLinkedPage, serveLive } from './replay.js';

/** A batch's body, at most: 64 actions, a paste among them. */
const MAX_BATCH_BYTES = 64 * 1024;

export function controlRouter(deps: {
  links: ReplayLinks;
  control: HumanControl;
  upstreams: Upstreams;
  live: LiveFrames;
}): Router {
  const router = Router();
  const access = (req: Request): ControlAccess =>
    deps.links.checkControl(String(req.params.id).toLowerCase(), req.query);
  const target = (a: ControlAccess) => ({ workspaceId: a.workspaceId, sessionId: a.sessionId, site: a.site });

  router.get('/replay/:id/control', (req, res, next) => {
    try {
      const a = access(req);
      const query = linkQuery(req);
      sendLinkedPage(res, (nonce) => ({
        policy: controlPagePolicy(nonce),
        html: controlHtml({
          sessionId: a.sessionId,
          site: a.site,
          liveUrl: `/replay/${a.sessionId}/control/live${query}`,
          inputUrl: `/replay/${a.sessionId}/control/input${query}`,
          nonce,
          maxPaste: MAX_INSERT_CHARS,
        }),
      }));
    } catch (err) {
      next(err);
    }
  });

  // The live view's stream, which also ends (`released`) once the gate no longer lets the person drive.
  router.get('/replay/:id/control/live', async (req, res, next) => {
    try {
      const a = access(req);
      await serveLive(deps, a, req, res, async () =>
        (await deps.control.gate.allowed(a.workspaceId, a.sessionId)) ? 'live' : 'released',
      );
    } catch (err) {
      next(err);
    }
  });

  router.post(
    '/replay/:id/control/input',
    // The link before anything of the body is read.
    (req, res, next) => {
      try {
        res.locals.control = access(req);
        next();
      } catch (err) {
        next(err);
      }
    },
    requireJsonBody,
    express.json({ limit: MAX_BATCH_BYTES, type: JSON_BODY_TYPES }),
    async (req, res, next) => {
      try {
        const a = res.locals.control as ControlAccess;
        await deps.control.authorize(target(a));
        const batch = parsePart(controlBatch, req.body, 'body');
        for (const action of batch.actions)
          if (action.type === 'navigate' && !sameSite(action.url, a.site))
            throw new ApiError('replay_control_cross_site', { host: refusedHost(action.url) });
        const done = await deps.control.send(target(a), batch);
        res.set('Cache-Control', 'no-store').json({
          ...(done.url !== undefined && { url: done.url }),
          ...(done.blocked && { blocked: done.blocked }),
        });
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
