// Where clients drive their sessions: the host's CDP endpoint. A WebSocket
// upgrade on /devtools/browser/<session>?ticket=... with the session's
// single-use ticket is joined to that session's Chromium. Chromium's frames go
// to the client byte for byte (of any size, no re-framing); the client's pass
// the host's rules first (cdp-filter.ts), unchanged unless refused. Nothing of
// the client's request reaches Chromium but the WebSocket handshake itself:
// no Authorization, Cookie or Origin, and Host is Chromium's own.
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError, toErrorBody } from '@wap/errors';
import type { Logger } from '@wap/log';
import { ClientFrames } from './cdp-filter.js';
import type { SessionManager } from './manager.js';

const SESSION_PATH = /^\/devtools\/browser\/([0-9a-f-]{36})$/;
/** How long a client's socket may be silent before the kernel starts asking whether it is still there. */
const CLIENT_KEEPALIVE_MS = 15_000;

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
  private readonly sockets = new Set<Duplex>();

  constructor(
    private readonly manager: SessionManager,
    private readonly log: Logger,
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
    const key = req.headers['sec-websocket-key'];
    if (typeof key !== 'string' || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      refuse(socket, new ApiError('bad_request', { issues: [{ path: 'upgrade', message: 'a WebSocket upgrade' }] }));
      return;
    }
    const target = session.browser.endpoint;
    const upstream: Socket = connect(Number(target.port), target.hostname);
    const detach = session.attach();
    this.sockets.add(socket);
    const close = () => {
      socket.destroy();
      upstream.destroy();
      this.sockets.delete(socket);
      detach();
    };
    for (const s of [socket, upstream]) {
      s.on('error', close);
      s.on('close', close);
    }
    (socket as Socket).setNoDelay?.(true);
    // A client whose machine or network vanished sends no FIN: TCP keep-alive probes find it once it has been
    // silent this long, and the session then ends, or waits for a reconnect, as its idleTimeout says.
    (socket as Socket).setKeepAlive?.(true, CLIENT_KEEPALIVE_MS);
    upstream.setNoDelay(true);
    const protocol = req.headers['sec-websocket-protocol'];
    upstream.write(
      [
        `GET ${target.pathname} HTTP/1.1`,
        `Host: ${target.host}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${key}`,
        `Sec-WebSocket-Version: ${req.headers['sec-websocket-version'] ?? '13'}`,
        ...(typeof protocol === 'string' ? [`Sec-WebSocket-Protocol: ${protocol}`] : []),
        '',
        '',
      ].join('\r\n'),
    );
    // The client's frames pass the host's rules on the way in (cdp-filter.ts); Chromium's go back untouched.
    const frames = new ClientFrames(
      (method, reason) => this.log.info({ sessionId: session.id, method, reason }, 'client command refused'),
      () => void session.end('closed'),
    );
    const forward = (chunk: Buffer) => {
      try {
        for (const out of frames.push(chunk)) if (!upstream.write(out)) socket.pause();
      } catch (err) {
        this.log.warn({ err, sessionId: session.id }, 'unreadable client frames; closing');
        close();
      }
    };
    upstream.on('drain', () => socket.resume());
    if (head.length > 0) forward(head);
    socket.on('data', forward);
    // Chromium's 101 answers the client's own key, so the client's handshake checks out.
    upstream.pipe(socket);
    this.log.debug({ sessionId: session.id }, 'client attached');
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
