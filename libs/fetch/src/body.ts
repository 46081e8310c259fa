import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { FetchFailure } from './failure.js';

/** What this engine asks servers for; zstd only where this Node has it. */
export const ACCEPT_ENCODING =
  typeof zlib.zstdDecompress === 'function' ? 'gzip, deflate, br, zstd' : 'gzip, deflate, br';

type Decoder = (buf: Buffer, maxOutputLength: number) => Promise<Buffer>;
type ZlibCall = (buf: Buffer, opts: object) => Promise<Buffer>;

// Sync flush lets a truncated gzip or deflate body yield what it holds, as browsers do.
const lenient =
  (fn: ZlibCall): Decoder =>
  (buf, maxOutputLength) =>
    fn(buf, { maxOutputLength, finishFlush: zlib.constants.Z_SYNC_FLUSH });
const strict =
  (fn: ZlibCall): Decoder =>
  (buf, maxOutputLength) =>
    fn(buf, { maxOutputLength });

const gunzip = lenient(promisify(zlib.gunzip) as ZlibCall);
const inflate = lenient(promisify(zlib.inflate) as ZlibCall);
const inflateRaw = lenient(promisify(zlib.inflateRaw) as ZlibCall);
const brotli = strict(promisify(zlib.brotliDecompress) as ZlibCall);
const zstd = typeof zlib.zstdDecompress === 'function' ? strict(promisify(zlib.zstdDecompress) as ZlibCall) : undefined;

/**
 * Reads the whole body, giving up as soon as more than `maxBytes` arrive:
 * destroying the stream aborts the download instead of draining it.
 */
export async function readCapped(body: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Undoes Content-Encoding (listed in the order applied, so undone in
 * reverse). The output cap applies too: a 50 KB gzip can inflate to gigabytes.
 */
export async function decodeContent(
  raw: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<Buffer> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  let buf = raw;
  for (const coding of codings) {
    const decoder = decoderFor(coding, buf);
    if (!decoder) throw new FetchFailure('decode', `unsupported content-encoding: ${coding}`);
    if (buf.length === 0) continue;
    try {
      buf = await decoder(buf, maxBytes);
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
      throw new FetchFailure('decode', `could not decode ${coding} body`, { cause: err });
    }
  }
  return buf;
}

function decoderFor(coding: string, buf: Buffer): Decoder | undefined {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return gunzip;
    case 'deflate':
      // RFC 9110 deflate is zlib-wrapped, but many servers send raw deflate; the header tells them apart.
      return isZlibHeader(buf) ? inflate : inflateRaw;
    case 'br':
      return brotli;
    case 'zstd':
      return zstd;
    default:
      return undefined;
  }
}

function isZlibHeader(buf: Buffer): boolean {
  const [a, b] = [buf[0], buf[1]];
  return a !== undefined && b !== undefined && (a & 0x0f) === 8 && ((a << 8) | b) % 31 === 0;
}

export function tooLarge(maxBytes: number): FetchFailure {
  return new FetchFailure('too_large', `body larger than ${maxBytes} bytes`);
}
