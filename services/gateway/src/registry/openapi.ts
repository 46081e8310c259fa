import { ERRORS, type ErrorCode, errorSchema } from '@wap/errors';
import { z } from 'zod';
import { IDEMPOTENCY_KEY } from '../store/idempotency.js';
import {
  type AnswerKind,
  aliasOperationId,
  answerOf,
  base64Length,
  type Capability,
  COMMON_ERRORS,
  type FileUpload,
  type Tag,
} from './types.js';

type JsonSchema = Record<string, unknown>;

const TAG_DESCRIPTIONS: Record<Tag, string> = {
  Agent: 'Natural-language browser tasks run as jobs.',
  Browsers: 'Stealth browsers driven over CDP (GET /connect), billed by the second.',
  Crawl: 'Walk a site and stream each page as it is scraped.',
  Credits: 'The one credit balance every capability draws on.',
  Integrations: 'External MCP servers a run may call.',
  Monitors: 'Watch a page on a schedule and notify on real change.',
  Profiles: 'Durable browser identities with a pinned exit.',
  Purchases: 'Purchases made by agents within spend caps.',
  Rules: 'Workspace rules, enforced or given as guidance.',
  Scrape: 'Fetch one known URL as clean content.',
  Search: 'Web search, optionally rendering every hit.',
  Secrets: 'Credentials stored under handles; never read back.',
  Sessions: 'Past browser sessions with replays.',
  Usage: 'Metered usage as attached to each call.',
  Wallet: 'Payment methods for agent purchases.',
};

/** The interface's version: the OpenAPI document's `info.version` and the MCP server's. */
export const API_VERSION = '1.0.0';

/** A zod schema as the JSON Schema the document carries (the request side as input, the answer as output). */
export const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
};

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const json = toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** The media type of a streamed answer; its schema is that of each item (OpenAPI 3.1 has no item schema of its own). */
const STREAM_MEDIA: Partial<Record<AnswerKind['kind'], string>> = {
  ndjson: 'application/x-ndjson',
  sse: 'text/event-stream',
};
const STREAM_NOTE: Partial<Record<AnswerKind['kind'], string>> = {
  ndjson: ' A stream of newline-delimited JSON: each line is one object of this schema.',
  sse: ' Server-Sent Events: the `data` of each event is one JSON object of this schema.',
};

/**
 * The schema of a success answer, or of each item of a stream. A server-sent event is described
 * as the event it is (as OpenAPI 3.2 describes event streams): its `data` a string holding one
 * JSON object of the row's schema.
 */
function successSchema(row: Capability): JsonSchema {
  const item = toSchema(row.response, 'output');
  if (answerOf(row).kind !== 'sse') return item;
  return {
    type: 'object',
    properties: {
      event: { type: 'string' },
      id: { type: 'string' },
      retry: { type: 'integer' },
      data: { type: 'string', contentMediaType: 'application/json', contentSchema: item },
    },
    required: ['data'],
  };
}

/** A row's success status: a JSON row's own (201 created, 202 accepted), else 200. */
export const successStatus = (row: Capability): string => {
  const answer = answerOf(row);
  return String(answer.kind === 'json' ? answer.status : 200);
};

/**
 * What Node's HTTP parser refuses before any route sees it (http/client-error.ts): any operation can
 * answer these, with the Error object's bad_request.
 */
const PARSER_REFUSALS = {
  '431': {
    description: '`bad_request`: the request line and headers together are larger than the server reads.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  },
};

/** The multipart/form-data form of a body that carries files (http/multipart.ts reads it). */
function multipartSchema(files: FileUpload): JsonSchema {
  const file = {
    type: 'string',
    format: 'binary',
    description: `A file: its part's filename is the file's name, its Content-Type the file's media type; ${files.fileBytes} bytes at most.`,
  };
  const body = {
    type: 'string',
    contentMediaType: 'application/json',
    description:
      files.field === 'files'
        ? "The body's other fields as a JSON object, as the JSON form has them, without `files`."
        : 'Optional: `{ name, mimeType }` as a JSON object, to name the file otherwise than its part does.',
  };
  return files.field === 'files'
    ? {
        type: 'object',
        properties: {
          body,
          files: { type: 'array', maxItems: files.most, items: file, description: `${files.most} files at most.` },
        },
        required: ['body'],
      }
    : { type: 'object', properties: { file, body }, required: ['file'] };
}

/** What a body that carries files may be, for its request body's description. */
const filesNote = (files: FileUpload) =>
  `JSON, the files' bytes base64, or multipart/form-data, each file a part of its own (read as a stream). Files: ${files.most} at most, ${files.fileBytes} bytes each, ${files.totalBytes} in all; the body may be larger than MAX_BODY_BYTES (1 MiB by default) by their base64, ${base64Length(files.totalBytes)} bytes. A larger one is 413 \`bad_request\` with \`details.limit\`.`;

/** Error responses grouped by status, each listing the codes it can carry. */
function errorResponses(codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((c) => `\`${c}\`: ${ERRORS[c].when}`).join('\n\n'),
          ...(status === 429 ? { headers: rateLimitHeaders } : {}),
          ...(status === 401 ? { headers: { 'WWW-Authenticate': challengeHeader } } : {}),
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Error' },
              examples: Object.fromEntries(list.map((c) => [c, { value: { code: c, message: ERRORS[c].message } }])),
            },
          },
        },
      ]),
  );
}

const challengeHeader = {
  description:
    'RFC 6750 challenge: `Bearer realm="api"` when no credential was sent; with `error="invalid_request"` when the Authorization header is not one `Bearer <credential>`; with `error="invalid_token"` when the credential is unknown, expired or revoked.',
  schema: { type: 'string' },
};

const rateLimitHeaders = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  RateLimit: {
    description: 'IETF RateLimit fields: remaining requests `r` and seconds to reset `t`.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'IETF RateLimit policy: quota `q` per window `w` seconds.',
    schema: { type: 'string' },
  },
};

/**
 * GET /connect and its json/version: the CDP surface, not a registry row
 * (docs/connect.md), documented with the session options its query takes.
 */
function connectPaths(query: z.ZodType): Record<string, Record<string, unknown>> {
  const errors = errorResponses([
    ...COMMON_ERRORS,
    'quota_exceeded',
    'not_found',
    'no_capacity',
    'profile_not_found',
    'profile_in_use',
    'exit_unavailable',
  ]);
  const common = {
    tags: ['Browsers'],
    'x-bills': ['context_seconds', 'proxy_bytes'],
    parameters: parameters(query, 'query'),
  };
  const versionJson = {
    type: 'object',
    required: ['Browser', 'Protocol-Version', 'User-Agent', 'webSocketDebuggerUrl'],
    properties: {
      Browser: { type: 'string' },
      'Protocol-Version': { type: 'string' },
      'User-Agent': { type: 'string' },
      webSocketDebuggerUrl: {
        type: 'string',
        description: "The browser host's CDP endpoint for the new session, with a single-use ticket good for 30 s.",
      },
    },
  };
  const version = {
    ...common,
    operationId: 'connect.version',
    summary: 'Opens a browser session and answers where to drive it over CDP (Playwright, Puppeteer browserURL).',
    responses: {
      '200': {
        description: 'A session is open. Billed by the second of browser time while it lives.',
        headers: { 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } },
        content: { 'application/json': { schema: versionJson } },
      },
      ...errors,
    },
  };
  return {
    '/connect': {
      get: {
        ...common,
        operationId: 'connect',
        summary: "Opens a browser session: a WebSocket upgrade is redirected to the host's CDP endpoint.",
        description:
          "With `Upgrade: websocket`: 302 to the host's ws(s):// endpoint with a single-use ticket (Playwright >= 1.59, Puppeteer browserWSEndpoint). Without: 302 to the host's own json/version with the ticket. docs/connect.md.",
        responses: {
          '302': {
            description: 'A session is open; Location says where.',
            headers: { Location: { schema: { type: 'string' } } },
          },
          ...errors,
        },
      },
    },
    '/connect/json/version': { get: version },
    '/connect/json/version/': { get: { ...version, operationId: 'connect.version.slash' } },
  };
}

/** The OpenAPI 3.1 document of exactly the rows this deployment serves (and /connect, when `connect` is given). */
export function openApiDocument(rows: Capability[], serverUrl: string, connect?: z.ZodType) {
  const paths: Record<string, Record<string, unknown>> = connect ? connectPaths(connect) : {};
  for (const row of rows) {
    const operation: Record<string, unknown> = {
      operationId: row.name,
      summary: row.summary,
      ...(row.description ? { description: row.description } : {}),
      tags: [row.tag],
      'x-mcp-tool': row.mcpTool,
      'x-bills': row.bills,
      parameters: [...parameters(row.request.params, 'path'), ...parameters(row.request.query, 'query')],
      responses: {
        [successStatus(row)]: {
          description: `${row.bills.length ? `Success. Billed: ${row.bills.join(', ')}.` : 'Success. Free.'}${STREAM_NOTE[answerOf(row).kind] ?? ''}`,
          headers: { 'X-Request-Id': { schema: { type: 'string' } }, RateLimit: rateLimitHeaders.RateLimit },
          content: {
            [STREAM_MEDIA[answerOf(row).kind] ?? 'application/json']: { schema: successSchema(row) },
          },
        },
        ...errorResponses([...COMMON_ERRORS, ...row.errors]),
        ...PARSER_REFUSALS,
      },
    };
    if (row.request.body) {
      operation.requestBody = {
        required: true,
        ...(row.files ? { description: filesNote(row.files) } : {}),
        content: {
          'application/json': {
            schema: toSchema(row.request.body, 'input'),
            ...(row.example === undefined ? {} : { example: row.example }),
          },
          ...(row.files
            ? {
                'multipart/form-data': {
                  schema: multipartSchema(row.files),
                  encoding: { body: { contentType: 'application/json' } },
                },
              }
            : {}),
        },
      };
      if (row.method === 'post') {
        (operation.parameters as unknown[]).push({
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Retries with the same key and body return the first response without repeating the work. `X-Idempotency-Key`, as Firecrawl’s clients send it, is read as this header when this one is absent (both, with different keys: 400).',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
        });
      }
    }
    paths[row.path] = { ...paths[row.path], [row.method]: operation };
    // An alias is the same operation at another route: its own id and description, and no MCP tool.
    const { 'x-mcp-tool': _tool, ...same } = operation;
    // A translated route (Firecrawl v2's) takes and answers another API's shapes: docs/migrating-from-firecrawl.md.
    for (const alias of (row.alsoAt ?? []).filter((a) => !a.translate)) {
      paths[alias.path] = {
        ...paths[alias.path],
        [alias.method]: {
          ...same,
          operationId: aliasOperationId(row, alias),
          description: alias.description,
          'x-alias-of': row.name,
        },
      };
    }
  }
  const tags = [...new Set<Tag>([...rows.map((r) => r.tag), ...(connect ? (['Browsers'] as const) : [])])]
    .sort()
    .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Web Access API',
      version: API_VERSION,
      description: 'Scrape, crawl, search, browser agents, monitors and stealth browsers on one credit balance.',
    },
    servers: [{ url: serverUrl }],
    tags,
    security: [{ ApiKeyAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKeyAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key `ock_<keyId>.<secret>` or an OAuth access token `oat_...`.',
        },
      },
      schemas: { Error: errorSchema() },
    },
  };
}
