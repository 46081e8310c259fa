// A session's network log (docs/sessions.md, "Network"): the host's own CDP
// connection to the session's Chromium attaches to every page the client
// opens, in every browser context, and folds each request's Network.* events
// into one row: method, URL, type, status, timing, remote address, sizes,
// and (when the session asked for them) small text bodies. Rows go to the
// session's recording as `network` chunks, in the same signed chain as the
// rrweb events. The client's own CDP traffic is untouched: these are the
// host's sessions, emulating nothing; a new page waits for them only as long
// as it takes to enable the Network domain.
import type { Browser, CDPSession } from 'puppeteer-core';

/** One request, as the network log serves it. */
export interface NetworkRow {
  /** The page it came from: 1, 2... in the order the host first saw each page. */
  tab: number;
  url: string;
  method: string;
  /** Chromium's resource type: Document, Stylesheet, Script, Image, Fetch, XHR... */
  type: string;
  /** 0 when no response came (failed, blocked, cancelled). */
  status: number;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
  /** ip:port of the server as the session's egress proxy reached it (Chromium itself only sees the proxy). */
  remoteAddress: string;
  requestBytes: number;
  /** Bytes on the wire (encoded), headers included. */
  responseBytes: number;
  mimeType: string;
  /** Why it failed; empty when it did not. */
  error: string;
  /** A text body up to BODY_CAP bytes, when the session asked for bodies. */
  body?: string;
  bodyTruncated?: boolean;
}

/** Bodies kept per response, at most; longer ones are cut and marked. */
export const BODY_CAP = 64 * 1024;
const TEXTUAL = /^(text\/|application\/(json|[\w.+-]*\+json|xml|[\w.+-]*\+xml|javascript|x-www-form-urlencoded))/;

interface Pending {
  row: NetworkRow;
  /** Chromium's monotonic seconds at the start, for the duration. */
  t0: number;
}

type Params = Record<string, unknown> & {
  requestId: string;
  timestamp: number;
};

export class NetworkCapture {
  private readonly tabs = new Map<string, number>();
  private stopped = false;

  constructor(
    private readonly browser: Browser,
    private readonly emit: (row: NetworkRow) => void,
    private readonly options: {
      bodies: boolean;
      /** The address the egress proxy reached for a host name. */
      addressOf: (hostname: string) => string | undefined;
    },
  ) {}

  /** ip:port of a URL's server, as the egress proxy reached it; empty when it did not (cache, data:, blocked). */
  private remote(url: string): string {
    try {
      const u = new URL(url);
      const ip = this.options.addressOf(u.hostname);
      if (!ip) return '';
      const port = u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
      return `${ip.includes(':') ? `[${ip}]` : ip}${port ? `:${port}` : ''}`;
    } catch {
      return '';
    }
  }

  /**
   * Attaches to every page there is and every one that comes: auto-attach on
   * a browser session of its own, waiting for the debugger, so a new page's
   * first request (its navigation) is seen. Chromium runs a waiting page once
   * every client that asked it to wait has let it go; this one lets go right
   * after enabling the Network domain, in the same breath.
   */
  async start(): Promise<void> {
    const root = await this.browser.target().createCDPSession();
    this.root = root;
    root.on('Target.attachedToTarget', (p: unknown) => {
      const e = p as { sessionId: string; targetInfo: { type: string; targetId: string }; waitingForDebugger: boolean };
      const session = root.connection()?.session(e.sessionId);
      if (!session) return;
      if (e.targetInfo.type === 'page' && !this.stopped) this.watch(session, e.targetInfo.targetId);
      if (e.waitingForDebugger) session.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    });
    await root.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'page', exclude: false }],
    });
  }

  private root: CDPSession | undefined;

  /** Folds the requests of one page; Network.enable goes out before the page is let go. */
  private watch(cdp: CDPSession, targetId: string): void {
    if (!this.tabs.has(targetId)) this.tabs.set(targetId, this.tabs.size + 1);
    const tab = this.tabs.get(targetId) as number;
    const pending = new Map<string, Pending>();
    const finish = (id: string, end: number, more: Partial<NetworkRow>) => {
      const open = pending.get(id);
      if (!open) return;
      pending.delete(id);
      const row = { ...open.row, ...more, durationMs: Math.max(0, Math.round((end - open.t0) * 1000)) };
      if (!row.url.startsWith('chrome-extension:')) this.emit(row);
    };
    cdp.on('Network.requestWillBeSent', (p: unknown) => {
      const e = p as Params & {
        request: { url: string; method: string; postData?: string; headers: Record<string, string> };
        wallTime: number;
        type?: string;
        redirectResponse?: { status: number; encodedDataLength?: number };
      };
      // A redirect ends the row of the request it answers; the next hop is a new row under the same id.
      if (e.redirectResponse)
        finish(e.requestId, e.timestamp, {
          status: e.redirectResponse.status,
          remoteAddress: this.remote(pending.get(e.requestId)?.row.url ?? ''),
          responseBytes: e.redirectResponse.encodedDataLength ?? 0,
        });
      pending.set(e.requestId, {
        t0: e.timestamp,
        row: {
          tab,
          url: e.request.url,
          method: e.request.method,
          type: e.type ?? 'Other',
          status: 0,
          startedAt: Math.round(e.wallTime * 1000),
          durationMs: 0,
          remoteAddress: '',
          requestBytes: Buffer.byteLength(e.request.postData ?? ''),
          responseBytes: 0,
          mimeType: '',
          error: '',
        },
      });
    });
    cdp.on('Network.responseReceived', (p: unknown) => {
      const e = p as Params & {
        type?: string;
        response: { status: number; mimeType: string };
      };
      const open = pending.get(e.requestId);
      if (!open) return;
      open.row.status = e.response.status;
      open.row.mimeType = e.response.mimeType;
      open.row.remoteAddress = this.remote(open.row.url);
      if (e.type) open.row.type = e.type;
    });
    cdp.on('Network.loadingFinished', (p: unknown) => {
      const e = p as Params & { encodedDataLength: number };
      const open = pending.get(e.requestId);
      if (!open) return;
      const done = (body?: { body: string; truncated: boolean }) =>
        finish(e.requestId, e.timestamp, {
          responseBytes: e.encodedDataLength,
          ...(body && { body: body.body, bodyTruncated: body.truncated }),
        });
      if (!this.options.bodies || !TEXTUAL.test(open.row.mimeType)) return done();
      cdp
        .send('Network.getResponseBody', { requestId: e.requestId })
        .then((r) => {
          const text = r.base64Encoded ? Buffer.from(r.body, 'base64').toString('utf8') : r.body;
          const cut = Buffer.byteLength(text) > BODY_CAP;
          done({ body: cut ? Buffer.from(text).subarray(0, BODY_CAP).toString('utf8') : text, truncated: cut });
        })
        .catch(() => done());
    });
    cdp.on('Network.loadingFailed', (p: unknown) => {
      const e = p as Params & { errorText: string; canceled?: boolean };
      finish(e.requestId, e.timestamp, { error: e.canceled ? 'canceled' : e.errorText });
    });
    cdp.send('Network.enable').catch(() => undefined);
  }

  /** Stops listening; rows of requests still open are dropped (the page is going away with them). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.root?.detach().catch(() => undefined);
  }
}
