/**
 * The subset of JSON Schema (draft 2020-12) the catalogue uses. Kept to what
 * OpenAPI 3.1 renders and what render-docs can print, so a details shape never
 * needs a schema feature no tool downstream understands.
 */
export interface JsonSchema {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly title?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly enum?: readonly string[];
  readonly oneOf?: readonly JsonSchema[];
  readonly minimum?: number;
  readonly format?: string;
}

export function str(description?: string, format?: string): JsonSchema {
  return { type: 'string', ...(description && { description }), ...(format && { format }) };
}

export function int(description?: string): JsonSchema {
  return { type: 'integer', minimum: 0, ...(description && { description }) };
}

export function oneOfValues(values: readonly string[], description?: string): JsonSchema {
  return { type: 'string', enum: values, ...(description && { description }) };
}

export function arrayOf(items: JsonSchema, description?: string): JsonSchema {
  return { type: 'array', items, ...(description && { description }) };
}

/**
 * A closed details object. Closed on purpose: a field a server adds without
 * updating the catalogue would be an undocumented contract.
 */
export function details(
  required: Readonly<Record<string, JsonSchema>>,
  optional: Readonly<Record<string, JsonSchema>> = {},
): JsonSchema {
  const names = Object.keys(required);
  return {
    type: 'object',
    properties: { ...required, ...optional },
    ...(names.length > 0 && { required: names }),
    additionalProperties: false,
  };
}

/** Codes whose `details` is always absent or empty. */
export const noDetails: JsonSchema = details({});

/** Validation problems, shared by every code that reports them. */
export const issueList: JsonSchema = arrayOf(
  details({ path: str('Dotted path of the offending field; empty for the whole body.'), message: str() }),
);

export const retryAfterSeconds: JsonSchema = int('Seconds after which a retry may succeed; also sent as Retry-After.');
