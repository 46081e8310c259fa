// A WebSocket client written by hand (RFC 6455), for tests whose point is a
// frame no client library would send: a continuation with no message open, a
// text frame any JSON reader but Chromium's refuses, a FIN with no close frame.
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

export class RawWebSocket {
  private buffered = Buffer.alloc(0);
  private readonly frames: Frame[] = [];
  private readonly waiting: ((frame: Frame | undefined) => void)[] = [];
  private ended = false;
  /** The status code of the server's close frame, once it sent one. */
  closeCode: number | undefined;
  /** Resolves when the server has closed the TCP connection. */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk) => this.read(chunk));
    socket.on('close', () => {
      this.ended = true;
      for (const w of this.waiting.splice(0)) w(undefined);
    });
    socket.on('error', () => undefined);
  }

  /** Connects to a ws:// URL and completes the handshake (101 with the right accept key). */
  static open(url: string): Promise<RawWebSocket> {
    const target = new URL(url);
    const key = randomBytes(16).toString('base64');
    const expected = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    return new Promise((resolve, reject) => {
      const socket = connect(Number(target.port), target.hostname, () => {
        socket.write(
          [
            `GET ${target.pathname}${target.search} HTTP/1.1`,
            `Host: ${target.host}`,
            'Upgrade: websocket',
            'Connection: Upgrade',
            `Sec-WebSocket-Key: ${key}`,
            'Sec-WebSocket-Version: 13',
            '',
            '',
          ].join('\r\n'),
        );
      });
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        const text = head.subarray(0, end).toString();
        if (!/^HTTP\/1\.1 101 /.test(text) || !text.includes(expected)) {
          socket.destroy();
          reject(new Error(`no WebSocket handshake: ${text.split('\r\n')[0]}`));
          return;
        }
        const ws = new RawWebSocket(socket);
        const rest = head.subarray(end + 4);
        if (rest.length > 0) ws.read(rest);
        resolve(ws);
      };
      socket.on('data', onData);
      socket.once('error', reject);
    });
  }

  /** Sends one masked frame as given: any opcode, FIN or not. */
  sendFrame(payload: string | Buffer, { opcode = 0x1, fin = true }: { opcode?: number; fin?: boolean } = {}): void {
    const body = Buffer.from(payload);
    const mask = randomBytes(4);
    const length = body.length;
    const first = (fin ? 0x80 : 0) | opcode;
    const header =
      length < 126
        ? Buffer.from([first, 0x80 | length])
        : length < 65_536
          ? Buffer.from([first, 0x80 | 126, length >> 8, length & 0xff])
          : Buffer.concat([Buffer.from([first, 0x80 | 127]), bigEndian64(length)]);
    const masked = Buffer.from(body.map((b, i) => b ^ (mask[i & 3] as number)));
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  /** Sends a CDP command as one text frame. */
  send(command: object): void {
    this.sendFrame(JSON.stringify(command));
  }

  /** The next frame from the server; undefined once the connection has closed. */
  next(): Promise<Frame | undefined> {
    const frame = this.frames.shift();
    if (frame || this.ended) return Promise.resolve(frame);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The server's answer to command `id` (other messages are skipped); undefined if it closed first. */
  async answer(id: number): Promise<{ id: number; result?: unknown; error?: { message: string } } | undefined> {
    for (;;) {
      const frame = await this.next();
      if (!frame) return undefined;
      if (frame.opcode !== 0x1) continue;
      const message = JSON.parse(frame.payload.toString());
      if (message.id === id) return message;
    }
  }

  /** Half-closes: a FIN, and no close frame (a killed process, many clients' `socket.close()`). */
  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const b = this.buffered;
      if (b.length < 2) return;
      let length = (b[1] as number) & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) return;
      const frame = {
        fin: ((b[0] as number) & 0x80) !== 0,
        opcode: (b[0] as number) & 0x0f,
        payload: Buffer.from(b.subarray(offset, offset + length)),
      };
      this.buffered = b.subarray(offset + length);
      if (frame.opcode === 0x8 && frame.payload.length >= 2) this.closeCode = frame.payload.readUInt16BE(0);
      const waiter = this.waiting.shift();
      if (waiter) waiter(frame);
      else this.frames.push(frame);
    }
  }
}

function bigEndian64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}
