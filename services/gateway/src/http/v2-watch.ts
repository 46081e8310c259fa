// Firecrawl v2's watchers (the clients' `watcher`, firecrawl-js's `crawlUrlAndWatch`): a
// WebSocket on /v2/crawl/{id} or /v2/batch/scrape/{id} that reports a crawl's (or a batch's)
// progress as their watchers read it (docs/migrating-from-firecrawl.md, "Watchers"):
//
//   {"type":"catchup","data":{status,total,completed,creditsUsed,expiresAt,data:[]}}  first
//   {"type":"document","data":<page>}        each delivered page, oldest first, once
//   {"type":"status","data":{...}}           when the counts change while it runs
//   {"type":"done","data":{status:"completed",...}}   it completed; the socket closes (1000)
//   {"type":"status","data":{status:"cancelled"|"failed",...}}  it ended otherwise; closes
//   {"type":"error","error":"..."}           the watch itself failed; closes (1011), the clients poll on
//
// The v1 clients' `crawlUrlAndWatch` / `crawl_url_and_watch` open the same socket on /v1/crawl/{id}
// and read the same messages, but for how a crawl ended otherwise: they know no `status`, so a
// crawl cancelled or failed is `{"type":"error","error":"The crawl ended cancelled."}` there, their
// watchers' `error` event; and firecrawl-js v1 reads the close's reason as one more message, so it
// is one it ignores (`{"type":"closed"}`).
//
// Nothing new is read: the same crawl row and delivered pages GET /v1/crawl/{id} and its
// results answer, read every second while the socket is open. The upgrade counts as one
// request of the plan's per minute, and a workspace keeps at most MAX_WATCHERS open on one
// gateway (429 concurrency_limit, kind `watchers`). Authentication is the REST API's: `Authorization: Bearer` (firecrawl-py), or the key as the one WebSocket subprotocol
// (firecrawl-js, whose WebSocket cannot set headers), echoed back as the protocol chosen, as
// the WebSocket standard requires. What fails before the upgrade is the Error object.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '@wap/errors';
import type { Logger } from '@wap/log';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Upstreams } from '../clients/upstreams.js';
import type { IdentityStore } from '../oauth/identity.js';
import { type CrawlJson, firecrawlStatus, pagesJson, toCrawlJson } from '../registry/rows/crawl-object.js';
import { admitRequest, type RateLimiter } from '../store/rate-limit.js';
import { principalOf } from './auth.js';
import { refuseUpgrade } from './connect.js';

const WATCHED = /^\/v[12]\/(?:crawl|batch\/scrape)\/([0-9a-f-]{36})\/?$/i;
/** Pages read per look: the crawl service's most. */
const PAGE_SIZE = 100;
/** Watchers one workspace keeps open on one gateway: each reads its crawl every second. */
export const MAX_WATCHERS = 10;

export interface WatchDeps {
  identity: IdentityStore;
  upstreams: Pick<Upstreams, 'crawl'>;
  limiter: RateLimiter;
  log: Logger;
  /** The WWW-Authenticate of a 401, as the REST API's. */
  challenge: (reason: unknown) => string;
  /** How often a running crawl is read again. */
  pollMs?: number;
}

/** The crawl a watcher's upgrade names, or undefined when the path is not a watcher's. */
export const watchedCrawl = (url: string | undefined): string | undefined =>
  WATCHED.exec(new URL(url ?? '/', 'http://gateway').pathname)?.[1];

/** The request's headers with the subprotocol as the bearer credential when it carries none. */
function credentialHeaders(req: IncomingMessage): string[] {
  if (req.headers.authorization !== undefined) return req.rawHeaders;
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  return offered.length === 1 && offered[0]
    ? [...req.rawHeaders, 'Authorization', `Bearer ${offered[0]}`]
    : req.rawHeaders;
}

const snapshot = (c: CrawlJson) => ({
  status: firecrawlStatus(c),
  total: c.discovered - c.skipped,
  completed: c.completed,
  creditsUsed: Math.ceil(c.usage.credits),
  expiresAt: c.expiresAt,
  data: [],
});

/** Serves the watchers' WebSockets; `close` ends every one open (the gateway stopping). */
export function v2Watch(deps: WatchDeps) {
  const pollMs = deps.pollMs ?? 1_000;
  // The one protocol offered is the credential (firecrawl-js); the standard has the server name it back.
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: 4_096,
    handleProtocols: (protocols) => (protocols.size === 1 ? ([...protocols][0] ?? false) : false),
  });

  /** Reports the crawl on `ws` until it ends or the socket closes. */
  async function report(
    ws: WebSocket,
    ref: { workspaceId: string; crawlId: string },
    v1: boolean,
    signal: AbortSignal,
  ) {
    const send = (message: unknown) => ws.send(JSON.stringify(message));
    let cursor = '';
    let last = '';
    let first = true;
    while (!signal.aborted) {
      const out = await deps.upstreams.crawl.crawlResults({ ...ref, cursor, pageSize: PAGE_SIZE }, { signal });
      const c = toCrawlJson((await deps.upstreams.crawl.getCrawl(ref, { signal })).crawl);
      const now = snapshot(c);
      if (first) send({ type: 'catchup', data: { ...now, status: 'scraping' } });
      first = false;
      for (const page of pagesJson(out)) send({ type: 'document', data: page });
      if (out.nextCursor === '') {
        // Every page read and the crawl settled: say how it ended, then close.
        // A status rather than an `error`: firecrawl-js would poll on after an error and end twice.
        if (now.status === 'completed') send({ type: 'done', data: now });
        else send(v1 ? { type: 'error', error: `The crawl ended ${now.status}.` } : { type: 'status', data: now });
        ws.close(1000, v1 ? '{"type":"closed"}' : 'ended');
        return;
      }
      cursor = out.nextCursor;
      const counts = JSON.stringify([now.total, now.completed, now.creditsUsed]);
      if (counts !== last && now.status === 'scraping') send({ type: 'status', data: now });
      last = counts;
      // A full page may have more behind it: read on at once; otherwise wait for new pages.
      if (out.pages.length < PAGE_SIZE) await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Watchers open, by workspace. */
  const open = new Map<string, number>();

  return {
    /** Upgrades a watcher's request once its credential and crawl check out. */
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, crawlId: string): void {
      socket.on('error', () => socket.destroy());
      principalOf(deps.identity, credentialHeaders(req), 'rest')
        .then(async (principal) => {
          const ref = { workspaceId: principal.workspaceId, crawlId };
          await admitRequest(deps.limiter, principal, () => {});
          const active = open.get(ref.workspaceId) ?? 0;
          if (active >= MAX_WATCHERS)
            throw new ApiError('concurrency_limit', { kind: 'watchers', limit: MAX_WATCHERS, active });
          // Another workspace's crawl, or none: not_found before any upgrade.
          await deps.upstreams.crawl.getCrawl(ref, { signal: AbortSignal.timeout(10_000) });
          server.handleUpgrade(req, socket, head, (ws) => {
            const stop = new AbortController();
            open.set(ref.workspaceId, (open.get(ref.workspaceId) ?? 0) + 1);
            stop.signal.addEventListener('abort', () => {
              const left = (open.get(ref.workspaceId) ?? 1) - 1;
              if (left > 0) open.set(ref.workspaceId, left);
              else open.delete(ref.workspaceId);
            });
            ws.on('close', () => stop.abort());
            ws.on('error', () => stop.abort());
            report(ws, ref, new URL(req.url ?? '/', 'http://gateway').pathname.startsWith('/v1/'), stop.signal).catch(
              (err: unknown) => {
                if (stop.signal.aborted) return;
                if (!(err instanceof ApiError)) deps.log.warn({ err, crawlId }, 'crawl watcher failed');
                ws.send(JSON.stringify({ type: 'error', error: err instanceof ApiError ? err.message : 'internal' }));
                ws.close(1011, 'failed');
              },
            );
          });
        })
        .catch((err: unknown) => {
          if (!(err instanceof ApiError)) deps.log.error({ err }, 'crawl watcher upgrade failed');
          const error = err instanceof ApiError ? err : new ApiError('internal');
          const challenge = error.code === 'unauthorized' && {
            'WWW-Authenticate': deps.challenge(error.details?.reason),
          };
          refuseUpgrade(socket, error, challenge || {});
        });
    },
    close(): void {
      for (const ws of server.clients) ws.close(1001, 'going away');
      server.close();
    },
  };
}
