import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from './catalogue/index.js';
import { ERROR_GROUPS } from './codes.js';
import { GRPC_STATUS } from './grpc-status.js';
import { type JsonSchema, toJsonSchema } from './json-schema.js';

/** Where the rendered table is committed; render-docs.test.ts keeps it current. */
export const ERRORS_DOC_PATH = join(__dirname, '../../../docs/errors.md');

const grpcNames = new Map<number, string>(Object.entries(GRPC_STATUS).map(([name, n]) => [n, name]));

/** docs/errors.md, generated from the catalogue so the two cannot drift. */
export function renderErrorsDoc(): string {
  const lines = [
    '# Errors',
    '',
    '<!-- Generated from libs/errors by `node libs/errors/dist/render-docs.js`. Do not edit by hand. -->',
    '',
    'Every failed request answers an Error object: `code` (one of the closed set below),',
    '`message` (fixed per code, never to be parsed) and, when the code has them, `details`.',
    'Branch on `code`. Why each status was chosen: [decision 0002](decisions/0002-error-statuses.md).',
    '',
    'The plan\'s requests-per-minute limit answers `concurrency_limit` with `kind: "requests_per_minute"`;',
    'there is no separate rate-limit code. 429 and 503 may be retried after `Retry-After`;',
    '402 needs credits or a higher cap, not a retry.',
  ];
  for (const group of ERROR_GROUPS) {
    lines.push('', `## ${group.name}`, '');
    lines.push('| Code | HTTP | gRPC | Message | When | Details |', '|---|---|---|---|---|---|');
    for (const code of group.codes) {
      const spec = ERRORS[code];
      const grpc = `${spec.grpc} ${grpcNames.get(spec.grpc) ?? ''}`.trim();
      const http = [spec.status, ...(spec.alsoStatuses ?? [])].join(', ');
      const cells = [`\`${code}\``, http, grpc, spec.message, spec.when, detailsCell(toJsonSchema(spec.details))];
      lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function detailsCell(schema: JsonSchema): string {
  const shape = shapeOf(schema);
  return shape === '{}' ? 'none' : `\`${shape}\``;
}

/** A TypeScript-like one-line rendering, short enough for a table cell. */
function shapeOf(schema: JsonSchema | boolean): string {
  if (typeof schema === 'boolean') return 'unknown';
  if (schema.oneOf) return schema.oneOf.map(shapeOf).join(' or ');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  switch (schema.type) {
    case 'object': {
      const required = new Set(schema.required ?? []);
      const fields = Object.entries(schema.properties ?? {}).map(
        ([name, field]) => `${name}${required.has(name) ? '' : '?'}: ${shapeOf(field)}`,
      );
      return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
    }
    case 'array':
      return `${schema.items && !Array.isArray(schema.items) ? shapeOf(schema.items) : 'unknown'}[]`;
    case undefined:
      return 'unknown';
    default:
      return [schema.type].flat().join(' | ');
  }
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

if (require.main === module) {
  writeFileSync(ERRORS_DOC_PATH, renderErrorsDoc());
  console.log(`wrote ${ERRORS_DOC_PATH}`);
}
