import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { random, sentence } from './content.js';

const HEAD = '<!doctype html><html><head><title>Huge page</title></head><body><main>\n';
const TAIL = '</main></body></html>\n';

/**
 * Streams an HTML page of exactly `bytes` bytes, honouring back-pressure so a
 * client that stops reading leaves the server idle, not buffering 20 MB.
 */
export function streamHuge(res: ServerResponse, bytes: number, withLength: boolean): void {
  const rnd = random(42);
  const block = Buffer.from(Array.from({ length: 400 }, () => `<p>${sentence(rnd)}</p>\n`).join(''));
  const headers: Record<string, string | number> = { 'content-type': 'text/html; charset=utf-8' };
  if (withLength) headers['content-length'] = bytes;
  res.writeHead(200, headers);
  let left = Math.max(0, bytes - HEAD.length - TAIL.length);
  res.write(HEAD);
  const pump = (): void => {
    while (left > 0) {
      const piece = left >= block.length ? block : block.subarray(0, left);
      left -= piece.length;
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end(TAIL);
  };
  res.on('close', () => {
    left = 0;
  });
  pump();
}

let bomb: { bytes: number; body: Buffer } | undefined;

/** A small gzip body that inflates to `bytes` of HTML: the decoded-size cap must stop it. */
export function gzipBomb(bytes: number): Buffer {
  if (bomb?.bytes !== bytes) {
    const inner = Buffer.alloc(bytes, 0x20);
    inner.write(HEAD, 0);
    bomb = { bytes, body: gzipSync(inner, { level: 9 }) };
  }
  return bomb.body;
}

/** Headers and the start of a page, then nothing, ever: the body never ends. */
export function hang(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.write('<!doctype html><html><head><title>Still loading</title></head><body><p>Almost there');
}

/** Deterministic bytes with no structure a sniffer would call text. */
export function opaqueBytes(length: number): Buffer {
  const rnd = random(7);
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(rnd() * 256);
  out[0] = 0; // a NUL early on is how sniffers tell binary from text
  return out;
}
