// A DOCX or XLSX is a zip; a zip can say an entry is a few kilobytes and
// unpack to gigabytes. Before mammoth or ExcelJS open one, every entry is
// unpacked here once, each bounded by what the directory declares and all of
// them by the document's limit: an entry that lies about its size, or a
// document that would unpack past the limit, is refused before either
// library allocates anything. Both libraries read the same central directory
// and sizes, so what they unpack is what was measured here.
import { inflateRawSync } from 'node:zlib';

export class ZipRefusal extends Error {
  constructor(
    readonly reason: 'malformed' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Where the entry's local header starts. */
  offset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_ENTRIES = 10_000;

/** The central directory's entries; ZIP64 archives are refused (no office document needs one). */
export function zipEntries(buf: Buffer): ZipEntry[] {
  // The end record is in the last 64 KB + 22 bytes (its comment is at most 64 KB).
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--)
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new ZipRefusal('malformed', 'not a zip archive (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  const dirSize = buf.readUInt32LE(eocd + 12);
  const dirOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || dirOffset === 0xffffffff) throw new ZipRefusal('malformed', 'ZIP64 archives are not read');
  if (count > MAX_ENTRIES) throw new ZipRefusal('too_large', `more than ${MAX_ENTRIES} entries`);
  if (dirOffset + dirSize > eocd) throw new ZipRefusal('malformed', 'central directory out of bounds');
  const entries: ZipEntry[] = [];
  let at = dirOffset;
  for (let n = 0; n < count; n++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== CENTRAL)
      throw new ZipRefusal('malformed', 'broken central directory');
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    entries.push({
      method: buf.readUInt16LE(at + 10),
      compressedSize: buf.readUInt32LE(at + 20),
      size: buf.readUInt32LE(at + 24),
      name: buf.toString('utf8', at + 46, at + 46 + nameLength),
      offset: buf.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The entry's bytes as stored, located through its local header. */
function stored(buf: Buffer, entry: ZipEntry): Buffer {
  if (entry.offset + 30 > buf.length || buf.readUInt32LE(entry.offset) !== LOCAL)
    throw new ZipRefusal('malformed', `broken local header for ${entry.name}`);
  const start = entry.offset + 30 + buf.readUInt16LE(entry.offset + 26) + buf.readUInt16LE(entry.offset + 28);
  if (start + entry.compressedSize > buf.length) throw new ZipRefusal('malformed', `${entry.name} is cut short`);
  return buf.subarray(start, start + entry.compressedSize);
}

/** An entry unpacked, never past its declared size. */
export function unpack(buf: Buffer, entry: ZipEntry): Buffer {
  const data = stored(buf, entry);
  if (entry.method === 0) return data;
  if (entry.method !== 8) throw new ZipRefusal('malformed', `${entry.name}: compression method ${entry.method}`);
  try {
    // One byte more than declared: an entry that fills it unpacks to more than it says.
    const out = inflateRawSync(data, { maxOutputLength: entry.size + 1 });
    if (out.length !== entry.size) throw new ZipRefusal('too_large', `${entry.name} is not the size it declares`);
    return out;
  } catch (err) {
    if (err instanceof ZipRefusal) throw err;
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new ZipRefusal('too_large', `${entry.name} unpacks to more than it declares`);
    throw new ZipRefusal('malformed', `${entry.name} does not unpack`);
  }
}

/**
 * Checks the whole archive: every entry unpacks to exactly its declared size,
 * and the sizes together stay within `maxBytes`. Answers the entries.
 */
export function checkZip(buf: Buffer, maxBytes: number): ZipEntry[] {
  const entries = zipEntries(buf);
  const declared = entries.reduce((n, e) => n + e.size, 0);
  if (declared > maxBytes) throw new ZipRefusal('too_large', `unpacks to ${declared} bytes, more than ${maxBytes}`);
  for (const entry of entries) if (!entry.name.endsWith('/')) unpack(buf, entry);
  return entries;
}

/** One entry's text by name, or undefined when the archive has none. */
export function entryText(buf: Buffer, entries: ZipEntry[], name: string): string | undefined {
  const entry = entries.find((e) => e.name === name);
  return entry ? unpack(buf, entry).toString('utf8') : undefined;
}
