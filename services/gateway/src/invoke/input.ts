import { ApiError } from '@wap/errors';
import { z } from 'zod';

/** Where no schema is declared, nothing is accepted: an unknown field is refused, never ignored. */
const NOTHING = z.strictObject({});

export interface Issue {
  path: string;
  message: string;
}

/** The path of the first string (or key) holding a NUL: no store keeps one, and no page or header needs one. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, field] of Object.entries(value)) {
      if (key.includes('\u0000')) return path;
      const found = nulPath(field, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * One part of a request (`path`, `query` or `body`) read with its schema: the
 * value as parsed, or `bad_request` naming each field that is wrong or unknown.
 */
export function parsePart<S extends z.ZodType>(schema: S | undefined, value: unknown, where: string): z.infer<S> {
  const nul = nulPath(value, where);
  if (nul) throw new ApiError('bad_request', { issues: [{ path: nul, message: 'contains a NUL character' }] });
  // No body at all is an empty one; a body of `null` is a value, and not an object.
  const result = (schema ?? NOTHING).safeParse(value === undefined ? {} : value);
  if (result.success) return result.data as z.infer<S>;
  const issues: Issue[] = result.error.issues.flatMap((issue) => {
    const at = [where, ...issue.path.map(String)].join('.');
    return issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: `${at}.${key}`, message: 'is not a field of this route' }))
      : [{ path: at, message: issue.message }];
  });
  throw new ApiError('bad_request', { issues });
}
