// The shape of one row of the generated operations table (src/generated/operations.ts).

/** A parameter's JSON type; `json` when it is not one plain type (a union, an object of objects...). */
export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'json';

/** One path or query parameter, or one top-level field of the JSON body. */
export interface ParamSpec {
  readonly name: string;
  readonly in: 'path' | 'query' | 'body';
  readonly type: ParamType;
  /** The type of an array's items. */
  readonly items?: ParamType;
  readonly enum?: readonly unknown[];
  readonly required: boolean;
  readonly default?: unknown;
  readonly description?: string;
}

/** How the client calls one operation of the OpenAPI document. */
export interface OperationSpec {
  /** The operationId: the registry's capability name (`crawl.results`). */
  readonly id: string;
  /** The tag in lower case: `client.<group>`. */
  readonly group: string;
  /** The method on the group: `client.<group>.<name>`. */
  readonly name: string;
  readonly tag: string;
  readonly method: string;
  /** OpenAPI form: `/v1/crawl/{id}/results`. */
  readonly path: string;
  /** The path's parameters in order: the method's leading arguments. */
  readonly pathParams: readonly string[];
  readonly summary: string;
  readonly description: string;
  /** JSON, a stream of NDJSON lines or of server-sent events, or a redirect (its Location). */
  readonly answer: 'json' | 'ndjson' | 'sse' | 'redirect';
  readonly status: number;
  readonly media: string | null;
  readonly hasBody: boolean;
  /** The gateway keeps its answer under an Idempotency-Key: a retry never does the work twice. */
  readonly idempotent: boolean;
  /** A cursor-paged list: `cursor` in, `nextCursor` out, the items in this field. */
  readonly page?: { readonly items: string };
  readonly params: readonly ParamSpec[];
}
