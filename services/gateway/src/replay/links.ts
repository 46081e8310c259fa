// Signed, expiring links to a session's replay (docs/sessions.md, "Serving"):
// reachable without the API key, good for one session of one workspace until
// they expire. The signature covers the workspace, the session and the
// expiry, so a link changed in any of them, or signed with another key, is
// refused with replay_access_denied (never a hint of whether the session exists).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@wap/errors';

export interface ReplayAccess {
  workspaceId: string;
  sessionId: string;
  /** Unix seconds. */
  expires: number;
}

/** The query a replay link carries: the workspace, the expiry and the signature. */
export interface ReplayQuery {
  w?: unknown;
  exp?: unknown;
  sig?: unknown;
}

export class ReplayLinks {
  constructor(
    private readonly key: string,
    private readonly publicUrl: string,
    /** How long a link is good for, in seconds. */
    readonly ttlSeconds: number,
  ) {}

  private signature(access: ReplayAccess): Buffer {
    return createHmac('sha256', this.key)
      .update(`wap-replay|${access.workspaceId}|${access.sessionId}|${access.expires}`)
      .digest();
  }

  /** The query string of a link to `sessionId` of `workspaceId`, good for ttlSeconds from `now`. */
  query(workspaceId: string, sessionId: string, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + this.ttlSeconds;
    const sig = this.signature({ workspaceId, sessionId, expires }).toString('base64url');
    return new URLSearchParams({ w: workspaceId, exp: String(expires), sig }).toString();
  }

  /** The replay page's URL; `path` names another of the session's replay resources (its bundle). */
  url(workspaceId: string, sessionId: string, path = '', now = Date.now()): string {
    return `${this.publicUrl.replace(/\/$/, '')}/replay/${sessionId}${path}?${this.query(workspaceId, sessionId, now)}`;
  }

  /** The access a link grants, or replay_access_denied: forged, changed, expired or for another session. */
  check(sessionId: string, query: ReplayQuery, now = Date.now()): ReplayAccess {
    const denied = () => new ApiError('replay_access_denied', { sessionId });
    const { w, exp, sig } = query;
    if (typeof w !== 'string' || typeof exp !== 'string' || typeof sig !== 'string') throw denied();
    const expires = Number(exp);
    if (!/^\d{1,12}$/.test(exp) || expires * 1000 < now) throw denied();
    const access = { workspaceId: w, sessionId, expires };
    const given = Buffer.from(sig, 'base64url');
    const expected = this.signature(access);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw denied();
    return access;
  }
}
