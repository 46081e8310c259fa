// Many CDP connections to one Chromium over its one pipe (--remote-debugging-pipe),
// so no Chromium listens on any port. The pipe's own root session is the hub's
// alone; every connection (the host's puppeteer, each client) is a session on
// the browser target (Target.attachToBrowserTarget), which Chromium keeps apart
// as it keeps separate WebSocket connections apart: its own discovery,
// auto-attach and targets attached. What Chromium does not keep apart on one
// pipe is the routing of flat sessions (any session id reaches any session), so
// the hub does: a connection may name only the sessions attached through it,
// and sees only their messages.
//
// Chromium serialises every message with the flat session's id as its last
// member, and the host serialises what it sends the same way (cdp-filter.ts
// re-serialises each client command; puppeteer puts sessionId last), so the
// session of a message is read from its tail without parsing the message
// (cdp-message.ts). What the connections send in one turn of the event loop
// goes to Chromium in one write.
import type { Readable, Writable } from 'node:stream';
import { SESSION_MEMBER, sessionAt, tailSessionStart } from './cdp-message.js';

const ATTACHED = '{"method":"Target.attachedToTarget"';
const DETACHED = '{"method":"Target.detachedFromTarget"';

/** One connection to the browser, shaped as puppeteer's ConnectionTransport. */
export interface CdpChannel {
  /** A message as a connection sends it: without a sessionId, it is for the browser. */
  send(message: string): void;
  onmessage?: (message: string) => void;
  onclose?: () => void;
  /** Detaches the connection: every session attached through it goes with it. */
  close(): void;
  /** Holds Chromium's messages to every connection while this one cannot take more (a slow client). */
  pause(): void;
  resume(): void;
}

interface Channel extends CdpChannel {
  browserSession: string;
  closed: boolean;
}

/**
 * Hands a message to its connection on a turn of its own, in order, as
 * puppeteer's own transports do: what a connection does on one message's
 * answer runs before the next message arrives (puppeteer listens for a new
 * session's events only once the command that made it has answered).
 */
function deliver(channel: Channel, message: string): void {
  setImmediate(() => {
    if (!channel.closed) channel.onmessage?.(message);
  });
}

export class CdpHub {
  /** Flat sessions by id, each with the connection it was attached through. */
  private readonly owners = new Map<string, Channel>();
  /** Connections by their browser session. */
  private readonly channels = new Map<string, Channel>();
  private readonly pending = new Map<number, { resolve(result: unknown): void; reject(err: Error): void }>();
  private nextId = 0;
  private chunks: Buffer[] = [];
  private paused = 0;
  /** Writes towards Chromium are held until the end of this turn, then go in one. */
  private corked = false;
  private ended = false;
  /** Opening one connection at a time: its attach's answer is known for its own. */
  private opening: Promise<unknown> = Promise.resolve();
  /** Called once when the pipe closes (Chromium exited). */
  onclose?: () => void;

  constructor(
    private readonly toBrowser: Writable,
    private readonly fromBrowser: Readable,
  ) {
    fromBrowser.on('data', (chunk: Buffer) => {
      try {
        this.read(chunk);
      } catch {
        // Chromium wrote what is not CDP: nothing on this pipe can be trusted after it.
        this.end();
      }
    });
    fromBrowser.on('close', () => this.end());
    fromBrowser.on('error', () => this.end());
    toBrowser.on('error', () => this.end());
  }

  /** A new connection to the browser. */
  open(): Promise<CdpChannel> {
    const opened = this.opening.then(async () => {
      const { sessionId } = (await this.command('Target.attachToBrowserTarget')) as { sessionId: string };
      const channel = this.channel(sessionId);
      this.channels.set(sessionId, channel);
      return channel;
    });
    this.opening = opened.catch(() => undefined);
    return opened;
  }

  private channel(browserSession: string): Channel {
    const hub = this;
    const channel: Channel = {
      browserSession,
      closed: false,
      send(message) {
        if (channel.closed || hub.ended) return;
        hub.fromChannel(channel, message);
      },
      close() {
        if (channel.closed) return;
        hub.forget(channel);
        if (!hub.ended) hub.command('Target.detachFromTarget', { sessionId: browserSession }).catch(() => undefined);
      },
      pause() {
        if (hub.paused++ === 0) hub.fromBrowser.pause();
      },
      resume() {
        if (hub.paused > 0 && --hub.paused === 0) hub.fromBrowser.resume();
      },
    };
    return channel;
  }

  private forget(channel: Channel): void {
    channel.closed = true;
    this.channels.delete(channel.browserSession);
    for (const [id, owner] of this.owners) if (owner === channel) this.owners.delete(id);
  }

  /** A command on the pipe's root session, the hub's own. */
  private command(method: string, params?: Record<string, unknown>): Promise<unknown> {
    if (this.ended) return Promise.reject(new Error('the browser is gone'));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write(JSON.stringify({ id, method, ...(params && { params }) }));
    });
  }

  private readonly uncork = () => {
    this.corked = false;
    this.toBrowser.uncork();
  };

  private write(message: string): void {
    if (!this.corked) {
      this.corked = true;
      this.toBrowser.cork();
      process.nextTick(this.uncork);
    }
    this.toBrowser.write(`${message}\0`);
  }

  private fromChannel(channel: Channel, message: string): void {
    const tail = tailSessionStart(message);
    if (tail === -1) {
      if (!message.endsWith('}')) return;
      this.write(`${message.slice(0, -1)}${SESSION_MEMBER}${channel.browserSession}"}`);
      return;
    }
    const named = sessionAt(message, tail);
    if (named === channel.browserSession || this.owners.get(named) === channel) {
      this.write(message);
      return;
    }
    // Another connection's session: answered as Chromium answers a session that does not exist.
    let id: unknown;
    try {
      id = (JSON.parse(message) as { id?: unknown }).id;
    } catch {
      return;
    }
    if (typeof id !== 'number') return;
    const error = { code: -32001, message: 'Session with given id not found.' };
    deliver(channel, JSON.stringify({ id, error, sessionId: named }));
  }

  private read(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      const head = chunk.subarray(start, end);
      let whole = head;
      if (this.chunks.length > 0) {
        this.chunks.push(head);
        whole = Buffer.concat(this.chunks);
        this.chunks = [];
      }
      this.route(whole.toString('utf8'));
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
  }

  private route(message: string): void {
    const tail = tailSessionStart(message);
    if (tail === -1) {
      this.fromRoot(message);
      return;
    }
    const sessionId = sessionAt(message, tail);
    const own = this.channels.get(sessionId);
    if (own) {
      // The connection's browser session is the connection itself: it sees no sessionId.
      const text = `${message.slice(0, tail)}}`;
      this.learn(own, text);
      deliver(own, text);
      return;
    }
    const owner = this.owners.get(sessionId);
    if (!owner) return;
    this.learn(owner, message);
    deliver(owner, message);
  }

  /** Sessions attached through a connection are its own; detached ones are no one's. */
  private learn(channel: Channel, message: string): void {
    const attached = message.startsWith(ATTACHED);
    if (!attached && !message.startsWith(DETACHED)) return;
    const { params } = JSON.parse(message) as { params?: { sessionId?: unknown } };
    const child = params?.sessionId;
    if (typeof child !== 'string') return;
    if (attached) this.owners.set(child, channel);
    else if (this.owners.get(child) === channel) {
      // After it is delivered: the detach itself is the connection's to see.
      queueMicrotask(() => {
        if (this.owners.get(child) === channel) this.owners.delete(child);
      });
    }
  }

  private fromRoot(message: string): void {
    const value = JSON.parse(message) as { id?: number; result?: unknown; error?: { message?: string } };
    if (typeof value.id !== 'number') return;
    const waiting = this.pending.get(value.id);
    if (!waiting) return;
    this.pending.delete(value.id);
    if (value.error) waiting.reject(new Error(value.error.message ?? 'CDP error'));
    else waiting.resolve(value.result);
  }

  /** Ends every connection (the browser is gone). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const { reject } of this.pending.values()) reject(new Error('the browser is gone'));
    this.pending.clear();
    for (const channel of [...this.channels.values()]) {
      this.forget(channel);
      channel.onclose?.();
    }
    this.onclose?.();
  }
}
