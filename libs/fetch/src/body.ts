import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { FetchFailure } from './failure.js';

/** What this engine asks servers for; zstd only where this Node has it. */
export const ACCEPT_ENCODING =
  typeof zlib.zstdDecompress === 'function' ? 'gzip, deflate, br, zstd' : 'gzip, deflate, br';

type Decoder = (buf: Buffer, maxOutputLength: number) => Promise<Buffer>;
type ZlibOptions = { maxOutputLength: number; finishFlush?: number };
type ZlibSync = (buf: Buffer, opts: ZlibOptions) => Buffer;
type ZlibAsync = (buf: Buffer, opts: ZlibOptions) => Promise<Buffer>;

/**
 * Bodies up to this size (compressed) are decoded on the calling thread: a page of a
 * few tens of KB inflates in a fraction of a millisecond, less than the thread pool's
 * round trips per 16 KB of output cost the event loop. Larger ones go to the pool.
 */
const SYNC_DECODE_MAX = 32 * 1024;

const decoder =
  (sync: ZlibSync, async: ZlibAsync, lenient: boolean): Decoder =>
  async (buf, maxOutputLength) => {
    // Sync flush lets a truncated gzip or deflate body yield what it holds, as browsers do.
    const opts = lenient ? { maxOutputLength, finishFlush: zlib.constants.Z_SYNC_FLUSH } : { maxOutputLength };
    return buf.length <= SYNC_DECODE_MAX ? sync(buf, opts) : async(buf, opts);
  };
const promised = (fn: unknown) =>
  promisify(fn as (b: Buffer, o: object, cb: () => void) => void) as unknown as ZlibAsync;

const gunzip = decoder(zlib.gunzipSync, promised(zlib.gunzip), true);
const inflate = decoder(zlib.inflateSync, promised(zlib.inflate), true);
const inflateRaw = decoder(zlib.inflateRawSync, promised(zlib.inflateRaw), true);
const brotli = decoder(zlib.brotliDecompressSync, promised(zlib.brotliDecompress), false);
const zstd =
  typeof zlib.zstdDecompress === 'function'
    ? decoder(zlib.zstdDecompressSync, promised(zlib.zstdDecompress), false)
    : undefined;

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
