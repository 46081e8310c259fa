import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS, type ErrorCode } from '@wap/errors';
import type { z } from 'zod';
import { buildRegistry } from './index.js';
import { successStatus, toSchema } from './openapi.js';
import { type Capability, COMMON_ERRORS, type RouteAlias } from './types.js';

/** docs/api.md; the part between the markers is generated, the prose around it is not. */
export const API_DOC_PATH = join(__dirname, '../../../../docs/api.md');
export const BEGIN =
  '<!-- routes:begin (generated from the registry by `node services/gateway/dist/registry/render-docs.js`; do not edit by hand) -->';
export const END = '<!-- routes:end -->';

interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  format?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

const LARGEST = Number.MAX_SAFE_INTEGER;

function range(min: number | undefined, max: number | undefined, unit = ''): string {
  // zod bounds every integer to the safe range; only tighter bounds say something.
  if (max === LARGEST) max = undefined;
  if (min === -LARGEST) min = undefined;
  if (min === undefined && max === undefined) return '';
  if (max === undefined) return ` ≥ ${min}${unit}`;
  if (min === undefined || min === 0) return unit ? ` ≤ ${max}${unit}` : ` ${min ?? 0}–${max}`;
  return ` ${min}–${max}${unit}`;
}

/** A TypeScript-like one-line type, with its bounds. */
function typeOf(s: JsonSchema): string {
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const tags = union.map((v) => v.properties?.type?.const).filter((t) => t !== undefined);
    if (tags.length === union.length) return `object (\`type\`: ${tags.map((t) => JSON.stringify(t)).join(' \\| ')})`;
    return union.map(typeOf).join(' \\| ');
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.type)) return s.type.map((type) => typeOf({ ...s, type })).join(' \\| ');
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  switch (s.type) {
    case 'array': {
      const item = s.items ? typeOf(s.items) : 'any';
      const bare = /^[\w"@]+$/.test(item) || item.startsWith('object');
      return `${bare ? item : `(${item})`}[]${range(s.minItems, s.maxItems, ' items')}`;
    }
    case 'object':
      if (!s.properties && typeof s.additionalProperties === 'object') {
        return `map of ${typeOf(s.additionalProperties)}`;
      }
      return 'object';
    case 'string':
      return `string${s.format ? ` (${s.format})` : ''}${range(s.minLength, s.maxLength, ' chars')}`;
    case 'integer':
    case 'number':
      return `${s.type}${range(s.minimum, s.maximum)}`;
    case undefined:
      return 'any';
    default:
      return s.type;
  }
}

/** The object a property holds, if any: itself, the non-null side of a nullable, or its array's items. */
function nested(s: JsonSchema): { schema: JsonSchema; suffix: string } | undefined {
  if (s.properties) return { schema: s, suffix: '.' };
  const nonNull = (s.anyOf ?? []).filter((v) => v.type !== 'null');
  if (nonNull.length === 1 && nonNull[0]?.properties) return { schema: nonNull[0], suffix: '.' };
  if (s.type === 'array' && s.items?.properties) return { schema: s.items, suffix: '[].' };
  return undefined;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** One table row per field, nested objects flattened with dotted names (`crawl.usage.credits`). */
function fieldRows(schema: JsonSchema, withDefault: boolean, prefix = ''): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, s]) => {
    const field = `\`${prefix}${name}\`${required.has(name) || s.default !== undefined ? '' : '?'}`;
    const cells = [field, typeOf(s)];
    if (withDefault) cells.push(s.default === undefined ? '' : `\`${JSON.stringify(s.default)}\``);
    cells.push(cell(s.description ?? ''));
    const inner = nested(s);
    return [
      `| ${cells.join(' | ')} |`,
      ...(inner ? fieldRows(inner.schema, withDefault, `${prefix}${name}${inner.suffix}`) : []),
    ];
  });
}

function fieldTable(title: string, schema: z.ZodType, io: 'input' | 'output'): string[] {
  const json = toSchema(schema, io) as JsonSchema;
  const input = io === 'input';
  return [
    `${title}:`,
    '',
    input ? '| Field | Type | Default | Meaning |' : '| Field | Type | Meaning |',
    input ? '|---|---|---|---|' : '|---|---|---|',
    ...fieldRows(json, input),
    '',
  ];
}

/** Errors the route can answer beyond COMMON_ERRORS, by status. */
function routeErrors(row: Capability): ErrorCode[] {
  return [...new Set(row.errors)].sort((a, b) => ERRORS[a].status - ERRORS[b].status || a.localeCompare(b));
}

const errorList = (codes: ErrorCode[]) => codes.map((c) => `${ERRORS[c].status} \`${c}\``).join(', ');
const heading = (row: Pick<RouteAlias, 'method' | 'path'>) => `${row.method.toUpperCase()} ${row.path}`;
/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (row: Pick<RouteAlias, 'method' | 'path'>) =>
  `#${heading(row)
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replaceAll(' ', '-')}`;

/** An alias's section: what it is, and where its fields are (the row's own section). */
const aliasSection = (row: Capability, alias: RouteAlias) => [
  '',
  `### ${heading(alias)}`,
  '',
  `**${row.summary}.** ${cell(alias.description)}`,
  '',
  alias.translate
    ? `Firecrawl v2's request and answer, translated to and from [\`${heading(row)}\`](${anchor(row)}) (docs/migrating-from-firecrawl.md).`
    : `Its fields: see [\`${heading(row)}\`](${anchor(row)}).`,
  '',
];

/** The generated part of docs/api.md: every route this codebase can serve, from its registry row. */
export function renderRoutes(rows: Capability[] = buildRegistry({ configured: () => true })): string {
  const lines = [
    BEGIN,
    '',
    '## Routes',
    '',
    'Every route takes `Authorization: Bearer <credential>`. Every route can also answer',
    `${errorList([...COMMON_ERRORS].sort((a, b) => ERRORS[a].status - ERRORS[b].status))}`,
    '(`docs/errors.md` says when); the table lists what a route answers beyond those.',
    'A route appears in a deployment only when the service behind it is configured.',
    '',
    '| Method and path | Capability | MCP tool | Bills | Errors beyond the common ones |',
    '|---|---|---|---|---|',
    ...rows.flatMap((row) => {
      const bills = row.bills.length ? row.bills.map((m) => `\`${m}\``).join(', ') : 'free';
      const line = (route: Pick<RouteAlias, 'method' | 'path'>, tool: string) =>
        `| [\`${heading(route)}\`](${anchor(route)}) | \`${row.name}\` | ${tool} | ${bills} | ${errorList(routeErrors(row)) || '—'} |`;
      // An alias is the row again at another route: no MCP tool of its own.
      return [line(row, `\`${row.mcpTool}\``), ...(row.alsoAt ?? []).map((alias) => line(alias, '—'))];
    }),
  ];
  for (const row of rows) {
    lines.push('', `### ${heading(row)}`, '');
    lines.push(`**${row.summary}.** ${cell(row.description ?? '')}`, '');
    const { params, query, body } = row.request;
    if (params) lines.push(...fieldTable('Path parameters', params, 'input'));
    if (query) lines.push(...fieldTable('Query parameters', query, 'input'));
    if (body) lines.push(...fieldTable('Request body (JSON)', body, 'input'));
    if (row.example !== undefined) {
      lines.push('Example request body:', '', '```json', JSON.stringify(row.example, null, 2), '```', '');
    }
    lines.push(...fieldTable(`Answer (${successStatus(row)})`, row.response, 'output'));
    for (const alias of row.alsoAt ?? []) lines.push(...aliasSection(row, alias));
  }
  lines.push(END);
  return lines.join('\n');
}

/** docs/api.md with its generated part replaced; the markers must be there. */
export function renderApiDoc(current: string, routes = renderRoutes()): string {
  const begin = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${API_DOC_PATH} lacks the routes markers`);
  return `${current.slice(0, begin)}${routes}${current.slice(end + END.length)}`;
}

if (require.main === module) {
  writeFileSync(API_DOC_PATH, renderApiDoc(readFileSync(API_DOC_PATH, 'utf8')));
  console.log(`wrote ${API_DOC_PATH}`);
}
