import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { decodeContent } from './body.js';

// Small bodies are decoded on the calling thread, large ones on the pool: both must agree.
describe('decodeContent', () => {
  const small = Buffer.from('<p>a small page</p>'.repeat(100));
  // Random bytes barely compress, so this stays well above the 32 KB sync limit once gzipped.
  const large = Buffer.concat([randomBytes(96 * 1024).toString('base64url'), '<p>end</p>'].map((s) => Buffer.from(s)));

  for (const [name, body] of [
    ['small', small],
    ['large', large],
  ] as const) {
    it(`undoes gzip, deflate and br on a ${name} body`, async () => {
      assert.equal(zlib.gzipSync(body).length > 32 * 1024, name === 'large');
      assert.deepEqual(await decodeContent(zlib.gzipSync(body), 'gzip', 1 << 20), body);
      assert.deepEqual(await decodeContent(zlib.deflateSync(body), 'deflate', 1 << 20), body);
      assert.deepEqual(await decodeContent(zlib.brotliCompressSync(body), 'br', 1 << 20), body);
    });

    it(`keeps what a truncated gzip ${name} body holds, and refuses past the cap`, async () => {
      const gz = zlib.gzipSync(body);
      const partial = await decodeContent(gz.subarray(0, Math.floor(gz.length / 2)), 'gzip', 1 << 20);
      assert.ok(partial.length > 0 && body.subarray(0, partial.length).equals(partial));
      await assert.rejects(decodeContent(gz, 'gzip', 100), (e: { kind?: string }) => e.kind === 'too_large');
    });
  }
});
