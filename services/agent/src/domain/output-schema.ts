// What a caller's output schema may be for a model to answer in it: a finite
// shape. A schema that refers to itself ($ref recursion) has no end a model
// can write out, one nested past MAX_SCHEMA_DEPTH or with more than
// MAX_SCHEMA_PROPERTIES properties in all is past what structured-output APIs
// take (OpenAI's strict mode stops at the same depth): a run given one would
// spend its cap on answers that never fit. The schema is walked as the model
// would see it, every local $ref followed, with a budget of nodes, so a
// schema that reuses definitions many times over cannot hide its size.
import type { JsonSchema } from '../model/types.js';

export const MAX_SCHEMA_DEPTH = 10;
export const MAX_SCHEMA_PROPERTIES = 200;
/** Subschemas walked at most, $refs followed: well past any schema within the two limits above. */
export const MAX_SCHEMA_NODES = 2_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords holding subschemas of the values one level down: one, a list, or a map of them. */
const DOWN_ONE = ['additionalProperties', 'items', 'contains', 'unevaluatedItems', 'unevaluatedProperties'];
const DOWN_LIST = ['prefixItems', 'items'];
const DOWN_MAP = ['properties', 'patternProperties'];
/** Keywords holding subschemas of the same value. */
const SAME_ONE = ['not', 'if', 'then', 'else', 'propertyNames'];
const SAME_LIST = ['anyOf', 'oneOf', 'allOf'];
const SAME_MAP = ['dependentSchemas'];

/** Each subschema of `node` with its keyword's place and whether it is a level down. */
function* subschemas(node: Record<string, unknown>): Generator<[unknown, string, boolean]> {
  for (const key of [...DOWN_ONE, ...SAME_ONE]) if (isObject(node[key])) yield [node[key], key, DOWN_ONE.includes(key)];
  for (const key of [...DOWN_LIST, ...SAME_LIST]) {
    const list = node[key];
    if (Array.isArray(list)) for (const [i, sub] of list.entries()) yield [sub, `${key}/${i}`, DOWN_LIST.includes(key)];
  }
  for (const key of [...DOWN_MAP, ...SAME_MAP]) {
    const map = node[key];
    if (!isObject(map)) continue;
    for (const [name, sub] of Object.entries(map)) yield [sub, `${key}/${pointerToken(name)}`, DOWN_MAP.includes(key)];
  }
}

/** A name as a JSON pointer writes it. */
const pointerToken = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');

/** The subschema a local JSON pointer (`#`, `#/$defs/x`) names, and its place; undefined when there is none. */
function resolve(root: JsonSchema, ref: string): { node: unknown; at: string } | undefined {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  const names: string[] = [];
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    let name: string;
    try {
      name = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(name)) node = node[Number(name)];
    else if (isObject(node) && Object.hasOwn(node, name)) node = node[name];
    else return undefined;
    names.push(name);
  }
  return { node, at: `#${names.map((n) => `/${pointerToken(n)}`).join('')}` };
}

/**
 * Why a model cannot answer in `schema`, in words for the caller, or undefined when it can:
 * a $ref to a schema it is part of (however many $refs away), a $ref that is not a local
 * pointer or names nothing, a value inside more than MAX_SCHEMA_DEPTH objects and arrays, more
 * than MAX_SCHEMA_PROPERTIES properties in all, more than MAX_SCHEMA_NODES subschemas.
 */
export function outputSchemaProblem(schema: JsonSchema): string | undefined {
  let properties = 0;
  let nodes = 0;
  /** The places of the schemas being walked, outermost first: a $ref to one of them never ends. */
  const path: string[] = [];

  const walk = (node: unknown, at: string, depth: number): string | undefined => {
    if (!isObject(node)) return undefined; // true, false: any value, no value
    if (++nodes > MAX_SCHEMA_NODES) return `more than ${MAX_SCHEMA_NODES} subschemas, $refs followed`;
    if (depth > MAX_SCHEMA_DEPTH) return `nested deeper than ${MAX_SCHEMA_DEPTH} levels (at ${at})`;
    if ('$dynamicRef' in node || '$recursiveRef' in node) return `a recursive reference (at ${at})`;
    if (isObject(node.properties)) properties += Object.keys(node.properties).length;
    if (properties > MAX_SCHEMA_PROPERTIES) return `more than ${MAX_SCHEMA_PROPERTIES} properties in all`;
    path.push(at);
    try {
      if (node.$ref !== undefined) {
        const ref = String(node.$ref).slice(0, 100);
        const target = typeof node.$ref === 'string' ? resolve(schema, node.$ref) : undefined;
        if (!target) return `a $ref that is not a local JSON pointer to a schema (${ref} at ${at})`;
        // Every walk that never ends comes back to a place it is in, through a $ref.
        if (path.includes(target.at)) return `a $ref to a schema it is part of, which never ends (${ref} at ${at})`;
        const problem = walk(target.node, target.at, depth);
        if (problem) return problem;
      }
      for (const [sub, key, down] of subschemas(node)) {
        const problem = walk(sub, `${at}/${key}`, down ? depth + 1 : depth);
        if (problem) return problem;
      }
      return undefined;
    } finally {
      path.pop();
    }
  };
  return walk(schema, '#', 0);
}
