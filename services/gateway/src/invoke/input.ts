import { ApiError } from '@wap/errors';
import { z } from 'zod';

/** Where no schema is declared, nothing is accepted: an unknown field is refused, never ignored. */
const NOTHING = z.strictObject({});

export interface Issue {
  path: string;
  message: string;
}

/** How deep a request's JSON may nest: no route's input comes near it, and no reader downstream recurses past it. */
export const MAX_DEPTH = 64;

/** A value met on the walk, and where: the path is spelled only for the one refused. */
interface Step {
  value: unknown;
  key: string;
  parent: Step | undefined;
  depth: number;
}

const pathOf = (step: Step): string => {
  const keys: string[] = [];
  for (let s: Step | undefined = step; s; s = s.parent) keys.push(s.key);
  return keys.reverse().join('.');
};

/**
 * The first thing no route accepts anywhere in a value: a string (or key) holding
 * a NUL (no store keeps one, and no page or header needs one), or nesting deeper
 * than MAX_DEPTH. Walked with a stack of its own, so no depth overflows ours.
 */
function refusal(value: unknown, where: string): Issue | undefined {
  const stack: Step[] = [{ value, key: where, parent: undefined, depth: 0 }];
  for (let step = stack.pop(); step; step = stack.pop()) {
    if (typeof step.value === 'string') {
      if (step.value.includes('\u0000')) return { path: pathOf(step), message: 'contains a NUL character' };
      continue;
    }
    if (typeof step.value !== 'object' || step.value === null) continue;
    if (step.depth >= MAX_DEPTH) return { path: pathOf(step), message: `nests deeper than ${MAX_DEPTH} levels` };
    const fields: [string, unknown][] = Array.isArray(step.value)
      ? step.value.map((v, i) => [String(i), v])
      : Object.entries(step.value);
    // Pushed last to first, so the first field is looked at first; only what can hold a refusal is kept.
    for (let i = fields.length - 1; i >= 0; i--) {
      const [key, field] = fields[i] as [string, unknown];
      if (key.includes('\u0000')) return { path: pathOf(step), message: 'contains a NUL character' };
      if (typeof field === 'string' || (typeof field === 'object' && field !== null))
        stack.push({ value: field, key, parent: step, depth: step.depth + 1 });
    }
  }
  return undefined;
}

/**
 * One part of a request (`path`, `query` or `body`) read with its schema: the
 * value as parsed, or `bad_request` naming each field that is wrong or unknown.
 */
export function parsePart<S extends z.ZodType>(schema: S | undefined, value: unknown, where: string): z.infer<S> {
  const refused = refusal(value, where);
  if (refused) throw new ApiError('bad_request', { issues: [refused] });
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
