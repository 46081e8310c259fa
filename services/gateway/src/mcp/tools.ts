// Registry rows as MCP tools (docs/mcp.md): one tool per row served on the
// `mcp` surface, named by the row, with the row's own schemas as JSON Schema:
// the tool's arguments are the row's path parameters, query and body in one
// object; its output is the row's answer (a stream's items, gathered).
import type { Answer } from '../invoke/invoke.js';
import { toSchema } from '../registry/openapi.js';
import { answerOf, type Capability, surfacesOf } from '../registry/types.js';

type JsonSchema = Record<string, unknown>;

/** A tool as `tools/list` shows it (the MCP specification's Tool). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] } & JsonSchema;
  outputSchema: { type: 'object' } & JsonSchema;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

export interface McpTool {
  row: Capability;
  definition: ToolDefinition;
  /** The tool's arguments as the row's parts, each as the client sent it (the invoke path parses them). */
  split(args: Record<string, unknown>): { params?: unknown; query?: unknown; body?: unknown };
}

/** The most items a streamed answer (NDJSON, SSE) gathers into one tool result. */
export const MAX_STREAM_ITEMS = 1_000;

const objectSchema = (schema: JsonSchema) => ({
  properties: (schema.properties ?? {}) as Record<string, JsonSchema>,
  required: (schema.required ?? []) as string[],
});

/** The row's parts merged: path parameters, then query, then body (a name in two parts is the first part's). */
function inputOf(row: Capability): {
  schema: ToolDefinition['inputSchema'];
  parts: Map<string, 'params' | 'query' | 'body'>;
} {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parts = new Map<string, 'params' | 'query' | 'body'>();
  for (const part of ['params', 'query', 'body'] as const) {
    const schema = row.request[part];
    if (!schema) continue;
    const json = objectSchema(toSchema(schema, 'input'));
    for (const [name, property] of Object.entries(json.properties)) {
      if (parts.has(name)) continue;
      parts.set(name, part);
      properties[name] = property;
      if (json.required.includes(name)) required.push(name);
    }
  }
  return {
    schema: { type: 'object', properties, ...(required.length > 0 && { required }), additionalProperties: false },
    parts,
  };
}

function outputOf(row: Capability): ToolDefinition['outputSchema'] {
  const answer = toSchema(row.response, 'output');
  if (answerOf(row).kind === 'json' && answer.type === 'object') return answer as ToolDefinition['outputSchema'];
  if (answerOf(row).kind === 'json') return { type: 'object', properties: { result: answer }, required: ['result'] };
  return {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: answer,
        description: 'The answer’s items in order, as the REST stream sends them.',
      },
      truncated: {
        type: 'boolean',
        description: `True when the stream went on past ${MAX_STREAM_ITEMS} items or past the call’s time: page with the row’s own cursor or filters.`,
      },
    },
    required: ['items', 'truncated'],
  };
}

export function mcpTools(rows: readonly Capability[]): McpTool[] {
  return rows
    .filter((row) => surfacesOf(row).includes('mcp'))
    .map((row) => {
      const { schema, parts } = inputOf(row);
      const description = [row.description ?? row.summary, row.bills.length ? `Billed: ${row.bills.join(', ')}.` : '']
        .filter(Boolean)
        .join(' ');
      return {
        row,
        definition: {
          name: row.mcpTool,
          title: row.summary,
          description,
          inputSchema: schema,
          outputSchema: outputOf(row),
          annotations: {
            title: row.summary,
            readOnlyHint: row.method === 'get',
            destructiveHint: row.method === 'delete',
            idempotentHint: row.method === 'get' || row.method === 'delete' || row.method === 'put',
            openWorldHint: row.openWorld ?? false,
          },
        },
        split: (args) => {
          const out = { params: {}, query: {}, body: {} } as Record<
            'params' | 'query' | 'body',
            Record<string, unknown>
          >;
          for (const [name, value] of Object.entries(args)) {
            // An argument the tool does not have goes with the body (or the query), whose schema refuses it by name.
            const part = parts.get(name) ?? (row.request.body ? 'body' : row.request.query ? 'query' : 'params');
            out[part][name] = value;
          }
          // A part the row does not have stays unset, so a stray argument there is refused by name.
          return Object.fromEntries(
            (['params', 'query', 'body'] as const)
              .filter((part) => row.request[part] || Object.keys(out[part]).length > 0)
              .map((part) => [part, out[part]]),
          );
        },
      };
    });
}

/** How long a streamed answer (a followed log, a live feed) is gathered before the result goes back. */
export const MAX_STREAM_MS = 20_000;

/** An answer as the tool's structured content: an object, as MCP requires; a stream's items gathered. */
export async function structuredOf(answer: Answer, signal: AbortSignal): Promise<Record<string, unknown>> {
  if (answer.kind === 'json') {
    const body = answer.body;
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : { result: body };
  }
  if (answer.kind === 'redirect') return { location: answer.location };
  const items: unknown[] = [];
  const iterator = answer.items[Symbol.asyncIterator]();
  const deadline = Date.now() + MAX_STREAM_MS;
  let truncated = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      });
      const next = await Promise.race([iterator.next(), timedOut]).finally(() => clearTimeout(timer));
      if (next === 'timeout' || signal.aborted) {
        truncated = true;
        break;
      }
      if (next.done) break;
      items.push(next.value);
      if (items.length >= MAX_STREAM_ITEMS) {
        truncated = true;
        break;
      }
    }
  } finally {
    if (truncated) void iterator.return?.().catch(() => undefined);
  }
  return { items, truncated };
}
