import { isUtf8 } from 'node:buffer';
import chardet from 'chardet';
import iconv from 'iconv-lite';

/** Where the charset came from, strongest first. */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'xml' | 'utf8' | 'detected' | 'default';

// WHATWG Encoding labels that name a different decoder than iconv-lite would pick:
// browsers read Latin-1 and ASCII labels as windows-1252, Shift_JIS as Microsoft's superset.
const ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252',
  iso8859_1: 'windows-1252',
  'iso-8859-1:1987': 'windows-1252',
  latin1: 'windows-1252',
  l1: 'windows-1252',
  ascii: 'windows-1252',
  'us-ascii': 'windows-1252',
  'ansi_x3.4-1968': 'windows-1252',
  cp1252: 'windows-1252',
  'x-cp1252': 'windows-1252',
  shift_jis: 'windows-31j',
  'shift-jis': 'windows-31j',
  sjis: 'windows-31j',
  'x-sjis': 'windows-31j',
  ms_kanji: 'windows-31j',
  'iso-8859-9': 'windows-1254',
  'tis-620': 'windows-874',
  gb2312: 'gbk',
  'x-gbk': 'gbk',
  'ks_c_5601-1987': 'euc-kr',
  utf8: 'utf-8',
  'unicode-1-1-utf-8': 'utf-8',
};

/** A label iconv-lite can decode, or undefined for an unknown one (which is then ignored, as browsers do). */
export function normaliseCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const key = label
    .trim()
    .replace(/^["']|["']$/g, '')
    .toLowerCase();
  const name = ALIASES[key] ?? key;
  return name !== '' && iconv.encodingExists(name) ? name : undefined;
}

export function charsetParam(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType)?.[2];
}

const META = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i;
const XML_DECL = /^<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/;

/**
 * The charset to decode with, in the order browsers use: byte-order mark,
 * the Content-Type header, a <meta> in the first 1024 bytes (or the XML
 * declaration), then content sniffing: valid UTF-8 is UTF-8, anything else
 * goes to chardet's statistics.
 */
export function detectCharset(bytes: Buffer, contentType: string): { charset: string; source: CharsetSource } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', source: 'bom' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: 'utf-16be', source: 'bom' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: 'utf-16le', source: 'bom' };

  const header = normaliseCharset(charsetParam(contentType));
  if (header) return { charset: header, source: 'header' };

  const head = bytes.subarray(0, 1024).toString('latin1');
  const xml = normaliseCharset(XML_DECL.exec(head)?.[1]);
  if (xml) return { charset: xml, source: 'xml' };
  // A <meta> cannot really say UTF-16: the bytes it is written in already proved it ASCII-compatible.
  const meta = normaliseCharset(META.exec(head)?.[1]);
  if (meta) return { charset: meta.startsWith('utf-16') ? 'utf-8' : meta, source: 'meta' };

  if (isUtf8(bytes)) return { charset: 'utf-8', source: 'utf8' };
  const guessed = normaliseCharset(chardet.detect(bytes.subarray(0, 64 * 1024)) ?? undefined);
  if (guessed) return { charset: guessed, source: 'detected' };
  return { charset: 'windows-1252', source: 'default' };
}

export function decodeText(bytes: Buffer, charset: string): string {
  return iconv.decode(bytes, charset, { stripBOM: true });
}

const TEXT_TYPES =
  /^(text\/|application\/(xhtml\+xml|xml|json|ld\+json|javascript|ecmascript|rss\+xml|atom\+xml)$)|\+(xml|json)$/;

/** The media type without parameters, lower-cased; '' when there is none. */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * Whether a body reads as text. A declared type decides (octet-stream is
 * binary); with none the bytes do: a NUL or a known binary signature means binary.
 */
export function isTextual(contentType: string, bytes: Buffer): boolean {
  const type = mediaType(contentType);
  if (type !== '') return TEXT_TYPES.test(type);
  const head = bytes.subarray(0, 1024);
  return !head.includes(0) && !SIGNATURES.some((sig) => head.subarray(0, sig.length).equals(sig));
}

const SIGNATURES = [
  Buffer.from('%PDF-'),
  Buffer.from([0x89, 0x50, 0x4e, 0x47]),
  Buffer.from([0xff, 0xd8, 0xff]),
  Buffer.from('GIF8'),
  Buffer.from('PK\x03\x04'),
  Buffer.from([0x1f, 0x8b]),
  Buffer.from('RIFF'),
];
