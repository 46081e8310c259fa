// A model's answer is hostile text: it may wrap the JSON in ```json fences or
// prose, run on forever, or not be JSON at all. This finds the first complete
// JSON object in it with a string-aware brace scan and hands it to JSON.parse,
// nothing else: no eval, no lenient parser.
import { ModelError } from './types.js';

/** The most text a step's answer may be: a step is a few hundred tokens. */
export const MAX_OUTPUT_CHARS = 64 * 1024;
// Each candidate `{` costs a scan to its end: a few bound the work on text full of braces.
const MAX_CANDIDATES = 8;

/** The first complete JSON object in `text`, parsed; a `bad_output` ModelError when there is none. */
export function extractJsonObject(text: string, limit = MAX_OUTPUT_CHARS): Record<string, unknown> {
  if (text.length > limit)
    throw new ModelError(`model output is ${text.length} characters, over ${limit}`, 'bad_output');
  let from = text.indexOf('{');
  for (let tried = 0; from !== -1 && tried < MAX_CANDIDATES; tried++) {
    const end = objectEnd(text, from);
    const parsed = end === -1 ? undefined : parseObject(text.slice(from, end + 1));
    if (parsed) return parsed;
    from = text.indexOf('{', from + 1);
  }
  // The text itself stays out of the message: it may echo the page.
  throw new ModelError(`model output (${text.length} characters) holds no JSON object`, 'bad_output');
}

/** A value already parsed by the provider (a tool call's input), held to the same bounds. */
export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (!isObject(value)) throw new ModelError(`${what} is not a JSON object`, 'bad_output');
  const size = JSON.stringify(value).length;
  if (size > MAX_OUTPUT_CHARS)
    throw new ModelError(`${what} is ${size} characters, over ${MAX_OUTPUT_CHARS}`, 'bad_output');
  return value;
}

/** The index of the `}` closing the object opened at `start`; -1 when the text ends first or a bracket is mismatched. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return c === '}' ? i : -1;
    }
  }
  return -1;
}

function parseObject(candidate: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(candidate);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A provider's token count, or 0 when it sent none or nonsense. */
export const tokenCount = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

/** The key a schema that is not an object at its root is put under for providers that take only objects. */
export const ROOT_KEY = 'step';

/**
 * A step schema as providers take it: OpenAI's structured outputs and both providers' tool inputs
 * want an object at the root, so any other schema (the compact step's anyOf of actions) goes under
 * ROOT_KEY, and `unwrap` takes the answer out again.
 */
export function objectRoot(schema: Record<string, unknown>): {
  schema: Record<string, unknown>;
  unwrap(output: Record<string, unknown>): unknown;
} {
  if (schema.type === 'object') return { schema, unwrap: (output) => output };
  return {
    schema: { type: 'object', properties: { [ROOT_KEY]: schema }, required: [ROOT_KEY], additionalProperties: false },
    unwrap: (output) => output[ROOT_KEY],
  };
}
