import { ApiError } from '@wap/errors';
import type { RequestHandler } from 'express';

/** The media types a body may be sent as. */
export const JSON_BODY_TYPES = ['application/json', 'application/*+json'];

/** A body that comes must say it is one of `types` (415 otherwise, saying `named`); no body at all is an empty one. */
export function requireBodyOf(types: string[], named: string): RequestHandler {
  return (req, _res, next) => {
    const length = req.headers['content-length'];
    const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!hasBody || req.is(types)) return next();
    next(
      new ApiError(
        'bad_request',
        { issues: [{ path: 'header.Content-Type', message: `must be ${named}` }] },
        { status: 415 },
      ),
    );
  };
}

/** A body that comes must say it is JSON (415 otherwise); no body at all is an empty one. */
export const requireJsonBody: RequestHandler = requireBodyOf(JSON_BODY_TYPES, 'application/json');

/**
 * The fields of a parsed form, query or JSON body that are single strings a store can keep (no NUL).
 * Anything else, a repeated key (an array), an object, a number, counts as absent, so a handler that
 * reads strings answers its own "missing" error instead of passing a foreign value on.
 */
export function textFields(value: unknown): Record<string, string | undefined> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string' && !e[1].includes('\u0000')),
  );
}
