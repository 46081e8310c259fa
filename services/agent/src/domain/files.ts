// A run's files: the names they may have, and their bytes at rest, sealed
// under the run (libs/sealed), so a blob moved to another run, or read
// without the fleet's key, opens nothing.
import { randomBytes } from 'node:crypto';
import { seal, unseal } from '@wap/sealed';

const PURPOSE = 'wap agent file v1';

/** A handle the model and the caller name a file by: random, never a path. */
export const newFileHandle = (): string => `file_${randomBytes(12).toString('base64url')}`;

export const sealFile = (key: string, runId: string, bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  new Uint8Array(seal(key, PURPOSE, runId, Buffer.from(bytes)));

export const unsealFile = (key: string, runId: string, sealed: Uint8Array): Buffer =>
  unseal(key, PURPOSE, runId, Buffer.from(sealed));

/** The longest file name, in UTF-16 units (what file systems and browsers take). */
export const MAX_FILE_NAME = 255;

/**
 * Why `name` (trimmed) is no file name, or undefined when it is one. A name is shown to the
 * model and set on the page's File, so it is one plain line that reads as it is: not empty, not
 * `.` or `..`, no path (`/`, `\`), no control characters, no format characters (Unicode Cf:
 * U+202E would make `invoice\u202Egpj.exe` read as `invoiceexe.jpg`, a zero-width space would
 * hide in it), no line or paragraph separators, no lone surrogates.
 */
export function fileNameProblem(name: string): string | undefined {
  if (!name) return 'empty';
  if (name.length > MAX_FILE_NAME) return `longer than ${MAX_FILE_NAME} characters`;
  if (name === '.' || name === '..') return 'not a file name';
  if (/[/\\]/.test(name)) return 'a path: a file name has no / or \\';
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(name)) return 'has control characters or line breaks';
  if (/\p{Cf}/u.test(name)) return 'has invisible format characters (such as bidi overrides)';
  if (/\p{Cs}/u.test(name)) return 'is not valid Unicode';
  return undefined;
}
