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
