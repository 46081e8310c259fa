import { ERROR_CODES } from './codes.js';
import type { JsonSchema } from './json-schema.js';

/** The Error object (spec part 7) as an OpenAPI 3.1 / JSON Schema 2020-12 schema. */
export function errorSchema(): JsonSchema {
  return {
    title: 'Error',
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: {
        type: 'string',
        enum: [...ERROR_CODES],
        description: 'Stable identifier of the failure; branch on this.',
      },
      message: {
        type: 'string',
        description: 'Fixed human text for the code; never parse it.',
      },
      details: {
        type: 'object',
        additionalProperties: true,
        description: 'Shape depends on `code`; see docs/errors.md.',
      },
    },
    additionalProperties: false,
  };
}
