// A caller's output schema in the strict form structured-output APIs demand
// (OpenAI's strict mode: every object closed, every property required), and
// the answer brought back to the caller's form. An optional property becomes
// required but nullable; a null the model gives for it is dropped again.
import type { JsonSchema } from '../model/types.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The strict form of `schema`; the caller's schema is left as it is. `nullable: 'all'` makes the
 * required properties nullable too: an extraction answers null for what the page does not hold
 * rather than make a value up to fill a required field.
 */
export function strictSchema(schema: JsonSchema, nullable: 'optional' | 'all' = 'optional'): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (isObject(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const properties: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(schema.properties)) {
      const strict = isObject(sub) ? strictSchema(sub, nullable) : sub;
      properties[name] = required.has(name) && nullable === 'optional' ? strict : { anyOf: [strict, { type: 'null' }] };
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (isObject(schema.items)) out.items = strictSchema(schema.items, nullable);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((s) => (isObject(s) ? strictSchema(s, nullable) : s));
  }
  return out;
}

/** The answer with the nulls the strict form forced on the caller's optional properties taken out. */
export function looseAnswer(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value))
    return isObject(schema.items) ? value.map((v) => looseAnswer(schema.items as JsonSchema, v)) : value;
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === null && !required.has(name)) continue;
    const sub = schema.properties[name];
    out[name] = isObject(sub) ? looseAnswer(sub, v) : v;
  }
  return out;
}
