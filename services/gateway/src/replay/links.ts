// Signed, expiring links to a session's replay (docs/sessions.md, "Serving"):
// reachable without the API key, good for one session of one workspace until
// they expire. The signature covers the workspace, the session and the
// expiry, so a link changed in any of them, or signed with another key, is
// refused with replay_access_denied (never a hint of whether the session exists).
//
// A control link (docs/sessions.md, "Human control") is signed with the same
// key for another purpose, and binds the site the person may drive the
// browser on: no replay or live link verifies as a control link, nor the
// other way round.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@wap/errors';
import { controlSite } from '@wap/events';

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

/** What a control link grants: driving the session's browser on `site` until it expires. */
export interface ControlAccess extends ReplayAccess {
  /** The registrable domain the run was on (or its address): navigation elsewhere is refused. */
  site: string;
}

/** The query a control link carries: a replay link's, and the site. */
export interface ControlQuery extends ReplayQuery {
  site?: unknown;
}

/** A control link is good for an hour unless its minter says otherwise, and a day at most. */
export const CONTROL_LINK_TTL_SECONDS = 3_600;
export const CONTROL_LINK_MAX_TTL_SECONDS = 86_400;

export class ReplayLinks {
  constructor(
    private readonly key: string,
    private readonly publicUrl: string,
    /** How long a link is good for (REPLAY_LINK_TTL). */
    private readonly ttlMs: number,
  ) {}

  /** When a link made at `now` expires, in Unix seconds. */
  expires(now = Date.now()): number {
    return Math.floor((now + this.ttlMs) / 1000);
  }

  private signature(access: ReplayAccess): Buffer {
    return createHmac('sha256', this.key)
      .update(`wap-replay|${access.workspaceId}|${access.sessionId}|${access.expires}`)
      .digest();
  }

  /** The query string of a link to `sessionId` of `workspaceId`, good until `expires(now)`. */
  query(workspaceId: string, sessionId: string, now = Date.now()): string {
    const expires = this.expires(now);
    const sig = this.signature({ workspaceId, sessionId, expires }).toString('base64url');
    return new URLSearchParams({ w: workspaceId, exp: String(expires), sig }).toString();
  }

  /** The replay page's URL; `path` names another of the session's replay resources (its bundle). */
  url(workspaceId: string, sessionId: string, path = '', now = Date.now()): string {
    return `${this.publicUrl.replace(/\/$/, '')}/replay/${sessionId}${path}?${this.query(workspaceId, sessionId, now)}`;
  }

  /** The access a link grants, or replay_access_denied: forged, changed, expired or for another session. */
  check(sessionId: string, query: ReplayQuery, now = Date.now()): ReplayAccess {
    const access = this.claimed(sessionId, query, now);
    this.verify(this.signature(access), query.sig, sessionId);
    return access;
  }

  /** What a link's query claims, before its signature is checked; replay_access_denied when malformed or expired. */
  private claimed(sessionId: string, { w, exp }: ReplayQuery, now: number): ReplayAccess {
    if (typeof w !== 'string' || typeof exp !== 'string') throw new ApiError('replay_access_denied', { sessionId });
    const expires = Number(exp);
    if (!/^\d{1,12}$/.test(exp) || expires * 1000 < now) throw new ApiError('replay_access_denied', { sessionId });
    return { workspaceId: w, sessionId, expires };
  }

  private verify(expected: Buffer, sig: unknown, sessionId: string): void {
    const given = typeof sig === 'string' ? Buffer.from(sig, 'base64url') : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new ApiError('replay_access_denied', { sessionId });
  }

  /** Another purpose than the replay's, the fields as a JSON array: no replay signature is ever a control one. */
  private controlSignature(access: ControlAccess): Buffer {
    const fields = [access.workspaceId, access.sessionId, access.expires, access.site];
    return createHmac('sha256', this.key)
      .update(`wap-replay-control\n${JSON.stringify(fields)}`)
      .digest();
  }

  /**
   * A link at which a person sees the session's browser live and drives it
   * (`/replay/{id}/control`), on `site` only (a lower-case host name: the
   * registrable domain the run was on), for `ttlSeconds` (an hour by default,
   * a day at most). Whoever holds it may drive while the control gate allows.
   */
  controlLink(
    link: { workspaceId: string; sessionId: string; site: string; ttlSeconds?: number },
    now = Date.now(),
  ): { url: string; expiresAt: Date } {
    const site = controlSite.parse(link.site);
    const ttl = Math.min(
      Math.max(1, Math.floor(link.ttlSeconds ?? CONTROL_LINK_TTL_SECONDS)),
      CONTROL_LINK_MAX_TTL_SECONDS,
    );
    const expires = Math.floor(now / 1000) + ttl;
    const access = { workspaceId: link.workspaceId, sessionId: link.sessionId, expires, site };
    const sig = this.controlSignature(access).toString('base64url');
    const query = new URLSearchParams({ w: link.workspaceId, exp: String(expires), site, sig });
    return {
      url: `${this.publicUrl.replace(/\/$/, '')}/replay/${link.sessionId}/control?${query}`,
      expiresAt: new Date(expires * 1000),
    };
  }

  /** The access a control link grants, or replay_access_denied as for any replay link. */
  checkControl(sessionId: string, query: ControlQuery, now = Date.now()): ControlAccess {
    const claimed = this.claimed(sessionId, query, now);
    const site = controlSite.safeParse(query.site);
    if (!site.success) throw new ApiError('replay_access_denied', { sessionId });
    const access = { ...claimed, site: site.data };
    this.verify(this.controlSignature(access), query.sig, sessionId);
    return access;
  }
}
