// What a client may ask of its session's Chromium. The client's WebSocket
// frames are read on their way to Chromium (Chromium's own frames go back
// untouched); a frame is forwarded as it came unless its command is one of:
//
// - Page.navigate / Target.createTarget to anything but http(s), about:,
//   data: or blob: (a CDP navigation to file:// would read the host's files);
// - DOM.setFileInputFiles (host paths), Extensions.* and PWA.* (installs);
// - Browser.setDownloadBehavior / Page.setDownloadBehavior: rewritten to deny
//   (the spec has no downloads; Playwright asks for them on every connect);
// - Target.createBrowserContext: its proxyServer/proxyBypassList removed (a
//   context's own proxy would leave through no egress guard);
// - Browser.close: the host ends the session itself, so what the pages showed
//   last reaches the recording and the bill before Chromium goes; Chromium is
//   sent Browser.getVersion under the same id, so the client has its answer.
//
// A refused command is forwarded renamed `Refused.<reason>`, so Chromium
// itself answers its id with an error and the stream of frames stays whole.
import { randomBytes } from 'node:crypto';

const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'about:', 'data:', 'blob:']);

/** A client's CDP command after the host's rules: as it came, rewritten, or refused. */
export function ruleFor(command: {
  method?: unknown;
  params?: Record<string, unknown>;
  sessionId?: unknown;
}):
  | { kind: 'pass' }
  | { kind: 'rewrite'; params: Record<string, unknown> }
  | { kind: 'refuse'; reason: string }
  | { kind: 'close' } {
  const method = typeof command.method === 'string' ? command.method : '';
  const params = command.params ?? {};
  if (method === 'Browser.close' && command.sessionId === undefined) return { kind: 'close' };
  if (method === 'Page.navigate' || method === 'Target.createTarget') {
    const url = typeof params.url === 'string' ? params.url : '';
    let scheme = '';
    try {
      scheme = new URL(url).protocol;
    } catch {
      return url === '' && method === 'Target.createTarget'
        ? { kind: 'pass' }
        : { kind: 'refuse', reason: 'urlNotAllowed' };
    }
    return ALLOWED_SCHEMES.has(scheme) ? { kind: 'pass' } : { kind: 'refuse', reason: 'urlSchemeNotAllowed' };
  }
  if (method === 'DOM.setFileInputFiles') return { kind: 'refuse', reason: 'hostFilesNotAllowed' };
  if (method.startsWith('Extensions.') || method.startsWith('PWA.')) return { kind: 'refuse', reason: 'notAllowed' };
  if (method === 'Browser.setDownloadBehavior' || method === 'Page.setDownloadBehavior') {
    const { browserContextId } = params;
    return { kind: 'rewrite', params: { behavior: 'deny', ...(browserContextId ? { browserContextId } : {}) } };
  }
  if (method === 'Target.createBrowserContext' && ('proxyServer' in params || 'proxyBypassList' in params)) {
    const { proxyServer: _server, proxyBypassList: _bypass, ...rest } = params;
    return { kind: 'rewrite', params: rest };
  }
  return { kind: 'pass' };
}

/** One masked client frame carrying `payload` as a single text message. */
function clientTextFrame(payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x81, 0x80 | length])
      : length < 65_536
        ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x81, 0x80 | 127]), bigEndian64(length)]);
  const body = Buffer.alloc(length);
  for (let i = 0; i < length; i++) body[i] = (payload[i] as number) ^ (mask[i & 3] as number);
  return Buffer.concat([header, mask, body]);
}

function bigEndian64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

/**
 * Reads the client's byte stream as WebSocket frames (RFC 6455 section 5)
 * and answers what to send Chromium: the bytes as they came, or a message
 * rewritten. A message split over frames is judged when its last frame
 * arrives; its frames are held until then.
 */
export class ClientFrames {
  private buffered: Buffer = Buffer.alloc(0);
  /** The frames of a message still open (no FIN yet), and their unmasked payloads. */
  private open: { raw: Buffer[]; payload: Buffer[] } | undefined;

  constructor(
    private readonly onRefused: (method: string, reason: string) => void = () => undefined,
    /** The client asked the browser to close: the session's to do. */
    private readonly onBrowserClose: () => void = () => undefined,
  ) {}

  /** Bytes from the client in; bytes for Chromium out (possibly none yet). */
  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const out: Buffer[] = [];
    for (;;) {
      const frame = this.nextFrame();
      if (!frame) return out;
      const { fin, opcode, raw, payload } = frame;
      if (opcode >= 0x8) {
        out.push(raw); // control frames may come between a message's frames
        continue;
      }
      if (opcode === 0x2 || (opcode === 0x0 && !this.open)) {
        out.push(raw); // binary: CDP never sends it; passed as it came
        continue;
      }
      this.open ??= { raw: [], payload: [] };
      this.open.raw.push(raw);
      this.open.payload.push(payload);
      if (!fin) continue;
      const message = this.open;
      this.open = undefined;
      out.push(...this.judge(message.raw, Buffer.concat(message.payload)));
    }
  }

  private judge(raw: Buffer[], payload: Buffer): Buffer[] {
    let command: { id?: unknown; method?: unknown; sessionId?: unknown; params?: Record<string, unknown> };
    try {
      command = JSON.parse(payload.toString('utf8'));
    } catch {
      return raw; // not JSON: Chromium answers it as it would
    }
    const rule = ruleFor(command);
    if (rule.kind === 'pass') return raw;
    if (rule.kind === 'close') {
      this.onBrowserClose();
      const asked = { id: command.id, method: 'Browser.getVersion', params: {} };
      return [clientTextFrame(Buffer.from(JSON.stringify(asked)))];
    }
    if (rule.kind === 'refuse') {
      this.onRefused(String(command.method), rule.reason);
      const renamed = { ...command, method: `Refused.${rule.reason}`, params: {} };
      return [clientTextFrame(Buffer.from(JSON.stringify(renamed)))];
    }
    return [clientTextFrame(Buffer.from(JSON.stringify({ ...command, params: rule.params })))];
  }

  private nextFrame(): { fin: boolean; opcode: number; raw: Buffer; payload: Buffer } | undefined {
    const b = this.buffered;
    if (b.length < 2) return undefined;
    const fin = ((b[0] as number) & 0x80) !== 0;
    const opcode = (b[0] as number) & 0x0f;
    const masked = ((b[1] as number) & 0x80) !== 0;
    let length = (b[1] as number) & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return undefined;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return undefined;
      length = Number(b.readBigUInt64BE(2));
      offset = 10;
    }
    const maskAt = offset;
    if (masked) offset += 4;
    if (b.length < offset + length) return undefined;
    const raw = b.subarray(0, offset + length);
    const payload = Buffer.from(b.subarray(offset, offset + length));
    if (masked) for (let i = 0; i < length; i++) payload[i] = (payload[i] as number) ^ (b[maskAt + (i & 3)] as number);
    this.buffered = b.subarray(offset + length);
    return { fin, opcode, raw: Buffer.from(raw), payload };
  }
}
