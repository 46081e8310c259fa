// multipart/form-data for the rows whose body carries files (registry/types.ts, FileUpload):
// read as a stream by busboy within the same limits as the row's JSON, then handed to the
// invoke path as the JSON body it stands for (each file's bytes as base64), so the row's one
// schema reads both forms and the handler cannot tell them apart.
import { ApiError } from '@wap/errors';
import busboy from 'busboy';
import type { RequestHandler } from 'express';
import type { FileUpload } from '../registry/types.js';

/** The part that holds the body's other fields, as JSON. */
export const BODY_PART = 'body';
export const MULTIPART_BODY_TYPES = ['multipart/form-data'];

const issue = (path: string, message: string, status?: number) =>
  new ApiError('bad_request', { issues: [{ path, message }] }, status ? { status } : undefined);

const tooLarge = (limit: number) => new ApiError('bad_request', { limit }, { status: 413 });

interface Part {
  name: string;
  mimeType: string;
  chunks: Buffer[];
}

/** The JSON body a multipart body stands for; an ApiError when it cannot stand for one. */
function bodyOf(
  upload: FileUpload,
  bodyPart: string,
  json: unknown,
  parts: Part[],
): Record<string, unknown> | ApiError {
  if (json !== undefined && (typeof json !== 'object' || json === null || Array.isArray(json)))
    return issue(`body.${bodyPart}`, 'must be a JSON object');
  const fields = (json ?? {}) as Record<string, unknown>;
  const file = (p: Part) => ({ name: p.name, mimeType: p.mimeType, data: Buffer.concat(p.chunks).toString('base64') });
  if (upload.field === 'files') {
    if ('files' in fields) return issue('body.files', `comes as parts named files, not in the ${bodyPart} part`);
    return parts.length > 0 ? { ...fields, files: parts.map(file) } : fields;
  }
  if ('data' in fields) return issue('body.data', `comes as the part named file, not in the ${bodyPart} part`);
  const [only] = parts;
  if (!only) return issue('body.file', 'a part named file is required');
  // The body part may name the file otherwise than its part does.
  return { ...file(only), ...fields };
}

/**
 * Reads a multipart/form-data body of a row with files into `req.body`; any other body passes
 * on untouched. `limit` bounds the bytes read, as the JSON parser's does; `fieldBytes` the body
 * part, named `bodyPart` (Firecrawl's v2 parse names it `options`). What breaks a limit stops the read: 413 for the body or its JSON part, 400 naming the
 * part for a file too large or one too many.
 */
export function multipartBody(
  upload: FileUpload,
  limit: number,
  fieldBytes: number,
  bodyPart: string = BODY_PART,
): RequestHandler {
  return (req, _res, next) => {
    if (!req.is(MULTIPART_BODY_TYPES)) return next();
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding !== 'identity')
      return next(issue('header.Content-Encoding', 'a multipart body is sent as it is, without one', 415));
    if (Number(req.headers['content-length']) > limit) return next(tooLarge(limit));
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // The name as the client wrote it: a path in it is refused, not cut to its last segment.
        preservePath: true,
        defParamCharset: 'utf8',
        // busboy calls a part that reaches its size too large: one byte more is what is.
        limits: { fileSize: upload.fileBytes + 1, files: upload.most, fields: 1, fieldSize: fieldBytes + 1 },
      });
    } catch {
      return next(issue('header.Content-Type', 'multipart/form-data with a boundary'));
    }
    const parts: Part[] = [];
    let json: unknown;
    let read = 0;
    let fileBytes = 0;
    let settled = false;
    const fail = (error: ApiError) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => {});
      // What the client still sends is read and dropped, so it can read the answer.
      req.resume();
      next(error);
    };

    req.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > limit) fail(tooLarge(limit));
    });
    parser.on('file', (name, stream, info) => {
      if (name !== upload.field) {
        stream.resume();
        return fail(issue(`body.${name.slice(0, 100)}`, `is not a part of this route (${upload.field}, ${bodyPart})`));
      }
      const at = upload.field === 'files' ? `body.files.${parts.length}` : 'body.file';
      const part: Part = { name: info.filename ?? '', mimeType: info.mimeType, chunks: [] };
      parts.push(part);
      let size = 0;
      const tooLargeFile = () => fail(issue(`${at}.data`, `larger than ${upload.fileBytes} bytes`));
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        fileBytes += chunk.length;
        part.chunks.push(chunk);
        if (size > upload.fileBytes) tooLargeFile();
        else if (fileBytes > upload.totalBytes)
          fail(issue(`body.${upload.field}`, `more than ${upload.totalBytes} bytes of files in all`));
      });
      stream.on('limit', tooLargeFile);
    });
    parser.on('field', (name, value, info) => {
      if (name !== bodyPart)
        return fail(issue(`body.${name.slice(0, 100)}`, `is not a part of this route (${upload.field}, ${bodyPart})`));
      if (info.valueTruncated) return fail(tooLarge(limit));
      try {
        json = JSON.parse(value);
      } catch {
        fail(issue(`body.${bodyPart}`, 'is not valid JSON'));
      }
    });
    parser.on('filesLimit', () => fail(issue(`body.${upload.field}`, `at most ${upload.most} files`)));
    parser.on('fieldsLimit', () => fail(issue(`body.${bodyPart}`, 'given once at most')));
    parser.on('error', () => fail(issue('body', 'is not valid multipart/form-data')));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      const body = bodyOf(upload, bodyPart, json, parts);
      if (body instanceof ApiError) return next(body);
      req.body = body;
      next();
    });
    req.pipe(parser);
  };
}
