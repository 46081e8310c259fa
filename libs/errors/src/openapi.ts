import { z } from 'zod';
import { ERROR_CODES } from './codes.js';
import { type JsonSchema, toJsonSchema } from './json-schema.js';

/** The Error object (docs/errors.md). */
export const errorObject = z
  .strictObject({
    code: z.enum(ERROR_CODES).describe('Stable identifier of the failure; branch on this.'),
    message: z.string().describe('Fixed human text for the code; never parse it.'),
    details: z.record(z.string(), z.unknown()).optional().describe('Shape depends on `code`; see docs/errors.md.'),
  })
  .meta({ title: 'Error' });

/** The Error object as an OpenAPI 3.1 / JSON Schema 2020-12 schema. */
export function errorSchema(): JsonSchema {
  return toJsonSchema(errorObject);
}
