import { ApiError } from '@wap/errors';
import { checkUrl } from '@wap/netguard';
import type { browser as proto } from '@wap/proto';
import type { CallContext } from '@wap/rpc';
import { headerIssues, render } from '../sessions/render.js';
import type { BrowserHostDeps } from './deps.js';

/**
 * browser.Render: one page in an isolated context of a pooled Chromium, through the egress proxy;
 * recorded as a session of kind `scrape` when the host records and the request names its workspace and request.
 */
export function renderPage({ pool, egress, allow, sessions, captchaSolver }: BrowserHostDeps) {
  return async (req: proto.RenderRequest, ctx: CallContext) => {
    checkUrl(req.url, { allow });
    // Refused before a browser is taken: Chromium would throw on them mid-render.
    const issues = headerIssues(req.headers);
    if (issues.length > 0) throw new ApiError('bad_request', { issues });
    if (req.actions.length > 50)
      throw new ApiError('bad_request', { issues: [{ path: 'actions', message: 'at most 50 actions' }] });
    return pool.with(
      (browser, { recorder, linger, faces }) =>
        render(browser, egress, req, ctx.signal, {
          session: sessions.recordRender(req.workspaceId, req.requestId, recorder),
          linger,
          faces,
          captchaSolver,
        }),
      ctx.signal,
    );
  };
}
