import type { ErrorCode } from '@wap/errors';
import type { Logger } from '@wap/log';
import type { MeterName } from '@wap/plans';
import type { z } from 'zod';
import type { LedgerViews } from '../clients/ledger-views.js';
import type { Backend, Upstreams } from '../clients/upstreams.js';
import type { Principal } from '../oauth/identity.js';
import type { ReplayLinks } from '../replay/links.js';

/** The API's capability groups (docs/api.md): the OpenAPI tags. */
export type Tag =
  | 'Agent'
  | 'Browsers'
  | 'Crawl'
  | 'Credits'
  | 'Integrations'
  | 'Monitors'
  | 'Profiles'
  | 'Purchases'
  | 'Rules'
  | 'Scrape'
  | 'Search'
  | 'Secrets'
  | 'Sessions'
  | 'Usage'
  | 'Wallet';

/** The priced meters (docs/billing.md); `free` rows bill nothing. */
export type Meter = Exclude<MeterName, 'bytes_egress' | 'tokens'>;

export interface HandlerContext {
  principal: Principal;
  /** The request's id in logs and on the `X-Request-Id` header; the client may set it, so it keys nothing. */
  requestId: string;
  /**
   * The id of the work this request asks for, minted by the gateway: the ledger's
   * idempotency keys and a crawl's identity derive from it. Random per request; with an
   * `Idempotency-Key`, derived from the workspace, that key and the request's fingerprint,
   * so only a true retry of the same request can land on the same charge.
   */
  operationId: string;
  upstreams: Upstreams;
  /** The ledger's answers kept per workspace (credits, usage), dropped when it announces a change (decision 0008). */
  ledgerViews: LedgerViews;
  log: Logger;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Signs links to session replays; absent when the gateway has no REPLAY_KEY. */
  replays: ReplayLinks | undefined;
  /** The base URL clients reach this API at (PUBLIC_URL): a link in an answer starts with it. */
  publicUrl: string;
}

/**
 * How a row answers. JSON carries the row's `response` as its body with the
 * status named here; a stream (NDJSON lines or server-sent events) yields
 * items each shaped as `response`; a redirect answers a Location.
 */
export type AnswerKind =
  | { kind: 'json'; status: 200 | 201 | 202 }
  | { kind: 'ndjson' }
  | { kind: 'sse' }
  | { kind: 'redirect'; status: 302 | 303 | 307 };

/** The surfaces a row can be served on; /connect is not a registry surface. */
export type RowSurface = 'rest' | 'mcp';

/** A request as the client sent it, before the row reads it. */
export interface RawInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * Another API's form of a row (Firecrawl v2's, docs/migrating-from-firecrawl.md): its
 * request rewritten into the row's before the row reads it, and the row's answer
 * rewritten into theirs. Nothing else differs: the same handler, billing, limits,
 * idempotency and errors (in that API's error body).
 */
export interface Translation {
  request?(input: RawInput): RawInput;
  response?(body: unknown, input: RawInput): unknown;
}

/** One more route a row answers at (`alsoAt`). */
export interface RouteAlias {
  method: 'get' | 'post' | 'put' | 'delete';
  path: `/v1/${string}` | `/v2/${string}`;
  /** What this form is and whom it is for: its description in the OpenAPI document and docs/api.md. */
  description: string;
  /** Its operation id in the OpenAPI document when the row has two aliases of one method; default `<row>.<method>`. */
  operationId?: string;
  /** A route of Firecrawl's v2 API: its request and answer translated; left out of the OpenAPI document. */
  translate?: Translation;
  /** On a row with files, the multipart part holding the other fields as JSON here (Firecrawl's `options`); default `body`. */
  bodyPart?: string;
}

/** An alias's operation in the OpenAPI document: the row's name and the alias's method (`crawl.cancel.delete`). */
export const aliasOperationId = (row: Capability, alias: RouteAlias) =>
  alias.operationId ?? `${row.name}.${alias.method}`;

/**
 * The files a row's body carries (docs/api.md, "Requests"). Its JSON body may be larger than
 * MAX_BODY_BYTES by the base64 of `totalBytes`; and it may come as multipart/form-data instead,
 * each file a part named `field` (its filename the file's name, its Content-Type its media type)
 * and the body's other fields as JSON in a part named `body`, read as a stream within the same
 * limits.
 */
export interface FileUpload {
  /**
   * The file parts' name, and where the JSON body holds the files: `files`, an array of
   * `{ name, mimeType, data }` (data base64); `file`, the body itself one such object.
   */
  field: 'files' | 'file';
  /** Files one body may carry. */
  most: number;
  /** Bytes of one file, decoded. */
  fileBytes: number;
  /** Bytes of all the files of one body, decoded. */
  totalBytes: number;
}

/** Bytes of `bytes` written as base64 (with padding). */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

/** The largest body a row takes, JSON or multipart: the default (or the row's own, when larger), plus what its files may add as base64. */
export const bodyLimitOf = (row: Capability, maxBodyBytes: number): number =>
  Math.max(maxBodyBytes, row.bodyBytes ?? 0) + (row.files ? base64Length(row.files.totalBytes) : 0);

/** A redirect row's handler answers where to. */
export interface Redirect {
  location: string;
}

/** What a handler gives back for its row's answer kind: a body, the items of a stream, or a Location. */
export type HandlerResult<R> = R | AsyncIterable<R> | Redirect;

export interface CapabilityInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * One row of the registry: everything the REST route, the OpenAPI document
 * and the MCP tool are generated from.
 */
export interface Capability<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  /** Dotted name, as docs/api.md's route table lists it: `crawl.results`. */
  name: string;
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form: `/v1/crawl/{id}/results`. */
  path: `/v1/${string}`;
  tag: Tag;
  summary: string;
  description?: string;
  /** The service that must be configured for this row to exist. */
  backend: Backend;
  /** Meters this route charges; empty for free routes. */
  bills: Meter[];
  /** `service_<group>_<verb>` */
  mcpTool: `service_${string}`;
  request: { params?: P; query?: Q; body?: B };
  /** The files its body carries: a larger body, and multipart/form-data as well as JSON. */
  files?: FileUpload;
  /**
   * The largest JSON body it takes, when its fields may add up to more than MAX_BODY_BYTES
   * (a batch's thousand URLs): its schema must bound the body under this.
   */
  bodyBytes?: number;
  /**
   * A valid request body, shown on `/docs` and in the OpenAPI document
   * (required when the row has a body; examples.test.ts parses it with `body`).
   * Without it the renderer builds one from the schema, which may not be valid.
   */
  example?: z.input<B>;
  /** The JSON body, or each item of a stream. */
  response: R;
  /** Default: JSON with 200. */
  answer?: AnswerKind;
  /** Default: REST and MCP. */
  surfaces?: RowSurface[];
  /**
   * Other REST routes this capability also answers at, for clients that call it there
   * (Firecrawl's `DELETE /v1/crawl/{id}` for crawl.cancel): the same row behind them, so the
   * same input, handler, billing, errors and answer; no MCP tool of their own.
   */
  alsoAt?: RouteAlias[];
  /**
   * The call reaches pages on the open web (a scrape, a crawl, a search):
   * MCP's `openWorldHint`. Default false: it works on the workspace's own data.
   */
  openWorld?: boolean;
  /**
   * Errors this route itself can answer, beyond the ones every authenticated route can.
   * A handler that raises another code breaks the contract: logged always, a 500 under
   * STRICT_CONTRACTS (the tests), so the declaration cannot drift from the code.
   */
  errors: ErrorCode[];
  handler(
    ctx: HandlerContext,
    input: CapabilityInput<z.infer<P>, z.infer<Q>, z.infer<B>>,
  ): Promise<HandlerResult<z.input<R>>>;
}

export const answerOf = (row: Capability): AnswerKind => row.answer ?? { kind: 'json', status: 200 };
export const surfacesOf = (row: Capability): RowSurface[] => row.surfaces ?? ['rest', 'mcp'];

/** Keeps each row's handler typed by its own schemas. */
export function capability<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  row: Capability<P, Q, B, R>,
): Capability {
  return row as unknown as Capability;
}

/**
 * Errors any authenticated route can answer. `no_capacity`: a database or a service behind the
 * route away for a moment (a restart, a failover; docs/scale.md), whatever the route does.
 */
export const COMMON_ERRORS: ErrorCode[] = [
  'bad_request',
  'unauthorized',
  'tenant_scope',
  'concurrency_limit',
  'internal',
  'deadline_exceeded',
  'capability_unavailable',
  'no_capacity',
];
