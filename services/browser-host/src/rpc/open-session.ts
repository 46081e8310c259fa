import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ApiError } from '@wap/errors';
import { browser as proto } from '@wap/proto';
import type { BrowserHostDeps } from './deps.js';

/**
 * browser.OpenSession: a new session, or with `session_id` a fresh ticket for
 * a live one of the same workspace (a reconnect). Answers the ticketed URL.
 */
export function openSession({ sessions, cdp }: BrowserHostDeps) {
  return async (req: proto.OpenSessionRequest): Promise<proto.OpenSessionResponse> => {
    if (!req.workspaceId || !req.requestId)
      throw new ApiError('bad_request', { issues: [{ path: 'requestId', message: 'required' }] });
    const opened = req.sessionId
      ? sessions.reconnect(req.workspaceId, req.sessionId)
      : await sessions.open(req.workspaceId, req.requestId, req.options, req.task);
    const { version } = opened.session.browser;
    return create(proto.OpenSessionResponseSchema, {
      sessionId: opened.session.id,
      webSocketUrl: cdp.socketUrl(opened.session.id, opened.ticket),
      versionUrl: cdp.versionUrl(opened.session.id, opened.ticket),
      ticketExpiresAt: timestampFromDate(opened.expiresAt),
      browser: version.browser,
      protocolVersion: version.protocol,
      userAgent: version.userAgent,
    });
  };
}
