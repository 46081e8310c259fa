import { ApiError } from '@wap/errors';
import type { RequestHandler } from 'express';

/** The media types a body may be sent as. */
export const JSON_BODY_TYPES = ['application/json', 'application/*+json'];

/** A body that comes must say it is JSON (415 otherwise); no body at all is an empty one. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody || req.is(JSON_BODY_TYPES)) return next();
  next(
    new ApiError(
      'bad_request',
      { issues: [{ path: 'header.Content-Type', message: 'must be application/json' }] },
      { status: 415 },
    ),
  );
};

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
