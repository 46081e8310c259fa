import { TextDecoder } from 'node:util';

/**
 * Decodes a page saved as served into a string, the way a browser would settle on a charset:
 * a byte-order mark wins, then valid UTF-8, then the declared charset, then windows-1252.
 * Valid UTF-8 beats the declaration because pages often declare latin-1 and serve UTF-8,
 * while text in a single-byte charset is almost never valid UTF-8 by accident.
 */
export function decodeHtml(bytes: Uint8Array, contentType?: string): string {
  const bom = bomEncoding(bytes);
  if (bom) return new TextDecoder(bom).decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // not clean UTF-8: fall through to the declared charset
  }
  const declared = charsetFromContentType(contentType) ?? charsetFromMeta(bytes);
  if (declared && !/^utf-?8$/i.test(declared)) {
    const decoder = decoderFor(declared);
    if (decoder) return decoder.decode(bytes);
  }
  // Declared (or assumed) UTF-8 with a few stray latin-1 bytes: keep UTF-8 unless most bytes fail.
  const lenient = new TextDecoder('utf-8').decode(bytes);
  const replaced = lenient.split('\uFFFD').length - 1;
  const high = countHighBytes(bytes);
  if (replaced * 2 < high) return lenient;
  return new TextDecoder('windows-1252').decode(bytes);
}

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function charsetFromContentType(contentType: string | undefined): string | undefined {
  return contentType?.match(/charset\s*=\s*["']?([\w.:-]+)/i)?.[1];
}

function charsetFromMeta(bytes: Uint8Array): string | undefined {
  // The HTML spec's prescan looks at the first 1024 bytes; real pages put it later, so look further.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 8192));
  return (
    head.match(/<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1] ??
    head.match(/<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i)?.[1]
  );
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label.toLowerCase());
  } catch {
    return undefined;
  }
}

function countHighBytes(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (byte >= 0x80) count++;
  return count;
}
