// Keyset paging for listings served over gRPC: newest first by (time, id),
// the cursor naming the last row of a page, opaque to clients; and the
// limit's bounds. A cursor this listing did not give is bad_request.
import { ApiError } from '@wap/errors';
import { isUuid } from './ids.js';

export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 20;

const invalid = (path: string, message: string): never => {
  throw new ApiError('bad_request', { issues: [{ path, message }] });
};

/** The cursor after the row at (`at`, `id`). */
export const encodeCursor = (at: Date, id: string): string =>
  Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');

/** The (time, id) a cursor names; bad_request for anything else. */
export function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [iso, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const at = new Date(iso);
    if (isUuid(id) && !Number.isNaN(at.getTime())) return { at, id };
  } catch {}
  return invalid('cursor', 'not a cursor this listing gave');
}

/** A request's limit: the default for 0, bad_request outside 1..MAX_PAGE_LIMIT. */
export function pageLimit(asked: number): number {
  const limit = asked === 0 ? DEFAULT_PAGE_LIMIT : asked;
  if (limit < 1 || limit > MAX_PAGE_LIMIT) invalid('limit', `between 1 and ${MAX_PAGE_LIMIT}`);
  return limit;
}

/** A page from rows fetched with one more than `limit`, and the cursor after it ('' after the last). */
export function pageOf<T>(rows: readonly T[], limit: number, key: (row: T) => { at: Date; id: string }) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const k = last && key(last);
  return { page, nextCursor: rows.length > limit && k ? encodeCursor(k.at, k.id) : '' };
}
