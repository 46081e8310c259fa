#!/usr/bin/env node
// Generates src/generated/ from the gateway's OpenAPI document (docs/clients.md):
//   openapi.ts     the document's types, by openapi-typescript
//   operations.ts  one row per operation (how to call it) and the typed method of each, grouped by tag
// Nothing in either file is written by hand: a capability added to the registry appears here
// by running this again (`make generate` does). The document comes from the gateway's build,
// rendered offline, or from a file or URL given as the only argument.
//
//   node clients/typescript/scripts/generate.mjs [openapi.json | http://host/v1/openapi.json]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const out = path.resolve(here, '../src/generated');

/** Names the SDK gives by hand to helpers on a group; an operation may not take one. */
const HELPERS = { crawl: ['wait'], agent: ['wait', 'follow'] };

async function loadDocument(source) {
  if (!source) {
    const script = path.join(root, 'services/gateway/dist/registry/render-openapi.js');
    return JSON.parse(execFileSync(process.execPath, [script], { maxBuffer: 64 << 20, encoding: 'utf8' }));
  }
  if (/^https?:/.test(source)) return (await fetch(source)).json();
  return JSON.parse(readFileSync(source, 'utf8'));
}

const camel = (parts) => parts.map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
const pascal = (s) => camel(['', ...s.split(/[^A-Za-z0-9]+/)]).replace(/^./, (c) => c.toUpperCase());

/**
 * The group and method an operation is served as: the group is its tag in lower case; the
 * method is its operationId without the group's prefix, camel-cased (`sessions.network` →
 * sessions.network); an operationId that is the group itself (`crawl`, `credits`) is the
 * group's `start` (POST) or `get` (GET).
 */
export function methodName(operationId, tag, httpMethod) {
  const group = tag.toLowerCase();
  if (operationId === group) return { group, name: httpMethod === 'get' ? 'get' : 'start' };
  const parts = operationId.split('.');
  const rest = parts[0] === group ? parts.slice(1) : parts;
  return { group, name: camel(rest.flatMap((p) => p.split(/[^A-Za-z0-9]+/)).filter(Boolean)) };
}

/** The JSON type of a schema, for the CLI's flags; `json` when it is not one plain type. */
function kindOf(schema = {}) {
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    const plain = union.filter((s) => s.type !== 'null');
    return plain.length === 1 ? kindOf(plain[0]) : { type: 'json' };
  }
  const [type] = types;
  if (types.length !== 1 || !type) return { type: 'json' };
  if (type === 'array') return { type, items: kindOf(schema.items).type };
  return {
    type: ['string', 'integer', 'number', 'boolean', 'object'].includes(type) ? type : 'json',
    ...(Array.isArray(schema.enum) && { enum: schema.enum }),
  };
}

const oneLine = (text) => (text ?? '').replace(/\s+/g, ' ').trim();

function param(name, where, schema, required, description) {
  return {
    name,
    in: where,
    ...kindOf(schema),
    required: Boolean(required),
    ...(schema?.default !== undefined && { default: schema.default }),
    ...(description && { description: oneLine(description) }),
  };
}

/**
 * Every operation of the document as the SDK calls it. An alias route (`x-alias-of`, a form
 * another product's clients send) is the same capability: the SDK reaches it by its own method.
 */
export function operationsOf(doc) {
  const rows = [];
  for (const [route, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (op['x-alias-of']) continue;
      const [status, success] = Object.entries(op.responses).find(([s]) => /^[23]\d\d$/.test(s)) ?? [];
      if (!status) throw new Error(`${op.operationId}: no success response`);
      const media = Object.keys(success.content ?? {})[0];
      const answer = /^3/.test(status)
        ? 'redirect'
        : media === 'application/x-ndjson'
          ? 'ndjson'
          : media === 'text/event-stream'
            ? 'sse'
            : 'json';
      const { group, name } = methodName(op.operationId, op.tags?.[0] ?? 'default', method);
      const params = (op.parameters ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => param(p.name, p.in, p.schema, p.required, p.description));
      const pathOrder = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) {
        const required = new Set(body.required ?? []);
        for (const [field, schema] of Object.entries(body.properties ?? {}))
          params.push(param(field, 'body', schema, required.has(field), schema.description));
      }
      const names = params.filter((p) => p.in !== 'path').map((p) => p.name);
      const clash = names.find((n, i) => names.indexOf(n) !== i);
      if (clash) throw new Error(`${op.operationId}: ${clash} is both a query parameter and a body field`);
      // A cursor-paged list: a `cursor` to send, a `nextCursor` answered, and one array of items.
      const schema = success.content?.[media]?.schema ?? {};
      const arrays = Object.entries(schema.properties ?? {}).filter(([, s]) => s.type === 'array');
      let page;
      if (names.includes('cursor') && schema.properties?.nextCursor) {
        if (arrays.length !== 1) throw new Error(`${op.operationId}: a paged answer needs exactly one array`);
        page = { items: arrays[0][0] };
      }
      rows.push({
        id: op.operationId,
        group,
        name,
        tag: op.tags?.[0] ?? 'default',
        method: method.toUpperCase(),
        path: route,
        pathParams: pathOrder,
        summary: oneLine(op.summary),
        answer,
        status: Number(status),
        media: media ?? null,
        hasBody: Boolean(body),
        // The gateway keeps the answer of a POST answered with JSON under its Idempotency-Key.
        idempotent: method === 'post' && answer === 'json',
        ...(page && { page }),
        params,
        description: oneLine(op.description),
      });
    }
  }
  const seen = new Map();
  for (const row of rows) {
    const key = `${row.group}.${row.name}`;
    if (seen.has(key)) throw new Error(`${row.id} and ${seen.get(key)} would both be client.${key}`);
    if (HELPERS[row.group]?.includes(row.name))
      throw new Error(`${row.id} would be client.${key}, a helper's name: rename the helper (src/helpers.ts)`);
    seen.set(key, row.id);
  }
  return rows.sort((a, b) => a.group.localeCompare(b.group) || a.id.localeCompare(b.id));
}

/** The status each error code is answered with (the lowest, where a code has several): a stream's last frame carries no status. */
export function errorStatuses(doc) {
  const statuses = {};
  for (const item of Object.values(doc.paths ?? {}))
    for (const op of Object.values(item))
      for (const [status, response] of Object.entries(op.responses ?? {}))
        for (const code of Object.keys(response.content?.['application/json']?.examples ?? {}))
          if (Number(status) >= 400) statuses[code] = Math.min(statuses[code] ?? Number(status), Number(status));
  return Object.fromEntries(Object.entries(statuses).sort(([a], [b]) => a.localeCompare(b)));
}

/** The document as openapi-typescript should see it: an SSE answer typed as the JSON of each event's data. */
function forTypes(doc) {
  const copy = structuredClone(doc);
  for (const item of Object.values(copy.paths ?? {}))
    for (const op of Object.values(item))
      for (const response of Object.values(op.responses ?? {})) {
        const sse = response.content?.['text/event-stream'];
        const item = sse?.schema?.properties?.data?.contentSchema;
        if (item) sse.schema = item;
      }
  return copy;
}

const STRING = ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword);
/** `string & {}`: any other string, without swallowing the known ones in editors. */
const OTHER_STRING = ts.factory.createIntersectionTypeNode([STRING, ts.factory.createTypeLiteralNode([])]);

/** An enum in an answer, or the Error's code, also admits values this version does not know. */
function openEnums(schema, options) {
  const where = options.path ?? '';
  if (!Array.isArray(schema.enum) || !schema.enum.every((v) => typeof v === 'string')) return undefined;
  if (!where.includes('/responses/') && !where.includes('/components/schemas/Error')) return undefined;
  return ts.factory.createUnionTypeNode([
    ...schema.enum.map((v) => ts.factory.createLiteralTypeNode(ts.factory.createStringLiteral(v))),
    OTHER_STRING,
  ]);
}

const HEADER = (what) =>
  `// Generated by clients/typescript/scripts/generate.mjs from the gateway's OpenAPI document: ${what}.\n// Do not edit by hand; run \`make generate\`.\n`;

const quote = (s) => JSON.stringify(s);
const doc = (lines, indent) => {
  const text = lines.filter((l) => l !== undefined);
  return `${indent}/**\n${text.map((l) => `${indent} * ${l.replaceAll('*/', '*\\/')}`.trimEnd()).join('\n')}\n${indent} */\n`;
};

function operationsSource(rows, version, statuses) {
  const op = (row) => `operations[${quote(row.id)}]`;
  const lines = [
    HEADER(`every operation, as the client calls it (API ${version})`),
    "import type { APIPromise, PagePromise, RequestOptions, Stream } from '../core.js';",
    "import type { Helpers } from '../helpers.js';",
    "import type { operations } from './openapi.js';",
    "import type { OperationSpec } from '../spec.js';",
    '',
    `export const API_VERSION = ${quote(version)};`,
    '',
    '/** Every operation of the document, by operationId. */',
    `export const OPERATIONS = ${JSON.stringify(Object.fromEntries(rows.map((r) => [r.id, r])), null, 2)} as const satisfies Record<string, OperationSpec>;`,
    '',
    'export type OperationId = keyof typeof OPERATIONS;',
    '',
    '/** The HTTP status of each error code, for an error that arrives as the last frame of a stream. */',
    `export const ERROR_STATUS: Record<string, number> = ${JSON.stringify(statuses, null, 2)};`,
    '',
  ];
  const groups = [...new Set(rows.map((r) => r.group))];
  for (const group of groups) {
    lines.push(`/** ${group}: the operations tagged ${rows.find((r) => r.group === group).tag}. */`);
    lines.push(`export interface ${pascal(group)}Operations {`);
    for (const row of rows.filter((r) => r.group === group)) {
      const args = row.pathParams.map((p) => `${p}: string`);
      const query = row.params.some((p) => p.in === 'query') ? `NonNullable<${op(row)}['parameters']['query']>` : '';
      const body = row.hasBody ? `${op(row)}['requestBody']['content']['application/json']` : '';
      const params = [query, body].filter(Boolean).join(' & ');
      const required = row.params.some((p) => p.in !== 'path' && p.required);
      if (params) args.push(`params${required ? '' : '?'}: ${params}`);
      args.push('options?: RequestOptions');
      const answer =
        row.answer === 'redirect'
          ? '{ location: string }'
          : `${op(row)}['responses'][${row.status}]['content'][${quote(row.media)}]`;
      const result =
        row.answer === 'ndjson' || row.answer === 'sse'
          ? `APIPromise<Stream<${answer}>>`
          : row.page
            ? `PagePromise<${answer}, ${answer}[${quote(row.page.items)}][number]>`
            : `APIPromise<${answer}>`;
      lines.push(
        doc(
          [
            `${row.summary}: \`${row.method} ${row.path}\` (\`${row.id}\`).`,
            row.description ? '' : undefined,
            row.description || undefined,
            row.page ? '' : undefined,
            row.page
              ? `Awaited: one page. Iterated (\`for await\`): every item of \`${row.page.items}\`, page after page.`
              : undefined,
            row.answer === 'ndjson' || row.answer === 'sse' ? '' : undefined,
            row.answer === 'ndjson' || row.answer === 'sse' ? 'A stream: iterate it with `for await`.' : undefined,
          ],
          '  ',
        ).trimEnd(),
      );
      lines.push(`  ${row.name}(${args.join(', ')}): ${result};`);
    }
    lines.push('}', '');
  }
  lines.push('/** Every group of operations the client has, with its helpers. */');
  lines.push('export interface Groups {');
  for (const group of groups) {
    const helpers = HELPERS[group] ? ` & Helpers[${quote(group)}]` : '';
    lines.push(`  ${/^[a-z_$][\w$]*$/i.test(group) ? group : quote(group)}: ${pascal(group)}Operations${helpers};`);
  }
  lines.push('}', '');
  return lines.join('\n');
}

async function main() {
  const document = await loadDocument(process.argv[2]);
  const rows = operationsOf(document);
  mkdirSync(out, { recursive: true });
  const ast = await openapiTS(forTypes(document), { transform: openEnums, alphabetize: false });
  writeFileSync(path.join(out, 'openapi.ts'), `${HEADER('its types')}\n${astToString(ast)}`);
  writeFileSync(
    path.join(out, 'operations.ts'),
    operationsSource(rows, document.info.version, errorStatuses(document)),
  );
  console.error(`wrote ${path.relative(root, out)}/openapi.ts and operations.ts: ${rows.length} operations`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
