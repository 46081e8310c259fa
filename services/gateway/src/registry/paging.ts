// What every cursor-paged listing asks and answers (the runs, sessions,
// profiles, monitors and recent calls): the same query fields, the same
// `nextCursor`, and a refused cursor named as the caller sent it.
import { ApiError, isApiError } from '@wap/errors';
import { z } from 'zod';

/** The `limit` and `cursor` query fields of a listing of `items` (`Runs`, `Sessions`...). */
export const pageQuery = (items: string, defaultLimit: number) => ({
  limit: z.coerce.number().int().min(1).max(100).default(defaultLimit).describe(`${items} per answer.`),
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe('From the previous answer’s `nextCursor`; omit to start with the newest.'),
});

/** The answer's pointer to the next page. */
export const nextCursor = z.string().nullable().describe('Pass as `cursor` for the next page; null after the last.');

/**
 * The service names a refused field as its request does (`cursor`); the caller
 * sent it in the query, so the issue says `query.cursor` as the row's own checks do.
 */
export function asQueryIssues(err: unknown): never {
  if (!isApiError(err) || err.code !== 'bad_request') throw err;
  const issues = (err.details?.issues ?? []) as { path: string; message: string }[];
  throw new ApiError('bad_request', { issues: issues.map((i) => ({ ...i, path: `query.${i.path}` })) });
}
