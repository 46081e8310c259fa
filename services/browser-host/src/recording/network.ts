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
import type { Screencasts } from './screencasts.js';

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
  /** What the response came over: `http/1.1`, `h2`, `h3`, `data`, `blob`…; empty without a response. */
  protocol: string;
  /** What asked for it: the parser, a script (with the calling script's URL and line), a preload… */
  initiator: { type: string; url?: string; line?: number };
  /** Headers as Chromium sent and received them, with credentials' values redacted (SENSITIVE_HEADERS). */
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  /** Where its time went, in milliseconds, as HAR splits it; absent parts (a reused connection's dns) are null. */
  timing: NetworkTiming;
  /** A text body up to BODY_CAP bytes, when the session asked for bodies. */
  body?: string;
  bodyTruncated?: boolean;
}

export interface NetworkTiming {
  blockedMs: number | null;
  dnsMs: number | null;
  connectMs: number | null;
  sslMs: number | null;
  sendMs: number | null;
  waitMs: number | null;
  receiveMs: number | null;
}

/** Header values kept out of the log: they are credentials (the client's, or the sites'). */
export const SENSITIVE_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** A header value longer than this is cut; a row's headers stop at HEADERS_CAP bytes in all. */
const HEADER_VALUE_CAP = 2_048;
const HEADERS_CAP = 16 * 1024;

/** Headers as the log keeps them: names lower-cased, credentials redacted, long values cut. */
export function loggedHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  let bytes = 0;
  for (const [name, raw] of Object.entries(headers ?? {})) {
    const key = name.toLowerCase();
    const value = SENSITIVE_HEADERS.has(key) ? '[redacted]' : String(raw).slice(0, HEADER_VALUE_CAP);
    bytes += key.length + value.length;
    if (bytes > HEADERS_CAP) break;
    out[key] = value;
  }
  return out;
}

const NO_TIMING: NetworkTiming = {
  blockedMs: null,
  dnsMs: null,
  connectMs: null,
  sslMs: null,
  sendMs: null,
  waitMs: null,
  receiveMs: null,
};

/** CDP's ResourceTiming: milliseconds after `requestTime` (seconds), -1 for a phase that did not happen. */
interface ResourceTiming {
  requestTime: number;
  dnsStart: number;
  dnsEnd: number;
  connectStart: number;
  connectEnd: number;
  sslStart: number;
  sslEnd: number;
  sendStart: number;
  sendEnd: number;
  receiveHeadersEnd: number;
}

/** HAR's split of a request's time (as Chromium's own HAR export does it), from its start to its end (monotonic seconds). */
export function harTiming(t: ResourceTiming | undefined, start: number, end: number): NetworkTiming {
  if (!t) return NO_TIMING;
  const span = (from: number, to: number) => (from >= 0 && to >= from ? round(to - from) : null);
  const queued = Math.max(0, (t.requestTime - start) * 1000);
  const firstPhase = [t.dnsStart, t.connectStart, t.sendStart].find((v) => v >= 0) ?? 0;
  return {
    blockedMs: round(queued + firstPhase),
    dnsMs: span(t.dnsStart, t.dnsEnd),
    connectMs: span(t.connectStart, t.connectEnd),
    sslMs: span(t.sslStart, t.sslEnd),
    sendMs: span(t.sendStart, t.sendEnd),
    waitMs: span(t.sendEnd, t.receiveHeadersEnd),
    receiveMs: t.receiveHeadersEnd >= 0 ? round(Math.max(0, (end - t.requestTime) * 1000 - t.receiveHeadersEnd)) : null,
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Bodies kept per response, at most; longer ones are cut and marked. */
export const BODY_CAP = 64 * 1024;
const TEXTUAL = /^(text\/|application\/(json|[\w.+-]*\+json|xml|[\w.+-]*\+xml|javascript|x-www-form-urlencoded))/;

interface Pending {
  row: NetworkRow;
  /** Chromium's monotonic seconds at the start, for the duration. */
  t0: number;
  /** The response's timing, folded at the end. */
  timing?: ResourceTiming;
}

type Params = Record<string, unknown> & {
  requestId: string;
  timestamp: number;
};

/** The parts of CDP's Network.Response the log keeps. */
interface Response {
  status: number;
  mimeType: string;
  protocol?: string;
  headers?: Record<string, unknown>;
  /** Headers as they went, when Chromium has them (it adds cookies and the like after requestWillBeSent). */
  requestHeaders?: Record<string, unknown>;
  timing?: ResourceTiming;
  encodedDataLength?: number;
}

function responseParts(r: Response): Partial<NetworkRow> {
  return {
    status: r.status,
    mimeType: r.mimeType,
    protocol: r.protocol ?? '',
    responseHeaders: loggedHeaders(r.headers),
    ...(r.requestHeaders && { requestHeaders: loggedHeaders(r.requestHeaders) }),
  };
}

/** CDP's Network.Initiator. */
interface Initiator {
  type: string;
  url?: string;
  lineNumber?: number;
  stack?: { callFrames: { url: string; lineNumber: number }[]; parent?: Initiator['stack'] };
}

/** What asked for a request: its type, and the document or script (and line, 1-based) that did. */
function initiatorOf(i: Initiator | undefined): NetworkRow['initiator'] {
  if (!i) return { type: 'other' };
  const frame = i.stack?.callFrames.find((f) => f.url);
  const url = i.url || frame?.url;
  const line = i.lineNumber ?? frame?.lineNumber;
  return { type: i.type, ...(url && { url }), ...(line !== undefined && { line: line + 1 }) };
}

/**
 * The host's own CDP sessions on a session browser's pages: its network log,
 * and (when asked) each page's screencast, on the same attachment.
 */
export class NetworkCapture {
  private stopped = false;

  constructor(
    private readonly browser: Browser,
    /** A finished row, and the page target it came from (a pool browser's renders are told apart by it). */
    private readonly emit: (row: NetworkRow, targetId: string) => void,
    private readonly options: {
      bodies: boolean;
      /** The address the egress proxy reached for a host name. */
      addressOf: (hostname: string) => string | undefined;
      /**
       * The session's number for a page target: the same in the replay, the log and the screencast. Asked
       * once, as the page is attached, with its browser context (a pool browser's render is one context).
       */
      tabOf: (targetId: string, browserContextId: string) => number;
      /** Where each page is handed for its screencast (recording/screencasts.ts); none when absent. */
      screencasts?: Screencasts;
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
      const e = p as {
        sessionId: string;
        targetInfo: { type: string; targetId: string; browserContextId?: string };
        waitingForDebugger: boolean;
      };
      const session = root.connection()?.session(e.sessionId);
      if (!session) return;
      if (e.targetInfo.type === 'page' && !this.stopped)
        this.watch(session, e.targetInfo.targetId, e.targetInfo.browserContextId ?? '');
      if (e.waitingForDebugger) session.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    });
    root.on('Target.detachedFromTarget', (p: unknown) => {
      const { sessionId } = p as { sessionId: string };
      this.drains.get(sessionId)?.();
      this.drains.delete(sessionId);
      const page = this.pages.get(sessionId);
      if (!page) return;
      this.pages.delete(page.cdp.id());
      this.options.screencasts?.remove(page.tab, page.cdp);
    });
    await root.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'page', exclude: false }],
    });
  }

  private root: CDPSession | undefined;
  /** Each page's way to write out the requests it still has open, as it closes or the capture stops, by CDP session. */
  private readonly drains = new Map<string, () => void>();
  /** The pages attached, by their CDP session id. */
  private readonly pages = new Map<string, { tab: number; cdp: CDPSession }>();

  /** Folds the requests of one page; Network.enable goes out before the page is let go. */
  private watch(cdp: CDPSession, targetId: string, browserContextId: string): void {
    const tab = this.options.tabOf(targetId, browserContextId);
    const pending = new Map<string, Pending>();
    const finish = (id: string, end: number, more: Partial<NetworkRow>) => {
      const open = pending.get(id);
      if (!open) return;
      pending.delete(id);
      const row = {
        ...open.row,
        ...more,
        durationMs: Math.max(0, Math.round((end - open.t0) * 1000)),
        timing: harTiming(open.timing, open.t0, end),
      };
      if (!row.url.startsWith('chrome-extension:')) this.emit(row, targetId);
    };
    // A request still open as the session ends or the page closes (its last events not come yet: a render's
    // context may close before its document's loadingFinished arrives) is written as it stands: answered, or
    // unfinished; dropping it would leave the log without the page's last request.
    this.drains.set(cdp.id(), () => {
      for (const [id, open] of pending)
        finish(id, open.t0, open.row.status > 0 ? {} : { error: 'unfinished: the page or its session ended' });
    });
    cdp.on('Network.requestWillBeSent', (p: unknown) => {
      const e = p as Params & {
        request: { url: string; method: string; postData?: string; headers: Record<string, string> };
        wallTime: number;
        type?: string;
        initiator?: Initiator;
        redirectResponse?: Response;
      };
      // A redirect ends the row of the request it answers; the next hop is a new row under the same id.
      if (e.redirectResponse) {
        const hop = pending.get(e.requestId);
        if (hop) hop.timing = e.redirectResponse.timing;
        finish(e.requestId, e.timestamp, {
          ...responseParts(e.redirectResponse),
          remoteAddress: this.remote(hop?.row.url ?? ''),
          responseBytes: e.redirectResponse.encodedDataLength ?? 0,
        });
      }
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
          protocol: '',
          initiator: initiatorOf(e.initiator),
          requestHeaders: loggedHeaders(e.request.headers),
          responseHeaders: {},
          timing: NO_TIMING,
        },
      });
      const early = extra.get(e.requestId);
      if (early) {
        extra.delete(e.requestId);
        if (early.request) merge(e.requestId, 'request', early.request);
        if (early.response) merge(e.requestId, 'response', early.response);
      }
    });
    // The headers as they went and came on the wire (cookies included) arrive apart, before or after the rest.
    const extra = new Map<string, { request?: Record<string, string>; response?: Record<string, string> }>();
    const merge = (id: string, part: 'request' | 'response', headers: Record<string, unknown>) => {
      const open = pending.get(id);
      const logged = loggedHeaders(headers);
      if (open) {
        const key = part === 'request' ? 'requestHeaders' : 'responseHeaders';
        open.row[key] = { ...open.row[key], ...logged };
      } else {
        if (extra.size > 1_000) extra.clear(); // requests that never began: nothing to keep them for
        extra.set(id, { ...extra.get(id), [part]: logged });
      }
    };
    cdp.on('Network.requestWillBeSentExtraInfo', (p: unknown) => {
      const e = p as { requestId: string; headers: Record<string, unknown> };
      merge(e.requestId, 'request', e.headers);
    });
    cdp.on('Network.responseReceivedExtraInfo', (p: unknown) => {
      const e = p as { requestId: string; headers: Record<string, unknown> };
      merge(e.requestId, 'response', e.headers);
    });
    cdp.on('Network.responseReceived', (p: unknown) => {
      const e = p as Params & { type?: string; response: Response };
      const open = pending.get(e.requestId);
      if (!open) return;
      const parts = responseParts(e.response);
      // What came apart from the wire (ExtraInfo, cookies included) is the fuller account: it wins.
      Object.assign(open.row, parts, {
        requestHeaders: { ...parts.requestHeaders, ...open.row.requestHeaders },
        responseHeaders: { ...parts.responseHeaders, ...open.row.responseHeaders },
      });
      open.timing = e.response.timing;
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
    // Without bodies, nothing asks Network.getResponseBody: Chromium need not copy and keep every response for it (a
    // millisecond of the page's CPU a load of make bench's walk, 2026-11-30).
    const buffers = this.options.bodies ? {} : { maxTotalBufferSize: 0, maxResourceBufferSize: 0 };
    cdp.send('Network.enable', buffers).catch(() => undefined);
    this.pages.set(cdp.id(), { tab, cdp });
    this.options.screencasts?.add(tab, cdp);
  }

  /** Stops listening; rows of requests still open are written as they stand. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const drain of this.drains.values()) drain();
    this.drains.clear();
    await this.root?.detach().catch(() => undefined);
  }
}
