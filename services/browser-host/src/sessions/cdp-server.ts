// Where clients drive their sessions: the host's CDP endpoint. A WebSocket
// upgrade on /devtools/browser/<session>?ticket=... with the session's
// single-use ticket is joined to that session's Chromium, as a connection of
// its own on the browser's pipe (cdp-hub.ts). The host ends the client's
// WebSocket itself: it reads the client's messages whole, passes each through
// the host's rules (cdp-filter.ts) and sends Chromium only what it parsed
// (the client's text where both readers read it alike, else written anew);
// Chromium's messages go back less what the filter hides. Nothing of the
// client's request reaches Chromium: not its handshake, nor Authorization,
// Cookie or Origin, nor any frame as the client framed it.
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import { WebSocket, WebSocketServer } from 'ws';
import { CaptchaDomain } from '../captcha/cdp-domain.js';
import type { SolverProvider } from '../captcha/provider.js';
import { CdpFilter } from './cdp-filter.js';
import type { CdpChannel } from './cdp-hub.js';
import type { SessionManager } from './manager.js';
import { quietRuntime } from './quiet-runtime.js';
import type { Session } from './session.js';

const SESSION_PATH = /^\/devtools\/browser\/([0-9a-f-]{36})$/;
/** How long a client's socket may be silent before the kernel starts asking whether it is still there. */
const CLIENT_KEEPALIVE_MS = 15_000;
/** The host pings each client this often; one that has not answered the last ping by the next is gone. */
const PING_INTERVAL_MS = 15_000;
/** How long a client is given to answer the host's close frame. */
const CLOSE_GRACE_MS = 2_000;
/** The largest message a client may send (a script, a document) and Chromium may (a screenshot, a body). */
const CLIENT_MAX_MESSAGE = 64 * 1024 * 1024;
/** Characters queued towards one side before the other is paused. */
const HIGH_WATER = 8 * 1024 * 1024;

/** An HTTP answer written on a socket that asked to upgrade, then closed. */
function refuse(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify(toErrorBody(err));
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}\r\n` +
      'Content-Type: application/json\r\nCache-Control: no-store\r\nConnection: close\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export class CdpServer {
  private readonly server: Server;
  private readonly clients = new Set<WebSocket>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: CLIENT_MAX_MESSAGE,
    clientTracking: false,
  });

  constructor(
    private readonly manager: SessionManager,
    private readonly log: Logger,
    /** The operator's captcha solver, for the clients' Captcha.solve (captcha/cdp-domain.ts). */
    private readonly captchaSolver?: SolverProvider,
  ) {
    this.server = createServer((req, res) => {
      // The host's json/version, for a plain GET /connect sent here: the ticket is read, not spent.
      const url = new URL(req.url ?? '/', 'http://host');
      const session = this.manager.get(url.searchParams.get('session') ?? '');
      const ticket = url.searchParams.get('ticket') ?? '';
      if (req.method !== 'GET' || !/^\/json\/version\/?$/.test(url.pathname) || !session?.holds(ticket)) {
        const err = new ApiError(session ? 'unauthorized' : 'not_found');
        res.writeHead(err.status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(toErrorBody(err)));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(session.versionJson(this.socketUrl(session.id, ticket))));
    });
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
  }

  private publicBase = '';

  /** How clients reach it (set by `listen`): it also names this host, stable across its restarts. */
  get publicUrl(): string {
    return this.publicBase;
  }

  /** Listens; `publicUrl` is how clients reach it (ws:// or wss://), e.g. behind an ingress. */
  async listen(host: string, port: number, publicUrl?: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    const bound = address && typeof address === 'object' ? address.port : port;
    this.publicBase = (publicUrl ?? `ws://${host}:${bound}`).replace(/\/$/, '');
  }

  /** The URL a client connects to for `sessionId` with `ticket`. */
  socketUrl(sessionId: string, ticket: string): string {
    return `${this.publicBase}/devtools/browser/${sessionId}?ticket=${encodeURIComponent(ticket)}`;
  }

  /** The host's json/version for a session, over HTTP(S). */
  versionUrl(sessionId: string, ticket: string): string {
    const http = this.publicBase.replace(/^ws/, 'http');
    return `${http}/json/version?session=${sessionId}&ticket=${encodeURIComponent(ticket)}`;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://host');
    const id = SESSION_PATH.exec(url.pathname)?.[1];
    const session = id ? this.manager.get(id) : undefined;
    if (!session?.redeem(url.searchParams.get('ticket') ?? '')) {
      // Reused, expired, or another session's ticket: one answer for all, saying nothing of which.
      refuse(socket, new ApiError('unauthorized'));
      return;
    }
    if (
      typeof req.headers['sec-websocket-key'] !== 'string' ||
      (req.headers.upgrade ?? '').toLowerCase() !== 'websocket'
    ) {
      refuse(socket, new ApiError('bad_request', { issues: [{ path: 'upgrade', message: 'a WebSocket upgrade' }] }));
      return;
    }
    // The host's own connection to Chromium: the client's request (its headers, its handshake) never reaches it.
    session.browser.openChannel().then(
      (channel) => {
        const upstream = session.quietRuntime ? quietRuntime(channel) : channel;
        // A client gone before its upgrade completes takes its connection to the browser with it.
        socket.once('close', () => upstream.close());
        this.wss.handleUpgrade(req, socket, head, (client) => this.join(session, client, upstream));
      },
      (err: unknown) => {
        this.log.warn({ err, sessionId: session.id }, "session browser's CDP unreachable");
        refuse(socket, new ApiError('no_capacity', { retryAfterSeconds: 2 }));
      },
    );
  }

  /**
   * Joins a client to its session's Chromium, message by message: the
   * client's pass the host's rules (cdp-filter.ts), Chromium's pass the
   * filter's hiding of the recorder. The client's end in any form (a close
   * frame, a FIN, a reset, a missed pong) detaches it.
   */
  private join(session: Session, client: WebSocket, upstream: CdpChannel): void {
    const detach = session.attach();
    this.clients.add(client);
    const sessionId = session.id;
    const filter = new CdpFilter({
      refused: (method, reason) => this.log.info({ sessionId, method, reason }, 'client command refused'),
      hiddenTarget: (targetId) => session.browser.hiddenTargets().has(targetId),
    });
    let done = false;
    // Its own domain's answers and events go the way Chromium's do.
    const captchas = new CaptchaDomain(session.browser.browser, this.captchaSolver, (text) => reply(text));
    const close = (code?: number, reason?: string) => {
      if (done) return;
      done = true;
      captchas.close();
      clearInterval(heartbeat);
      this.clients.delete(client);
      if (code !== undefined && client.readyState === WebSocket.OPEN) {
        client.close(code, reason);
        // A client that does not answer the close is not waited for.
        setTimeout(() => client.terminate(), CLOSE_GRACE_MS).unref();
      } else client.terminate();
      upstream.close();
      detach();
    };
    const raw = (client as unknown as { _socket?: Socket })._socket;
    raw?.setNoDelay(true);
    // A client whose machine or network vanished sends no FIN: TCP keep-alive probes find it, and the pings below sooner.
    raw?.setKeepAlive(true, CLIENT_KEEPALIVE_MS);
    // A half-closed socket (a FIN without a close frame) ends the connection at once.
    raw?.once('end', () => close());
    let answered = true;
    const heartbeat = setInterval(() => {
      if (!answered) return close(1001, 'no pong');
      answered = false;
      client.ping();
    }, PING_INTERVAL_MS);
    heartbeat.unref();
    client.on('pong', () => {
      answered = true;
    });
    // Towards Chromium the pipe takes what it is given; towards a slow client, Chromium's messages wait.
    const send = (text: string) => upstream.send(text);
    const reply = relay(upstream, client);
    client.on('message', (data, isBinary) => {
      if (isBinary) return close(1003, 'CDP messages are text');
      const verdict = filter.fromClient(data.toString());
      if (verdict.kind === 'forward') send(verdict.text);
      else if (verdict.kind === 'answer') reply(verdict.text);
      else if (verdict.kind === 'host')
        void captchas.command(verdict.command, verdict.targetId).then(
          (text) => reply(text),
          (err: unknown) => this.log.warn({ err, sessionId }, 'captcha command failed'),
        );
      else if (verdict.kind === 'closeBrowser') {
        reply(verdict.text);
        void session.end('closed');
      } else {
        this.log.info({ sessionId, reason: verdict.reason }, 'client broke the protocol; closing');
        close(verdict.code, verdict.reason);
      }
    });
    upstream.onmessage = (text) => {
      const { toClient, toBrowser } = filter.fromBrowser(text);
      if (toClient !== undefined) reply(toClient);
      for (const own of toBrowser) send(own);
    };
    // Chromium's end going away while the session lives is Chromium gone: the session ends as crashed, before
    // this client's detach could end it as closed.
    upstream.onclose = () => {
      if (!done && !session.ended) void session.end('crashed');
      close();
    };
    client.on('close', () => close());
    client.on('error', (err) => {
      this.log.debug({ err, sessionId }, 'CDP connection error');
      close();
    });
    this.log.debug({ sessionId }, 'client attached');
  }

  async close(): Promise<void> {
    for (const c of this.clients) c.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Sends on `to`, pausing `from` while `to` has more than it can take at once
 * (a screenshot stream to a slow client), so its queue does not grow unbounded.
 */
function relay(from: CdpChannel, to: WebSocket): (text: string) => void {
  let queued = 0;
  let paused = false;
  return (text) => {
    if (to.readyState !== WebSocket.OPEN) return;
    queued += text.length;
    if (queued > HIGH_WATER && !paused) {
      paused = true;
      from.pause();
    }
    to.send(text, () => {
      queued -= text.length;
      if (queued <= HIGH_WATER && paused) {
        paused = false;
        from.resume();
      }
    });
  };
}
