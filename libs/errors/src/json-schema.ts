import { z } from 'zod';

/** A JSON Schema (draft 2020-12) document, as zod renders one. */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/**
 * A zod schema as JSON Schema 2020-12, without `$schema`, so it can sit inside
 * an OpenAPI 3.1 document or be printed by render-docs.
 */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' });
  return rest;
}
